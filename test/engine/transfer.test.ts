// deliver and grab on each real engine, through the built binary, into and
// out of a background session: files, trees and stdin land in /inbox with
// collisions uniquified; grabs never overwrite and never follow what the box
// plants. The tests of one engine flavour share one box (a box start is most
// of each test's time, ~35 s on rootless podman), so they run in order and
// each uses its own names; the last one rearranges /inbox. Everything is
// removed after the file, including on failure.

import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { flavorsUnderTest } from './engines.js';
import {
  testScope,
  engineCli,
  liveMonitors,
  makeOwnedDir,
  podmanRecorder,
  runByre,
  runningBox,
  waitFor,
  type TestProject,
} from './harness.js';
import { tarOf, withoutMarker } from '../support/tar.js';

const flavors = flavorsUnderTest();

const scope = testScope('all');

async function boxFor(
  flavor: (typeof flavors)[number],
): Promise<{ project: TestProject; id: string }> {
  const project = scope.project(flavor);
  scope.start(project, ['develop']);
  // The first box on an engine pays for its image build.
  const id = await waitFor('the box', () => runningBox(project), 500_000);
  // The login shell is up once the box answers an exec.
  await waitFor('the box to answer', () => {
    try {
      return engineCli(project, ['exec', id, 'true']) === '' ? true : null;
    } catch {
      return null;
    }
  });
  return { project, id };
}

/**
 * The containers the live `conmon` processes of the project's user watch
 * (`-c <id>`): a monitor still winding down after an earlier test's box
 * would rightly make byre ask podman.
 */
function monitoredBy(project: TestProject): string[] {
  const user = project.flavor.user ?? 'root';
  const out = execFileSync(
    'sh',
    ['-c', `ps -u ${user} -o args= | grep -E '^[^ ]*conmon ' || true`],
    { encoding: 'utf8' },
  );
  return [...new Set([...out.matchAll(/ -c ([0-9a-f]{64})/g)].map((m) => m[1] ?? ''))];
}

function inBox(project: TestProject, id: string, script: string): string {
  return engineCli(project, ['exec', id, 'sh', '-c', script]);
}

/** As root inside the box: rearranging / is not something dev may do. */
function asRootInBox(project: TestProject, id: string, script: string): string {
  return engineCli(project, ['exec', '-u', '0:0', id, 'sh', '-c', script]);
}

/** A script run as the box's own user, the agent's. */
function asBoxUser(project: TestProject, id: string, script: string): string {
  return engineCli(project, ['exec', id, 'sh', '-c', script]);
}

/** Every path under `dir` that is a symlink. */
function symlinksUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isSymbolicLink()) out.push(p);
    else if (e.isDirectory()) out.push(...symlinksUnder(p));
  }
  return out;
}

describe.skipIf(flavors.length === 0).each(flavors)('deliver and grab on $label', (flavor) => {
  let shared: Promise<{ project: TestProject; id: string }> | null = null;
  const theBox = (): Promise<{ project: TestProject; id: string }> => (shared ??= boxFor(flavor));

  it('delivers a file, a tree and stdin; a second delivery of a name lands as name-2', async () => {
    const { project, id } = await theBox();
    const src = path.join(project.dir, 'report.pdf');
    writeFileSync(src, 'pdf bytes\n');
    mkdirSync(path.join(project.dir, 'tree', 'sub'), { recursive: true });
    writeFileSync(path.join(project.dir, 'tree', 'a.txt'), 'a\n');
    writeFileSync(path.join(project.dir, 'tree', 'sub', 'b.txt'), 'b\n');

    const first = runByre(project, ['deliver', 'report.pdf']);
    // stderr may carry notes about other boxes on the machine; errors fail the status.
    expect(first.status).toBe(0);
    expect(first.stdout).toBe('/inbox/report.pdf\n');
    const second = runByre(project, ['deliver', 'report.pdf']);
    expect(second.status).toBe(0);
    expect(second.stdout).toBe('/inbox/report-2.pdf\n');
    expect(inBox(project, id, 'cat /inbox/report.pdf /inbox/report-2.pdf')).toBe(
      'pdf bytes\npdf bytes\n',
    );

    const tree = runByre(project, ['deliver', 'tree', 'report.pdf']);
    expect(tree.status).toBe(0);
    expect(tree.stdout).toBe('/inbox/tree\n/inbox/report-3.pdf\n');
    expect(inBox(project, id, 'cat /inbox/tree/a.txt /inbox/tree/sub/b.txt')).toBe('a\nb\n');

    const piped = runByre(project, ['deliver', '--name', 'notes.txt', '-'], { input: 'piped\n' });
    expect(piped.status).toBe(0);
    expect(piped.stdout).toBe('/inbox/notes.txt\n');
    const bare = runByre(project, ['deliver'], { input: 'bare\n' });
    expect(bare.status).toBe(0);
    expect(bare.stdout).toMatch(/^\/inbox\/stdin-\d{8}-\d{6}\n$/);
    expect(inBox(project, id, 'cat /inbox/notes.txt')).toBe('piped\n');
    // Nothing staged is left behind, and files belong to dev.
    expect(inBox(project, id, 'ls -A /inbox | grep -c "^\\.byre" || true').trim()).toBe('0');
    expect(inBox(project, id, 'stat -c %u /inbox/tree/sub/b.txt').trim()).toBe(
      inBox(project, id, 'echo $BYRE_UID').trim(),
    );

    const boxes = runByre(project, ['deliver', '--boxes', '--proto', '1']);
    expect(boxes.status).toBe(0);
    const line = boxes.stdout.split('\n').find((l) => l.startsWith(id));
    expect(line?.split('\t').slice(1)).toEqual([flavor.engine, project.id, project.id, '']);
  });

  it('grabs a file and a tree out, never overwriting, and never following a planted symlink', async () => {
    const { project, id } = await theBox();
    inBox(
      project,
      id,
      'mkdir -p /workspace/out/sub && echo one > /workspace/out/one.txt && ' +
        'echo two > /workspace/out/sub/two.txt && echo solo > /tmp/solo.txt',
    );
    const dest = path.join(project.root, 'dest-grab');
    makeOwnedDir(project, dest);
    writeFileSync(path.join(dest, 'solo.txt'), 'mine\n');
    if (flavor.user !== null) engineCli(project, ['exec', id, 'true']);
    const grabbed = runByre(project, ['grab', '/tmp/solo.txt', dest]);
    expect(grabbed.status).toBe(0);
    expect(grabbed.stdout).toBe(`${path.join(dest, 'solo-2.txt')}\n`);
    expect(readFileSync(path.join(dest, 'solo.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(path.join(dest, 'solo-2.txt'), 'utf8')).toBe('solo\n');

    const tree = runByre(project, ['grab', 'out', dest]);
    expect(tree.status).toBe(0);
    expect(tree.stdout).toBe(`${path.join(dest, 'out')}\n`);
    expect(readFileSync(path.join(dest, 'out', 'sub', 'two.txt'), 'utf8')).toBe('two\n');

    const streamed = runByre(project, ['grab', '/tmp/solo.txt', '-']);
    expect(streamed.stderr).not.toMatch(/byre: (?!skipping|\d+ box)/);
    expect(streamed.status).toBe(0);
    expect(streamed.stdout).toBe('solo\n');
  });

  it.skipIf(flavor.engine !== 'podman')(
    "finds its box again from podman's monitors without a ps, and asks while an unknown container runs (adr/0044)",
    async () => {
      const { project, id } = await theBox();
      await waitFor('only the box to be monitored', () => {
        const ids = monitoredBy(project);
        return ids.length === 1 && ids[0]?.startsWith(id) === true ? true : null;
      });
      writeFileSync(path.join(project.dir, 'memo.txt'), 'memo\n');
      // A delivery that asks podman, and so remembers the box.
      expect(runByre(project, ['deliver', 'memo.txt']).stdout).toBe('/inbox/memo.txt\n');
      const podman = podmanRecorder(project, { native: true });
      const fast = runByre(project, ['deliver', 'memo.txt'], { env: podman.env });
      expect(fast.status).toBe(0);
      expect(fast.stdout).toBe('/inbox/memo-2.txt\n');
      const back = runByre(project, ['grab', '/inbox/memo-2.txt', '-'], { env: podman.env });
      expect(back.status).toBe(0);
      expect(back.stdout).toBe('memo\n');
      expect(podman.calls(), liveMonitors()).toEqual([]);

      // A container the memo never saw might be a box: podman is asked, and
      // the answer still picks this project's box.
      const other = engineCli(project, [
        'run',
        '-d',
        '--rm',
        '--label',
        'byre.test=transfer-memo',
        'debian:bookworm-slim',
        'sleep',
        '300',
      ]).trim();
      try {
        const asked = runByre(project, ['deliver', 'memo.txt'], { env: podman.env });
        expect(asked.status).toBe(0);
        expect(asked.stdout).toBe('/inbox/memo-3.txt\n');
        expect(podman.calls()).toHaveLength(1);
      } finally {
        engineCli(project, ['rm', '-f', '-t', '0', other]);
      }
      expect(inBox(project, id, 'cat /inbox/memo-3.txt')).toBe('memo\n');
    },
  );

  // The test user's flavours only repeat the next three: what decides them is
  // byre's own host-side code (a grab's writes, finding a box by id or env,
  // the delivery script's refusal), the same whoever runs the engine, and
  // root, who could write anywhere a planted link leads, is the harder case.
  // What the user's flavours add, ownership in the box and on the host and
  // the user's own monitors, the tests above prove.
  const asRoot = it.runIf(flavor.user === null);

  asRoot(
    'a box that swaps files for symlinks mid-grab cannot make byre write outside the destination',
    async () => {
      const { project, id } = await theBox();
      const outside = path.join(project.root, 'outside');
      // Writable by the flavor's user, so following a planted link would succeed.
      makeOwnedDir(project, outside);
      inBox(
        project,
        id,
        'mkdir -p /tmp/t/d && head -c 30000000 /dev/zero > /tmp/t/big && ' +
          `for i in $(seq 1 200); do echo $i > /tmp/t/d/f$i; done && ln -s ${outside} /tmp/t/evil`,
      );
      // A swapper inside the box races the grabs: d flips between a directory and a symlink.
      engineCli(project, [
        'exec',
        '-d',
        id,
        'sh',
        '-c',
        `end=$(($(date +%s) + 20)); while [ $(date +%s) -lt $end ]; do ` +
          `mv /tmp/t/d /tmp/t/d.real 2>/dev/null; ln -s ${outside} /tmp/t/d; ` +
          `rm -f /tmp/t/d; mv /tmp/t/d.real /tmp/t/d 2>/dev/null; done`,
      ]);
      const dest = path.join(project.root, 'dest-swap');
      makeOwnedDir(project, dest);
      for (let i = 0; i < 3; i++) {
        const r = runByre(project, ['grab', '/tmp/t', dest]);
        expect(r.status).toBe(1);
        expect(r.stderr).toMatch(/skipped .*evil.*a symlink/);
      }
      expect(readdirSync(outside)).toEqual([]);
      expect(symlinksUnder(dest)).toEqual([]);
      for (const e of readdirSync(dest))
        expect(lstatSync(path.join(dest, e)).isDirectory()).toBe(true);
    },
  );

  // Rootless podman would only repeat this: the host side is the same, and
  // the exec it stops leads its process group there too.
  it.skipIf(flavor.user !== null)(
    'grabs from a box whose tar and cat the agent replaced: partial says so, runaways land nothing and are stopped',
    async () => {
      const { project, id } = await theBox();
      const outside = makeOwnedDir(project, path.join(project.root, 'outside-hostile'));
      // What the agent's tar sends: good entries, entries byre must refuse, and
      // no end-of-archive marker, with exit 0.
      const archive = await tarOf([
        { name: './', type: 'directory' },
        { name: './good.txt', body: 'good\n' },
        { name: '../escape.txt', body: 'no\n' },
        { name: '/abs.txt', body: 'no\n' },
        { name: './evil', type: 'symlink', linkname: outside },
        { name: './sub/', type: 'directory' },
        { name: './sub/deep.txt', body: 'deep\n' },
      ]);
      const hostile = withoutMarker(archive).toString('base64');
      // A runaway: more than the cap, then a stall. Bounded (8 MiB, 120 s) so
      // that a byre which fails to stop it leaves nothing busy behind; each
      // notes its pid, to see that byre stopped it.
      const runaway = `'echo $$ >> /tmp/hostile-pids' '/usr/bin/head -c 8M /dev/zero' 'exec /bin/sleep 120'`;
      asRootInBox(
        project,
        id,
        `printf %s '${hostile}' | base64 -d > /tmp/hostile.tar && mkdir -p /tmp/hostile && ` +
          `printf '%s\\n' '#!/bin/sh' 'case "$1" in --version) echo "tar (agent) 1"; exit 0;; esac' ` +
          `'/bin/cat /tmp/hostile.tar' '[ -e /tmp/hostile-runaway ] || exit 0' ${runaway} ` +
          `> /usr/local/bin/tar && chmod 755 /usr/local/bin/tar`,
      );
      try {
        const dest = makeOwnedDir(project, path.join(project.root, 'dest-hostile'));
        const partial = runByre(project, ['grab', '/tmp/hostile', dest]);
        expect(partial.status, partial.stderr).toBe(1);
        expect(partial.stdout).toBe(`${path.join(dest, 'hostile')}\n`);
        for (const named of [
          'skipped "../escape.txt": outside the grabbed directory',
          'skipped "/abs.txt": an absolute path',
          'skipped "./evil": a symlink',
          'only part of /tmp/hostile landed: 3 entries were skipped (named above); ' +
            'the stream ended before its end-of-archive marker',
        ])
          expect(partial.stderr).toContain(named);
        expect(readFileSync(path.join(dest, 'hostile', 'good.txt'), 'utf8')).toBe('good\n');
        expect(readFileSync(path.join(dest, 'hostile', 'sub', 'deep.txt'), 'utf8')).toBe('deep\n');
        expect(readdirSync(path.join(dest, 'hostile')).sort()).toEqual(['good.txt', 'sub']);
        expect(readdirSync(outside)).toEqual([]);

        // The same tar, then a runaway: the cap stops it, and nothing of it stays.
        asRootInBox(project, id, 'touch /tmp/hostile-runaway');
        const tree = runByre(project, ['grab', '--max-size', '2M', '/tmp/hostile', dest]);
        expect(tree.status, tree.stderr).toBe(1);
        expect(tree.stdout).toBe('');
        expect(tree.stderr).toContain('the box sent more than 2.0 MiB; nothing landed');
        expect(tree.stderr).toContain('--max-size 4M');
        expect(readdirSync(dest)).toEqual(['hostile']);

        // A cat that runs away: to a file, and to stdout.
        asRootInBox(
          project,
          id,
          `printf '%s\\n' '#!/bin/sh' ${runaway} > /usr/local/bin/cat && ` +
            'chmod 755 /usr/local/bin/cat && echo solo > /tmp/solo-hostile.txt',
        );
        const file = runByre(project, ['grab', '--max-size', '1M', '/tmp/solo-hostile.txt', dest]);
        expect(file.status, file.stderr).toBe(1);
        expect(file.stderr).toContain('the box sent more than 1.0 MiB; nothing landed');
        expect(readdirSync(dest)).toEqual(['hostile']);
        const piped = runByre(project, ['grab', '--max-size', '1M', '/tmp/solo-hostile.txt', '-']);
        expect(piped.status, `${piped.ended ?? ''} ${piped.stderr}`).toBe(1);
        // Whole chunks up to the cap went out; the one that crossed it did not.
        expect(piped.stdout.length).toBeGreaterThan(0);
        expect(piped.stdout.length).toBeLessThanOrEqual(1024 * 1024);
        expect(piped.stderr).toContain('what came before the cap went to stdout');

        // Killing the engine client leaves an exec running: byre stopped all
        // three in the box (each is gone, or dead and not yet reaped).
        const runningOn = (): string =>
          asBoxUser(
            project,
            id,
            // Not `cat`: that is the agent's now.
            'n=0; while read -r p; do n=$((n + 1)); ' +
              `s=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -c1); ` +
              'case $s in ""|Z|X) ;; *) echo "$p running";; esac; done < /tmp/hostile-pids; echo "$n runaways"',
          );
        await waitFor(
          'the runaways to stop',
          () => (runningOn() === '3 runaways\n' ? 1 : null),
          20_000,
        )
          // Said below, with which ran on.
          .catch(() => null);
        // Which grab left its runaway: the pids run in the order tree, file, piped.
        expect(
          runningOn(),
          [tree.stderr, file.stderr, piped.stderr].map((e) => `--- ${e}`).join('\n'),
        ).toBe('3 runaways\n');
      } finally {
        // The runaways are the box user's: the box's root holds no capability to kill them (adr/0050).
        asBoxUser(
          project,
          id,
          'kill -s KILL $(/bin/cat /tmp/hostile-pids 2>/dev/null) 2>/dev/null; true',
        );
        asRootInBox(
          project,
          id,
          'rm -rf /usr/local/bin/tar /usr/local/bin/cat /tmp/hostile.tar /tmp/hostile-runaway ' +
            '/tmp/hostile /tmp/hostile-pids',
        );
      }
    },
  );

  asRoot(
    'finds a box by its full id, and a box without the id labels through its env',
    async () => {
      const { project, id } = await theBox();
      // byre labels each box with its in-box ids, the same as its env.
      const labels = engineCli(project, [
        'inspect',
        '-f',
        '{{index .Config.Labels "byre.uid"}}:{{index .Config.Labels "byre.gid"}}',
        id,
      ]).trim();
      expect(labels).toBe(inBox(project, id, 'echo "$BYRE_UID:$BYRE_GID"').trim());
      writeFileSync(path.join(project.dir, 'by-id.txt'), 'by id\n');
      const byId = runByre(project, ['deliver', '--box', id, 'by-id.txt']);
      expect(byId.status).toBe(0);
      expect(byId.stdout).toBe('/inbox/by-id.txt\n');

      // A box from before the labels: the same ids only in its env.
      const [uid, gid] = labels.split(':');
      const older = engineCli(project, [
        'run',
        '-d',
        '--pull=never',
        '--label',
        `byre.project=${project.id}`,
        '--label',
        `byre.workdir=${project.id}-older`,
        '--label',
        'byre.test=1',
        '-e',
        `BYRE_UID=${uid}`,
        '-e',
        `BYRE_GID=${gid}`,
        'debian:bookworm-slim',
        'sleep',
        '600',
      ]).trim();
      asRootInBox(project, older, `mkdir /inbox && chown ${uid}:${gid} /inbox`);
      const listed = runByre(project, ['deliver', '--boxes', '--proto', '1']);
      expect(listed.stdout.split('\n').filter((l) => l.startsWith(older))).toHaveLength(1);
      const prefix = runByre(project, ['deliver', '--box', `${project.id}-older`, 'by-id.txt']);
      expect(prefix.status).toBe(0);
      expect(prefix.stdout).toBe('/inbox/by-id.txt\n');
      expect(inBox(project, older, 'cat /inbox/by-id.txt')).toBe('by id\n');
    },
  );

  asRoot('refuses a symlinked /inbox and reports a missing one as needing a rebuild', async () => {
    const { project, id } = await theBox();
    writeFileSync(path.join(project.dir, 'x.txt'), 'x\n');
    // The box holds no capability (adr/0050), so root cannot move dev's /inbox
    // (renaming a directory writes its `..`): root opens `/` to dev, and dev moves it.
    asRootInBox(project, id, 'chmod 777 /');
    asBoxUser(project, id, 'mv /inbox /tmp/inbox-real');
    const missing = runByre(project, ['deliver', 'x.txt']);
    expect(missing.status).toBe(3);
    expect(missing.stderr).toContain('rebuild');
    asBoxUser(project, id, 'ln -s /tmp/inbox-real /inbox 2>/dev/null || true');
    asRootInBox(project, id, 'chmod 755 /');
  });
});
