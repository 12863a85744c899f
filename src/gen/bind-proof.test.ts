// The bind proof's format, and its check run for real under sh and bash
// against real files: what the box's launcher and byre's helpers do first.

import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import {
  BIND_PROOF_EXIT,
  bindProofEnvArgs,
  bindProofValue,
  provenScript,
  type ProvenBind,
} from './bind-proof.js';

const tmp = useTempDir('bind-proof');

/** The bind check as byre's helpers carry it: what a proven script puts in front. */
const BIND_PROOF_SH = provenScript('', []);

function proven(target: string): ProvenBind {
  const st = statSync(target, { bigint: true });
  return { target, dev: st.dev, ino: st.ino };
}

function run(
  shell: 'sh' | 'bash',
  proof: string | null,
  script = 'echo RAN "$@"',
  args: string[] = [],
): { code: number | null; stdout: string; stderr: string } {
  const strict = shell === 'bash' ? 'set -euo pipefail\n' : 'set -eu\n';
  const r = spawnSync(shell, ['-c', `${strict}${BIND_PROOF_SH}${script}`, 'argv0', ...args], {
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      ...(proof === null ? {} : { BYRE_BIND_PROOF: proof }),
    },
    encoding: 'utf8',
    // A socket on stdin makes bash read ~/.bashrc (its remote-shell rule).
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bindProofValue', () => {
  it('lists dev:ino:target, comma-separated, in order', () => {
    expect(
      bindProofValue([
        { target: '/workspace', dev: 2049n, ino: 12n },
        { target: '/home/u/p q/.git', dev: 18446744073709551615n, ino: 9007199254740993n },
      ]),
    ).toBe('2049:12:/workspace,18446744073709551615:9007199254740993:/home/u/p q/.git');
    expect(bindProofValue([])).toBe('');
  });

  it.each([
    ['relative', 'data'],
    ['a comma', '/a,b'],
    ['a newline', '/a\nb'],
    ['a carriage return', '/a\rb'],
    ['a NUL', '/a\0b'],
  ])('refuses a target that is %s', (_what, target) => {
    expect(() => bindProofValue([{ target, dev: 1n, ino: 2n }])).toThrow(
      expect.objectContaining({ rule: 'mount.unsafe-path' }),
    );
  });

  it('gives a helper its -e pair only when there is something to prove', () => {
    expect(bindProofEnvArgs(null)).toEqual([]);
    expect(bindProofEnvArgs([])).toEqual([]);
    expect(bindProofEnvArgs([{ target: '/src', dev: 1n, ino: 2n }])).toEqual([
      '-e',
      'BYRE_BIND_PROOF=1:2:/src',
    ]);
  });

  it('puts the check in front of a helper script only with a proof', () => {
    expect(provenScript('cp -a /src/. /dest/', null)).toBe('cp -a /src/. /dest/');
    expect(BIND_PROOF_SH).toMatch(/^# --- bind proof \(adr\/0045\)/);
    expect(provenScript('cp -a /src/. /dest/', [])).toBe(`${BIND_PROOF_SH}cp -a /src/. /dest/`);
  });
});

describe.each(['sh', 'bash'] as const)('the check under %s', (shell) => {
  it('runs the rest when every target is the pinned object, positional arguments intact', () => {
    const a = path.join(tmp.path, 'a b');
    const f = path.join(tmp.path, 'file');
    mkdirSync(a);
    writeFileSync(f, 'x');
    const r = run(shell, bindProofValue([proven(a), proven(f)]), 'echo RAN "$@"', ['x', 'y z']);
    expect(r).toEqual({ code: 0, stdout: 'RAN x y z\n', stderr: '' });
  });

  it('follows a link at the target, as a mount point is reached through one', () => {
    const a = path.join(tmp.path, 'a');
    mkdirSync(a);
    symlinkSync(a, path.join(tmp.path, 'via'));
    const pin = proven(a);
    const r = run(shell, bindProofValue([{ ...pin, target: path.join(tmp.path, 'via') }]));
    expect(r.code).toBe(0);
  });

  it('refuses, naming the bind and running nothing, when a target is another object', () => {
    const a = path.join(tmp.path, 'a');
    mkdirSync(a);
    const pin = proven(a);
    renameSync(a, path.join(tmp.path, 'a.real'));
    symlinkSync(tmp.path, a);
    const r = run(shell, bindProofValue([pin]));
    expect(r.code).toBe(BIND_PROOF_EXIT);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `byre:   ${a}: byre checked device and inode ${pin.dev} ${pin.ino}, the box has `,
    );
    expect(r.stderr).toContain('failing closed');
  });

  it('refuses when a target is missing', () => {
    const r = run(shell, `1:2:${path.join(tmp.path, 'gone')}`);
    expect(r.code).toBe(BIND_PROOF_EXIT);
    expect(r.stdout).toBe('');
  });

  it.each([
    ['no numbers', '/workspace'],
    ['a letter in the device', 'x:2:/workspace'],
    ['an empty inode', '1::/workspace'],
    ['a relative target', '1:2:workspace'],
    ['an empty entry', `1:2:/,,1:2:/`],
    ['only commas', ',,'],
  ])('refuses a malformed list (%s)', (_what, proof) => {
    const r = run(shell, proof);
    expect(r.code).toBe(BIND_PROOF_EXIT);
    expect(r.stderr).toContain('malformed');
    expect(r.stdout).toBe('');
  });

  it('checks nothing without a list (an ejected box, a remote engine)', () => {
    expect(run(shell, null).code).toBe(0);
    expect(run(shell, '').code).toBe(0);
  });
});
