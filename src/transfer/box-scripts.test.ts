// The box-side scripts under a real POSIX sh (dash when installed), against
// temp directories standing in for /inbox: claims, collisions, died streams,
// hostile names, and a symlinked inbox.

import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  linkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import {
  DELIVER_FILE_SCRIPT,
  DELIVER_TAR_SCRIPT,
  GRAB_SCRIPT,
  GRAB_STOP_SCRIPT,
  GRAB_TREE_SCRIPT,
} from './box-scripts.js';
import { buildStage, stageLocalSources, stageTarInput } from './stage-writer.js';
import { Readable } from 'node:stream';

const SH = existsSync('/bin/dash') ? '/bin/dash' : '/bin/sh';

let root: string;
let inbox: string;
useTempDir('scripts', (tmp) => {
  root = tmp;
  inbox = path.join(root, 'inbox');
  mkdirSync(inbox);
});

function run(script: string, args: string[], input: Buffer | string) {
  const r = spawnSync(SH, ['-c', script, 'byre-deliver', ...args], { input });
  return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

function deliverFile(name: string, body: string) {
  return run(DELIVER_FILE_SCRIPT, [inbox, name, String(Buffer.byteLength(body))], body);
}

async function stagedFrom(sources: string[]): Promise<Buffer> {
  const { writer, done } = buildStage((w) => stageLocalSources(w, sources, []));
  const chunks: Buffer[] = [];
  for await (const c of writer.stream) chunks.push(c as Buffer);
  await done;
  return Buffer.concat(chunks);
}

describe('file script', () => {
  it('claims the name, then uniquifies collisions without overwriting', () => {
    expect(deliverFile('report.pdf', 'one').stdout).toBe(`${inbox}/report.pdf\n`);
    expect(deliverFile('report.pdf', 'two').stdout).toBe(`${inbox}/report-2.pdf\n`);
    expect(deliverFile('report.pdf', 'three').stdout).toBe(`${inbox}/report-3.pdf\n`);
    expect(deliverFile('.env', 'e').stdout).toBe(`${inbox}/.env\n`);
    expect(deliverFile('.env', 'e').stdout).toBe(`${inbox}/.env-2\n`);
    expect(readFileSync(path.join(inbox, 'report.pdf'), 'utf8')).toBe('one');
    expect(readFileSync(path.join(inbox, 'report-2.pdf'), 'utf8')).toBe('two');
    expect(readdirSync(inbox).filter((n) => n.startsWith('.byre'))).toEqual([]);
  });

  it('treats an existing symlink or directory under the name as taken', () => {
    symlinkSync('/etc/passwd', path.join(inbox, 'x.txt'));
    mkdirSync(path.join(inbox, 'x-2.txt'));
    expect(deliverFile('x.txt', 'data').stdout).toBe(`${inbox}/x-3.txt\n`);
    expect(readFileSync('/etc/passwd', 'utf8')).not.toBe('data');
  });

  it('lands nothing under a real name when the stream is short', () => {
    const r = run(DELIVER_FILE_SCRIPT, [inbox, 'big.bin', '100'], 'only a few bytes');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('ended early');
    expect(readdirSync(inbox)).toEqual([]);
  });

  it('lands nothing when the sender is killed mid-stream', async () => {
    const child = spawn(SH, ['-c', DELIVER_FILE_SCRIPT, 'byre-deliver', inbox, 'x.bin', '1000000']);
    child.stdin.write(Buffer.alloc(1000));
    // Mid-stream for real: the script has made its temp and holds the first bytes.
    const temp = (): string | undefined =>
      readdirSync(inbox).find((n) => n.startsWith('.byre-tmp-'));
    for (let i = 0; i < 2000; i++) {
      const t = temp();
      if (t !== undefined && statSync(path.join(inbox, t)).size === 1000) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(temp()).toBeDefined();
    // The engine client dying closes the box's stdin: EOF, short.
    child.stdin.destroy();
    const status = await new Promise<number | null>((r) => child.on('close', r));
    expect(status).toBe(1);
    expect(readdirSync(inbox)).toEqual([]);
  });

  it('takes hostile names as data: newlines, quotes, $(…) and dashes never run', () => {
    for (const name of ['$(touch pwned)', 'a\'b"c', '-rf', '`id`.txt']) {
      const r = deliverFile(name, 'x');
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${inbox}/${name}\n`);
    }
    expect(existsSync(path.join(process.cwd(), 'pwned'))).toBe(false);
  });

  it('refuses a symlinked inbox and reports a missing one as needing a rebuild', () => {
    const link = path.join(root, 'linked');
    symlinkSync(inbox, link);
    const refused = run(DELIVER_FILE_SCRIPT, [link, 'a', '1'], 'a');
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain('not a plain directory');
    const missing = run(DELIVER_FILE_SCRIPT, [path.join(root, 'nope'), 'a', '1'], 'a');
    expect(missing.status).toBe(3);
    expect(missing.stderr).toContain('rebuild');
    writeFileSync(path.join(root, 'file'), '');
    expect(run(DELIVER_FILE_SCRIPT, [path.join(root, 'file'), 'a', '1'], 'a').status).toBe(3);
    expect(readdirSync(inbox)).toEqual([]);
  });
});

describe('tar script', () => {
  it('claims each item in archive order; directories with mkdir, collisions uniquified', async () => {
    const src = path.join(root, 'src');
    mkdirSync(path.join(src, 'tree', 'sub'), { recursive: true });
    writeFileSync(path.join(src, 'tree', 'sub', 'b.txt'), 'b');
    writeFileSync(path.join(src, 'a.txt'), 'a');
    mkdirSync(path.join(inbox, 'tree'));
    const archive = await stagedFrom([path.join(src, 'tree'), path.join(src, 'a.txt')]);
    const r = run(DELIVER_TAR_SCRIPT, [inbox], archive);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${inbox}/tree-2\n${inbox}/a.txt\n`);
    expect(readFileSync(path.join(inbox, 'tree-2', 'sub', 'b.txt'), 'utf8')).toBe('b');
    expect(readdirSync(path.join(inbox, 'tree'))).toEqual([]);
    expect(readdirSync(inbox).filter((n) => n.startsWith('.byre'))).toEqual([]);
  });

  it('claims nothing from a truncated archive, even one cut at an entry boundary', async () => {
    const src = path.join(root, 'src');
    mkdirSync(src);
    writeFileSync(path.join(src, 'a.txt'), 'a'.repeat(5000));
    const archive = await stagedFrom([path.join(src, 'a.txt')]);
    for (const cut of [700, 512 + 4096, archive.length - 1024 - 512]) {
      const r = run(DELIVER_TAR_SCRIPT, [inbox], archive.subarray(0, cut));
      expect([cut, r.status]).toEqual([cut, 1]);
      expect(readdirSync(inbox)).toEqual([]);
    }
  });

  it('lands sanitised names from a hostile archive; nothing escapes the inbox', async () => {
    const pack = tar.pack();
    pack.entry({ name: 'evil\nname\u001b[31m/x', size: 1 }, 'x');
    pack.entry({ name: 'ok.txt', size: 2 }, 'ok');
    pack.finalize();
    const { writer, done } = buildStage((w) => stageTarInput(w, Readable.from(pack)));
    const chunks: Buffer[] = [];
    for await (const c of writer.stream) chunks.push(c as Buffer);
    await done;
    const r = run(DELIVER_TAR_SCRIPT, [inbox], Buffer.concat(chunks));
    expect(r.stdout).toBe(`${inbox}/evil_name_[31m\n${inbox}/ok.txt\n`);
    expect(writer.plan.renames).toEqual([{ from: 'evil\nname\u001b[31m', to: 'evil_name_[31m' }]);
  });
});

describe('grab scripts', () => {
  function grab(script: string, p: string) {
    const r = spawnSync(SH, ['-c', script, 'byre-grab', p]);
    return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
  }

  /** The stderr a grab script says, its pid line made generic. */
  const said = (stderr: string): string => stderr.replace(/^byre-grab pid \d+\n/, 'PID\n');

  it('classify on stderr after the pid: a file streams its bytes alone on stdout, a directory sends nothing', () => {
    writeFileSync(path.join(root, 'f'), 'body');
    const file = grab(GRAB_SCRIPT, path.join(root, 'f'));
    expect([file.status, said(file.stderr), file.stdout.toString()]).toEqual([
      0,
      'PID\nbyre-grab 1 f\n',
      'body',
    ]);
    const dir = grab(GRAB_SCRIPT, inbox);
    expect([dir.status, said(dir.stderr), dir.stdout.length]).toEqual([
      0,
      'PID\nbyre-grab 1 d\n',
      0,
    ]);
    const missing = grab(GRAB_SCRIPT, path.join(root, 'nope'));
    expect(missing.status).toBe(4);
    expect(missing.stderr).toContain('no such path');
    expect(grab(GRAB_SCRIPT, '/dev/null').status).toBe(4);
  });

  it('the tree script sends a tar of the contents, and refuses what is no longer a directory', async () => {
    mkdirSync(path.join(inbox, 'sub'));
    writeFileSync(path.join(inbox, 'sub', 'a.txt'), 'a');
    // A second name for a.txt: GNU tar is asked to send its bytes, not a hard-link entry.
    linkSync(path.join(inbox, 'sub', 'a.txt'), path.join(inbox, 'b.txt'));
    const r = grab(GRAB_TREE_SCRIPT, inbox);
    expect(r.status).toBe(0);
    const entries: string[] = [];
    const extract = tar.extract();
    const reading = (async () => {
      for await (const entry of extract) {
        entries.push(`${entry.header.name} ${entry.header.type} ${entry.header.size}`);
        entry.resume();
      }
    })();
    extract.end(r.stdout);
    await reading;
    expect(entries).toContain('./sub/a.txt file 1');
    expect(entries).toContain('./b.txt file 1');
    writeFileSync(path.join(root, 'plain'), 'x');
    const gone = grab(GRAB_TREE_SCRIPT, path.join(root, 'plain'));
    expect(gone.status).toBe(4);
    expect(gone.stderr).toContain('no longer a directory');
  });

  it.each([
    ['by the pid it said: the process group it leads', 'pid'],
    // The pid line can come late or never: the mark its environment carries finds it.
    ['by its mark alone, when no pid came', 'mark'],
  ] as const)('the stop script kills the grab and its children %s', async (_how, by) => {
    // The agent's tar: a child that would run on, then a stream that never ends.
    const bin = path.join(root, 'bin');
    mkdirSync(bin);
    const childPid = path.join(root, 'child.pid');
    writeFileSync(
      path.join(bin, 'tar'),
      `#!/bin/sh\ncase "$1" in --version) echo 'tar (agent) 1'; exit 0;; esac\n` +
        `sleep 300 & echo $! > ${childPid}\nexec cat /dev/zero\n`,
      { mode: 0o755 },
    );
    const mark = `test${process.pid}x${Date.now()}`;
    // Its own session and group, as an engine starts an exec.
    const grabbing = spawn(SH, ['-c', GRAB_TREE_SCRIPT, 'byre-grab', inbox], {
      detached: true,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env['PATH'] ?? ''}`,
        // What grabSpec names the mark.
        BYRE_GRAB: mark,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    grabbing.stdout.resume();
    try {
      await stopsTheGroup(grabbing, childPid, (pid) => [by === 'pid' ? pid : '', mark]);
    } finally {
      // Whatever this test failed at, nothing of it runs on.
      if (grabbing.exitCode === null && grabbing.signalCode === null)
        process.kill(-(grabbing.pid ?? 0), 'SIGKILL');
    }
  });
});

/** Reads the pid `grabbing` says, runs the stop script on it, and sees the group die. */
async function stopsTheGroup(
  grabbing: ChildProcessByStdio<null, Readable, Readable>,
  childPid: string,
  stopArgs: (pid: string) => string[],
): Promise<void> {
  const ended = new Promise<NodeJS.Signals | null>((r) => grabbing.on('exit', (_c, sig) => r(sig)));
  let stderr = '';
  for await (const chunk of grabbing.stderr) {
    stderr += String(chunk);
    if (stderr.includes('\n')) break;
  }
  const pid = /^byre-grab pid (\d+)\n/.exec(stderr)?.[1];
  expect(pid).toBe(String(grabbing.pid));
  while (!existsSync(childPid) || readFileSync(childPid, 'utf8') === '') {
    await new Promise((r) => setTimeout(r, 10));
  }
  const child = Number(readFileSync(childPid, 'utf8'));
  const stopped = spawnSync(SH, ['-c', GRAB_STOP_SCRIPT, 'byre-grab', ...stopArgs(pid ?? '')]);
  expect(stopped.status).toBe(0);
  expect(await ended).toBe('SIGKILL');
  // The child is gone, or dead and waiting to be reaped.
  const state = (): string => {
    try {
      return readFileSync(`/proc/${child}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .slice(0, 1);
    } catch {
      return 'gone';
    }
  };
  while (!['gone', 'Z', 'X'].includes(state())) await new Promise((r) => setTimeout(r, 10));
}
