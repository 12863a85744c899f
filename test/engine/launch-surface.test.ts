// Engine tier for what reaches a box at launch (adr/0051), on docker and
// podman as root, one box each (rootless podman bakes with the same builder
// as root podman and reads the same -e argv, so it would prove nothing new): `[env]` values arrive byte for byte
// (read back with od in the box), so do env_from_host values, and a raw
// run_args bind and capability are counted and flagged by develop's banner
// and by status while the box runs. As root, a launch record byre cannot
// write (its directory a full tmpfs) means no box at all.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { flavorsUnderTest } from './engines.js';
import { engineCli, makeOwnedDir, runByre, runningBox, testScope, waitFor } from './harness.js';

const flavors = flavorsUnderTest().filter((f) => f.user === null);

const scope = testScope();

/** Every byte a Dockerfile ENV line can carry, the ones Go-style quoting mangled included. */
const BAKED =
  'esc\u001b[1m tab\t cr\r dollar $HOME ${X} back\\slash quote" nel\u0085 nbsp\u00a0 bom\ufeff é \u{1f600} trailing  ';
/** A value that travels as -e argv: a line feed and ESC too. */
const FROM_HOST = 'line one\nline two\u001b[0m\ttab $HOME \\n';

const hex = (s: string): string => Buffer.from(s, 'utf8').toString('hex');

/** The bytes of `$name` in the box, as hex (od never prints a byte as itself). */
function boxBytes(project: Parameters<typeof runByre>[0], name: string): string {
  const r = runByre(project, [
    'shell',
    '--',
    'sh',
    '-c',
    `printf %s "$${name}" | od -An -v -tx1 | tr -d ' \\n'`,
  ]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe.skipIf(flavors.length === 0).each(flavors)('what reaches the box on $label', (flavor) => {
  it('[env] and env_from_host byte for byte; raw run_args counted and flagged', async () => {
    const project = scope.project(flavor);
    const extra = makeOwnedDir(project, path.join(project.root, 'raw-extra'));
    writeFileSync(path.join(extra, 'marker'), 'raw bind\n');
    project.writeConfig(
      [
        `run_args = ["--cap-add=SYS_PTRACE", "-v", ${JSON.stringify(`${extra}:/raw-extra:ro`)}]`,
        '[env]',
        `BAKED = ${JSON.stringify(BAKED)}`,
        '[env_from_host]',
        'FROM_HOST = "env:BYRE_TEST_FROM_HOST"',
        '',
      ].join('\n'),
    );

    if (flavor.user === null) {
      // A launch record byre cannot write: no box, and the error says where and why.
      const launches = path.join(project.store, 'launches');
      mkdirSync(launches, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4k,mode=0700', 'tmpfs', launches]);
      try {
        spawnSync('dd', ['if=/dev/zero', `of=${path.join(launches, 'fill')}`, 'bs=4k'], {
          stdio: 'ignore',
        });
        const refused = runByre(project, ['develop'], {
          input: 'exit 0\n',
          env: { BYRE_TEST_FROM_HOST: FROM_HOST },
        });
        expect(refused.stderr).toMatch(
          /byre: cannot write the launch record \S+\/launches\/[0-9a-f]{64}\.toml: no space left on device; the box was not created/,
        );
        expect(refused.stderr).not.toContain('CRASHED');
        expect(refused.status).toBe(1);
        const made = engineCli(project, [
          'ps',
          '-aq',
          '--filter',
          `label=byre.project=${project.id}`,
        ]);
        expect(made.trim()).toBe('');
      } finally {
        spawnSync('umount', ['-l', launches]);
      }
    }

    const session = scope.start(project, ['develop'], {
      env: { BYRE_TEST_FROM_HOST: FROM_HOST },
    });
    await waitFor('the box', () => runningBox(project));

    expect(boxBytes(project, 'BAKED')).toBe(hex(BAKED));
    expect(boxBytes(project, 'FROM_HOST')).toBe(hex(FROM_HOST));

    // The raw bind is real, which is why it is counted.
    const inBox = runByre(project, ['shell', '--', 'cat', '/raw-extra/marker']);
    expect(inBox.stdout).toBe('raw bind\n');

    // The banner is written before the box starts, but this file's own
    // reads of it wait on the event loop, which the synchronous probes above
    // may not have turned since: wait for it rather than read a partial one.
    const banner = await waitFor('the launch banner', () =>
      session.stderr().includes('byre: run_args -v ') ? session.stderr() : null,
    );
    expect(banner).toMatch(
      /^byre: exposure: \/workspace rw · 1 host mount \(1 via run_args\) · 0 ports · /m,
    );
    expect(banner).toContain(
      'byre: 🛑 containment hole: --cap-add=SYS_PTRACE: adds capability SYS_PTRACE (byre gives the box none of its own)  (run_args: project)',
    );
    expect(banner).toContain(
      `byre: run_args -v ${extra}:/raw-extra:ro: binds host ${extra} at /raw-extra (ro; -v)  (run_args: project)`,
    );

    const status = runByre(project, ['status']);
    expect(status.status, status.stderr).toBe(0);
    // The page wraps long rows to its width: compare with the wrapping undone.
    const page = status.stdout.replace(/\s+/g, ' ');
    const flat = (s: string): string => s.replace(/\s+/g, ' ');
    expect(page).toContain('the grant rows above describe THIS box');
    expect(page).toContain(
      flat(
        'Containment: 🛑 HOLE -- --cap-add=SYS_PTRACE: adds capability SYS_PTRACE (byre gives the box none of its own)  (run_args: project)',
      ),
    );
    expect(page).toContain(flat(`Host mounts: ${extra} -> /raw-extra  (ro)  (run_args: project)`));
    expect(await session.end()).toBe(0);
  });
});
