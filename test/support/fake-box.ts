// The fake engine's box: an in-memory filesystem and a tiny interpreter of
// what byre runs in a box through exec or in a helper through run. It knows
// byre's box-side scripts by their text (deliver one file, deliver a staged
// tar, grab a path, grab a tree, stop a grab, byre shell's login shell and
// its `-- <cmd>`) and models each one's effect on the filesystem, its
// stdout, stderr and exit status as the engine contract checks them on real
// boxes; byre's helper scripts (volume seeds and copy, the sock probe, the
// worktree add and remove, and the bind proof in front of them) are
// fake-helpers.ts's. It runs the few plain commands tests send (`cat`,
// `cat <file>`, `echo`, `printf`, `exit`, `true`, `false`, `sleep`,
// `;`-separated, `>&2`). Anything else exits 127 like a shell that has no
// such command, so a test never passes on an answer nobody wrote. It must
// never spawn or touch disk.

import path from 'node:path/posix';
import tar from 'tar-stream';
import {
  BOX_EXIT,
  DELIVER_FILE_SCRIPT,
  DELIVER_TAR_SCRIPT,
  GRAB_SCRIPT,
  GRAB_STOP_SCRIPT,
  GRAB_TREE_SCRIPT,
  STAGE_COMPLETE,
} from '../../src/transfer/box-scripts.js';
import { SHELL_COMMAND_SCRIPT } from '../../src/gen/shell-exec.js';
import {
  isGroupStat,
  isHelperScript,
  proveBinds,
  runHelper,
  statGroup,
  unproven,
} from './fake-helpers.js';

/**
 * What the engine reports of an object beyond its contents: its group (what
 * `stat -c %g` prints: root's, 0, when nobody gave one) and, for a host
 * object, the device and inode the bind proof compares with byre's pins (an
 * object without them is not the one byre pinned). Owners are not otherwise
 * modelled: a copy is a new object with none of these, and chown changes nothing.
 */
interface NodeFacts {
  gid?: number;
  dev?: bigint;
  ino?: bigint;
}

export type FakeNode = NodeFacts &
  (
    | { kind: 'dir' }
    | { kind: 'file'; bytes: Buffer }
    | { kind: 'link'; target: string }
    | { kind: 'socket' }
  );

/** A mount of a helper box: writes under a read-only one fail, as on a read-only bind. */
interface BoxMount {
  target: string;
  readonly: boolean;
}

/** The directories a box's filesystem starts with. */
const BOX_DIRS = ['/', '/tmp', '/home', '/home/dev'];

/** What one command did in the box. */
export interface BoxRun {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

/**
 * A box's filesystem: absolute normalised paths to nodes; `/`, `/tmp` and
 * `/home/dev` exist unless `dirs` says otherwise (the fake engine's virtual
 * host starts with `/` alone).
 */
export class FakeBoxFs {
  readonly nodes: Map<string, FakeNode>;
  /** A helper box's mounts, set once they are in place; none in a session's box. */
  readonly mounts: BoxMount[] = [];

  constructor(dirs: readonly string[] = BOX_DIRS) {
    this.nodes = new Map(dirs.map((d): [string, FakeNode] => [d, { kind: 'dir' }]));
  }

  /** Whether `p` lies on a writable mount (the innermost mount it is under decides). */
  canWrite(p: string): boolean {
    const at = path.resolve('/', p);
    let inner: BoxMount | undefined;
    for (const m of this.mounts) {
      if (
        (at === m.target || at.startsWith(`${m.target}/`)) &&
        (inner?.target.length ?? -1) < m.target.length
      )
        inner = m;
    }
    return inner?.readonly !== true;
  }

  /** Whether `p` is a mount's target: its own directory cannot be removed. */
  isMountPoint(p: string): boolean {
    const at = path.resolve('/', p);
    return this.mounts.some((m) => m.target === at);
  }

  /** `rm -rf p`: false when something under it cannot go (a read-only mount, a mount point stays). */
  remove(p: string): boolean {
    const at = path.resolve('/', p);
    let removed = true;
    for (const k of this.tree(at).reverse()) {
      if (!this.canWrite(k) || this.isMountPoint(k)) removed = false;
      else if (this.children(k).length === 0) this.nodes.delete(k);
      else removed = false;
    }
    return removed;
  }

  /** The node at `p`, links not followed. */
  lstat(p: string): FakeNode | undefined {
    return this.nodes.get(path.resolve('/', p));
  }

  /** The node at `p`, following a final symlink (a few hops). */
  stat(p: string): FakeNode | undefined {
    let at = path.resolve('/', p);
    for (let hop = 0; hop < 8; hop++) {
      const node = this.nodes.get(at);
      if (node?.kind !== 'link') return node;
      at = path.resolve(path.dirname(at), node.target);
    }
    return undefined;
  }

  /** Writes a file (its parent must be a directory); false when it cannot. */
  writeFile(p: string, bytes: Buffer | string): boolean {
    const at = path.resolve('/', p);
    if (this.stat(path.dirname(at))?.kind !== 'dir' || this.lstat(at)?.kind === 'dir') return false;
    if (!this.canWrite(at)) return false;
    this.nodes.set(at, { kind: 'file', bytes: Buffer.from(bytes) });
    return true;
  }

  /** `mkdir -p`: false when something on the way is not a directory. */
  mkdirp(p: string): boolean {
    const at = path.resolve('/', p);
    if (at === '/') return true;
    if (!this.mkdirp(path.dirname(at))) return false;
    if (this.lstat(at) === undefined) {
      if (!this.canWrite(at)) return false;
      this.nodes.set(at, { kind: 'dir' });
    }
    return this.stat(at)?.kind === 'dir';
  }

  mkdir(p: string): boolean {
    const at = path.resolve('/', p);
    if (this.lstat(at) !== undefined || this.stat(path.dirname(at))?.kind !== 'dir') return false;
    if (!this.canWrite(at)) return false;
    this.nodes.set(at, { kind: 'dir' });
    return true;
  }

  /** The direct children of directory `p`, sorted. */
  children(p: string): string[] {
    const at = path.resolve('/', p);
    return [...this.nodes.keys()].filter((k) => k !== at && path.dirname(k) === at).sort();
  }

  /** `p` and everything under it, sorted (parents first). */
  tree(p: string): string[] {
    const at = path.resolve('/', p);
    return [...this.nodes.keys()].filter((k) => k === at || k.startsWith(`${at}/`)).sort();
  }
}

const ok = (stdout: Buffer | string = '', stderr = ''): BoxRun => ({
  exitCode: 0,
  stdout: Buffer.from(stdout),
  stderr,
});
const fail = (exitCode: number, stderr: string, stdout: Buffer | string = ''): BoxRun => ({
  exitCode,
  stdout: Buffer.from(stdout),
  stderr,
});

/** The deliver scripts' shared inbox check. */
function inboxRefusal(fs: FakeBoxFs, inbox: string): BoxRun | null {
  const node = fs.lstat(inbox);
  if (node !== undefined && node.kind !== 'dir')
    return fail(BOX_EXIT.noInbox, `byre-deliver: ${inbox} is not a plain directory - refusing\n`);
  if (node === undefined)
    return fail(
      BOX_EXIT.noInbox,
      `byre-deliver: this box has no ${inbox} (its image predates it); rebuild it\n`,
    );
  return null;
}

/** `stem-k.ext` for the k-th candidate, as the scripts' `split` makes it. */
function candidate(name: string, k: number): string {
  if (k === 1) return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}-${k}${name.slice(dot)}` : `${name}-${k}`;
}

/** The first free name in the inbox, claimed by `place`; null when none of 9999 is free. */
function claim(
  fs: FakeBoxFs,
  inbox: string,
  name: string,
  place: (at: string) => void,
): string | null {
  for (let k = 1; k <= 9999; k++) {
    const at = path.join(inbox, candidate(name, k));
    if (fs.lstat(at) === undefined) {
      place(at);
      return at;
    }
  }
  return null;
}

function deliverFile(fs: FakeBoxFs, args: readonly string[], stdin: Buffer): BoxRun {
  const [inbox = '', name = '', size = ''] = args;
  const refused = inboxRefusal(fs, inbox);
  if (refused !== null) return refused;
  if (stdin.length !== Number(size))
    return fail(
      1,
      `byre-deliver: the stream ended early (${stdin.length} of ${size} bytes); nothing landed\n`,
    );
  const landed = claim(fs, inbox, name, (at) => fs.writeFile(at, stdin));
  if (landed === null) return fail(1, `byre-deliver: no free name for ${name}\n`);
  return ok(`${landed}\n`);
}

/** Every entry of a tar, in order; a cut archive is null. */
async function untar(
  archive: Buffer,
): Promise<{ name: string; type: string; body: Buffer }[] | null> {
  const extract = tar.extract();
  const entries: { name: string; type: string; body: Buffer }[] = [];
  const done = new Promise<boolean>((resolve) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        entries.push({
          name: header.name,
          type: header.type ?? 'file',
          body: Buffer.concat(chunks),
        });
        next();
      });
      stream.resume();
    });
    extract.on('finish', () => resolve(true));
    extract.on('error', () => resolve(false));
  });
  extract.end(archive);
  return (await done) ? entries : null;
}

/** The staged tar: `NNNNNN/<name>` items after the completion marker check, claimed in order. */
async function deliverTar(fs: FakeBoxFs, args: readonly string[], stdin: Buffer): Promise<BoxRun> {
  const [inbox = ''] = args;
  const refused = inboxRefusal(fs, inbox);
  if (refused !== null) return refused;
  const entries = await untar(stdin);
  if (entries === null) return fail(1, 'byre-deliver: the stream failed; nothing landed\n');
  const clean = (n: string): string => n.replace(/^\.\//, '').replace(/\/$/, '');
  if (!entries.some((e) => clean(e.name) === STAGE_COMPLETE))
    return fail(1, 'byre-deliver: the stream ended early; nothing landed\n');
  const items = new Map<string, { name: string; type: string; body: Buffer }[]>();
  for (const e of entries) {
    const [item, ...rest] = clean(e.name).split('/');
    if (item === undefined || !/^[0-9]/.test(item) || rest.length === 0) continue;
    items.set(item, [...(items.get(item) ?? []), { ...e, name: rest.join('/') }]);
  }
  const landed: string[] = [];
  for (const item of [...items.keys()].sort()) {
    const members = items.get(item) ?? [];
    const top = members.find((m) => !m.name.includes('/'));
    if (top === undefined)
      return fail(1, 'byre-deliver: an empty item in the stream\n', landed.join(''));
    const at = claim(fs, inbox, top.name, (dest) => {
      for (const m of members) {
        const to = path.join(path.dirname(dest), candidateRoot(m.name, top.name, dest));
        if (m.type === 'directory') fs.nodes.set(to, { kind: 'dir' });
        else fs.nodes.set(to, { kind: 'file', bytes: m.body });
      }
    });
    if (at === null)
      return fail(1, `byre-deliver: no free name for ${top.name}\n`, landed.join(''));
    landed.push(`${at}\n`);
  }
  return ok(landed.join(''));
}

/** A member's path with the item's top name replaced by the name it landed under. */
function candidateRoot(member: string, top: string, dest: string): string {
  return path.basename(dest) + member.slice(top.length);
}

let nextPid = 100;

function sayPid(): string {
  nextPid += 1;
  return `byre-grab pid ${nextPid}\n`;
}

function grab(fs: FakeBoxFs, args: readonly string[]): BoxRun {
  const head = sayPid();
  const p = args[0] ?? '';
  const node = fs.stat(p);
  if (node?.kind === 'dir') return ok('', `${head}byre-grab 1 d\n`);
  if (node?.kind === 'file') return ok(node.bytes, `${head}byre-grab 1 f\n`);
  if (fs.lstat(p) !== undefined)
    return fail(BOX_EXIT.grabClassify, `${head}byre-grab: not a regular file or directory\n`);
  return fail(BOX_EXIT.grabClassify, `${head}byre-grab: no such path in the box\n`);
}

async function grabTree(fs: FakeBoxFs, args: readonly string[]): Promise<BoxRun> {
  const head = sayPid();
  const p = path.resolve('/', args[0] ?? '');
  if (fs.stat(p)?.kind !== 'dir')
    return fail(BOX_EXIT.grabClassify, `${head}byre-grab: no longer a directory\n`);
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const reading = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  pack.entry({ name: './', type: 'directory' });
  for (const at of fs.tree(p).slice(1)) {
    const node = fs.lstat(at);
    const name = `./${path.relative(p, at)}`;
    if (node?.kind === 'dir') pack.entry({ name: `${name}/`, type: 'directory' });
    else if (node?.kind === 'file')
      pack.entry({ name, type: 'file', size: node.bytes.length }, node.bytes);
    else if (node?.kind === 'link') pack.entry({ name, type: 'symlink', linkname: node.target });
  }
  pack.finalize();
  await reading;
  return ok(Buffer.concat(chunks), head);
}

/**
 * Whether a helper's command is one the box models: a plain script, or one
 * of byre's helper scripts (a bind proof in front or not).
 */
export function isModelled(command: readonly string[]): boolean {
  if (isGroupStat(command)) return true;
  if (command[0] !== 'sh' || command[1] !== '-c') return isPlain(command);
  const script = unproven(command[2] ?? '');
  return isHelperScript(script) || isPlain(['sh', '-c', script]);
}

const PLAIN_WORDS = new Set(['echo', 'cat', 'exit', 'true', 'false', 'sleep']);

/** Whether `command` is a plain script the interpreter runs: `sh -c` of known words, or one of them. */
export function isPlain(command: readonly string[]): boolean {
  if (command[0] !== 'sh' || command[1] !== '-c') return PLAIN_WORDS.has(command[0] ?? '');
  return (command[2] ?? '')
    .split(/[;\n]/)
    .map((part) => part.trim().split(/\s+/)[0] ?? '')
    .every((word) => word === '' || PLAIN_WORDS.has(word));
}

/** The `;`-separated commands of a plain script: echo, printf '%s…', cat, exit, true, false, sleep. */
function plain(fs: FakeBoxFs, script: string, stdin: Buffer): BoxRun {
  const commands = script.split(/[;\n]/).map((raw) =>
    raw
      .trim()
      .split(/\s+/)
      .filter((w) => w !== ''),
  );
  return plainWords(fs, commands, stdin);
}

/** Runs plain commands, each already split into words (an exec'd argv is one, never re-split). */
function plainWords(
  fs: FakeBoxFs,
  commands: readonly (readonly string[])[],
  stdin: Buffer,
): BoxRun {
  let out = Buffer.alloc(0);
  let err = '';
  let status = 0;
  for (const given of commands) {
    const words = [...given];
    if (words.length === 0) continue;
    const toErr = words.at(-1) === '>&2';
    if (toErr) words.pop();
    const [cmd, ...rest] = words;
    let said = '';
    if (cmd === 'exit') return { exitCode: Number(rest[0] ?? status), stdout: out, stderr: err };
    else if (cmd === 'echo') said = `${rest.join(' ')}\n`;
    else if (cmd === 'cat' && rest.length === 0) said = stdin.toString('latin1');
    else if (cmd === 'cat') {
      for (const f of rest) {
        const node = fs.stat(f);
        if (node?.kind !== 'file')
          return {
            exitCode: 1,
            stdout: out,
            stderr: `${err}cat: ${f}: No such file or directory\n`,
          };
        said += node.bytes.toString('latin1');
      }
    } else if (cmd === 'true' || cmd === 'sleep') status = 0;
    else if (cmd === 'false') status = 1;
    else return { exitCode: 127, stdout: out, stderr: `${err}sh: ${cmd ?? ''}: not found\n` };
    if (toErr) err += said;
    else out = Buffer.concat([out, Buffer.from(said, 'latin1')]);
  }
  return { exitCode: status, stdout: out, stderr: err };
}

/** Runs one exec'd argv in the box. */
export async function runInBox(
  fs: FakeBoxFs,
  command: readonly string[],
  stdin: Buffer,
  env: Readonly<Record<string, string>> = {},
): Promise<BoxRun> {
  const [cmd, flag, script = '', , ...args] = command;
  // byre shell: a login shell reads its commands from stdin; `-- <cmd>` execs its argv.
  if (cmd === 'bash' && flag === '-l' && command.length === 2)
    return plain(fs, stdin.toString('latin1'), Buffer.alloc(0));
  if (cmd === 'bash' && flag === '-lc' && script === SHELL_COMMAND_SCRIPT)
    return runInBox(fs, command.slice(4), stdin, env);
  if (cmd === 'sh' && flag === '-c') {
    if (unproven(script) !== script) {
      const refused = proveBinds(fs, env);
      if (refused !== null) return refused;
      return runInBox(fs, ['sh', '-c', unproven(script), ...command.slice(3)], stdin, env);
    }
    if (script === DELIVER_FILE_SCRIPT) return deliverFile(fs, args, stdin);
    if (script === DELIVER_TAR_SCRIPT) return deliverTar(fs, args, stdin);
    if (script === GRAB_SCRIPT) return grab(fs, args);
    if (script === GRAB_TREE_SCRIPT) return grabTree(fs, args);
    if (script === GRAB_STOP_SCRIPT) return ok();
    return runHelper(fs, script, env, stdin, args) ?? plain(fs, script, stdin);
  }
  if (isGroupStat(command)) return statGroup(fs, command[3] ?? '');
  return plainWords(fs, [command], stdin);
}
