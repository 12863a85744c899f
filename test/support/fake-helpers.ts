// byre's helper scripts as the fake box runs them, recognised by their text:
// the volume helpers' literal seed and volume copy; the host-bind helpers'
// host seed, seed_prefs copy and sock_groups probe; the worktree add and
// remove (their git is fake-git.ts); and the bind proof a helper's script
// carries in front (adr/0045), checked against the device and inode a node
// carries. Each one's effect on the box's files, its output and its status
// are what byre reads back. It must never spawn or touch disk.

import path from 'node:path/posix';

import { BIND_PROOF_EXIT, provenScript } from '../../src/gen/bind-proof.js';
import { BIND_PROOF_ENV } from '../../src/gen/box-layout.js';
import type { BoxRun, FakeBoxFs, FakeNode } from './fake-box.js';
import {
  WORKTREE_ADD_SCRIPT,
  WORKTREE_REMOVE_SCRIPT,
  worktreeAdd,
  worktreeRemove,
} from './fake-git.js';

const ok = (stdout = ''): BoxRun => ({ exitCode: 0, stdout: Buffer.from(stdout), stderr: '' });
const fail = (exitCode: number, stderr: string): BoxRun => ({
  exitCode,
  stdout: Buffer.alloc(0),
  stderr,
});

/** A literal volume seed (session/volume-ops.ts): stdin lands at /dest/$BYRE_DEST, parents made. */
const SEED_LITERAL =
  /^set -e; f="\/dest\/\$BYRE_DEST"; mkdir -p "\$\(dirname "\$f"\)"; cat > "\$f"; chown -R \d+:\d+ \/dest$/;
/** A volume copy (rehome's migration, lifecycle/rehome-project.ts): one mount's tree into another. */
const VOLUME_COPY = /^cp -a (\/[a-z]+)\/\. (\/[a-z]+)\/$/;

/** `text` as a pattern that matches it exactly, `<owner>` standing for any `uid:gid`. */
function withOwner(text: string): RegExp {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('<owner>', '\\d+:\\d+');
  return new RegExp(`^${escaped}$`);
}

/** A host seed (session/volume-ops.ts): the directory bound read-only at /src copied into the volume. */
const SEED_HOST = withOwner('cp -a /src/. /dest/ && chown -R <owner> /dest');
/** seed_prefs (session/seed-prefs.ts): each entry bound read-only at /src/<i>, copied to /dest/<rel>. */
const SEED_PREFS = withOwner(
  'set -e; i=0; for rel in "$@"; do mkdir -p "/dest/$(dirname "$rel")"; cp -a "/src/$i" "/dest/$rel"; i=$((i+1)); done; chown -R <owner> /dest',
);
/** The sock_groups probe with a proof (session/sock-groups.ts); without one its entrypoint is stat itself. */
const SOCK_PROBE = 'exec stat -c %g "$1"';

/** What a proven script puts in front of a helper's own (adr/0045). */
const PROOF_PREFIX = provenScript('', []);

/** A helper's own script, the bind proof in front of it taken off. */
export function unproven(script: string): string {
  return script.startsWith(PROOF_PREFIX) ? script.slice(PROOF_PREFIX.length) : script;
}

/**
 * The bind proof as the script runs it: with BYRE_BIND_PROOF set, every
 * listed target must be the object byre pinned (the device and inode of the
 * node there, a final link followed); another object, or a list that does not
 * parse, exits BIND_PROOF_EXIT before the helper's own script. Null: proven,
 * or nothing to prove.
 */
export function proveBinds(fs: FakeBoxFs, env: Readonly<Record<string, string>>): BoxRun | null {
  const list = env[BIND_PROOF_ENV] ?? '';
  if (list === '') return null;
  const refuse = (why: string, said = ''): BoxRun =>
    fail(
      BIND_PROOF_EXIT,
      `${said}byre: bind proof: ${why}; refusing to run anything in this box (failing closed).\n`,
    );
  const differ: string[] = [];
  for (const entry of list.split(',')) {
    const m = /^([0-9]+):([0-9]+):(\/.*)$/.exec(entry);
    if (m === null) return refuse('the list of binds to prove is malformed');
    const [, dev = '', ino = '', target = ''] = m;
    const node = fs.stat(target);
    if (node?.dev === BigInt(dev) && node.ino === BigInt(ino)) continue;
    const found =
      node === undefined
        ? `stat: cannot statx '${target}': No such file or directory`
        : `${node.dev ?? '?'} ${node.ino ?? '?'}`;
    differ.push(
      `byre:   ${target}: byre checked device and inode ${dev} ${ino}, the box has ${found}\n`,
    );
  }
  if (differ.length === 0) return null;
  return refuse(
    'something replaced a bind source, or a directory above it, after byre checked it',
    `byre: bind proof: a bind is not the object byre checked before it started this box:\n${differ.join('')}`,
  );
}

/** A copy of `node` as `cp -a` makes one: a new object, so none of the original's facts. */
function copied(node: FakeNode): FakeNode {
  switch (node.kind) {
    case 'dir':
      return { kind: 'dir' };
    case 'file':
      return { kind: 'file', bytes: node.bytes };
    case 'link':
      return { kind: 'link', target: node.target };
    case 'socket':
      return { kind: 'socket' };
  }
}

/** Copies the tree under `from` to under `to` (cp -a /from/. /to/); owners and modes are not modelled. */
function copyTree(fs: FakeBoxFs, from: string, to: string): BoxRun {
  const source = fs.stat(from);
  if (source === undefined)
    return fail(1, `cp: cannot stat '${from}/.': No such file or directory\n`);
  if (source.kind !== 'dir') return fail(1, `cp: cannot stat '${from}/.': Not a directory\n`);
  if (!fs.canWrite(to))
    return fail(1, `cp: cannot create directory '${to}': Read-only file system\n`);
  if (!fs.mkdirp(to)) return fail(1, `cp: cannot create directory '${to}': File exists\n`);
  for (const at of fs.tree(from).slice(1)) {
    const node = fs.lstat(at);
    if (node !== undefined) fs.nodes.set(path.join(to, path.relative(from, at)), copied(node));
  }
  return ok();
}

/** `cp -a from to`: a directory's tree or one object (a link stays a link); into `to` when it is a directory. */
function copyPath(fs: FakeBoxFs, from: string, to: string): BoxRun {
  const node = fs.lstat(from);
  if (node === undefined) return fail(1, `cp: cannot stat '${from}': No such file or directory\n`);
  const dest = fs.stat(to)?.kind === 'dir' ? path.join(to, path.basename(from)) : to;
  if (node.kind === 'dir') return copyTree(fs, from, dest);
  if (fs.stat(path.dirname(dest))?.kind !== 'dir' || !fs.canWrite(dest))
    return fail(1, `cp: cannot create regular file '${dest}': Read-only file system\n`);
  fs.nodes.set(path.resolve('/', dest), copied(node));
  return ok();
}

/** seed_prefs' loop: each `/src/<i>` to `/dest/<rel>`, parents made, stopping at the first failure (set -e). */
function seedPrefs(fs: FakeBoxFs, rels: readonly string[]): BoxRun {
  for (const [i, rel] of rels.entries()) {
    const parent = path.join('/dest', path.dirname(rel));
    if (!fs.mkdirp(parent))
      return fail(1, `mkdir: cannot create directory '${parent}': File exists\n`);
    const copy = copyPath(fs, `/src/${i}`, path.join('/dest', rel));
    if (copy.exitCode !== 0) return copy;
  }
  return ok();
}

/** `stat -c %g p`: the group of the object at `p` (a bind's target is its source's object), as the engine shows it. */
export function statGroup(fs: FakeBoxFs, p: string): BoxRun {
  const node = fs.lstat(p);
  if (node === undefined) return fail(1, `stat: cannot statx '${p}': No such file or directory\n`);
  return ok(`${node.gid ?? 0}\n`);
}

/** The sock probe without a proof: `stat` is the entrypoint, `-c %g <target>` its arguments. */
export function isGroupStat(command: readonly string[]): boolean {
  return (
    command.length === 4 && command[0] === 'stat' && command[1] === '-c' && command[2] === '%g'
  );
}

/** Runs one of byre's helper scripts (its proof already taken off); null for any other script. */
export function runHelper(
  fs: FakeBoxFs,
  script: string,
  env: Readonly<Record<string, string>>,
  stdin: Buffer,
  args: readonly string[],
): BoxRun | null {
  if (SEED_LITERAL.test(script)) {
    const f = path.join('/dest', env['BYRE_DEST'] ?? '');
    if (!fs.mkdirp(path.dirname(f)))
      return fail(1, `mkdir: cannot create directory '${path.dirname(f)}': File exists\n`);
    if (!fs.writeFile(f, stdin)) return fail(1, `sh: 1: cannot create ${f}: Is a directory\n`);
    return ok();
  }
  const copy = VOLUME_COPY.exec(script);
  if (copy !== null) return copyTree(fs, copy[1] ?? '', copy[2] ?? '');
  if (SEED_HOST.test(script)) return copyTree(fs, '/src', '/dest');
  if (SEED_PREFS.test(script)) return seedPrefs(fs, args);
  if (script === SOCK_PROBE) return statGroup(fs, args[0] ?? '');
  if (script === WORKTREE_ADD_SCRIPT) return worktreeAdd(fs, env);
  if (script === WORKTREE_REMOVE_SCRIPT) return worktreeRemove(fs, env);
  return null;
}

/** Whether `script` (its proof taken off) is one of byre's helper scripts. */
export function isHelperScript(script: string): boolean {
  return (
    [SEED_LITERAL, VOLUME_COPY, SEED_HOST, SEED_PREFS].some((re) => re.test(script)) ||
    [SOCK_PROBE, WORKTREE_ADD_SCRIPT, WORKTREE_REMOVE_SCRIPT].includes(script)
  );
}
