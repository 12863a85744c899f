// git's `worktree add --no-checkout` and `worktree remove`, as byre's worktree
// helpers (src/gen/worktree-helper.ts) run them, over a fake box's files: the
// files git writes that byre reads back afterwards (the `.git` pointer, the
// admin dir's gitdir, commondir and HEAD, the branch ref, byre's checkout
// marker) and the refusals byre shows (a branch checked out elsewhere, a
// target in use, a locked worktree). Not modelled: hooks, the index, objects,
// reflogs, reftable, packed refs being written, an image without git (the
// chassis installs it: adr/0057) and git's clean check before an unforced
// removal (it is `git status`): that exits 127 saying so. It must never spawn
// or touch disk.

import path from 'node:path/posix';

import {
  worktreeAddArgv,
  worktreeRemoveArgv,
  type WorktreeHelperInput,
} from '../../src/gen/worktree-helper.js';
import { NEEDS_CHECKOUT_MARKER } from '../../src/project/worktree-list.js';
import type { BoxRun, FakeBoxFs } from './fake-box.js';

/** Any helper input: the scripts do not depend on it (the paths reach them as environment). */
const SAMPLE: WorktreeHelperInput = {
  image: 'img',
  uid: 1000,
  gid: 1000,
  keepId: false,
  main: '/m',
  commonGitDir: '/m/.git',
  target: '/t',
  targetExists: true,
  targetId: 't',
  proof: null,
};

/** The scripts byre sends, read off its own argv builders. */
export const WORKTREE_ADD_SCRIPT = worktreeAddArgv(SAMPLE, 'b').at(-1) ?? '';
export const WORKTREE_REMOVE_SCRIPT = worktreeRemoveArgv(SAMPLE, false).at(-1) ?? '';

const ok = (stderr = ''): BoxRun => ({ exitCode: 0, stdout: Buffer.alloc(0), stderr });
const fail = (exitCode: number, stderr: string): BoxRun => ({
  exitCode,
  stdout: Buffer.alloc(0),
  stderr,
});
const notModelled = (what: string): BoxRun => fail(127, `fake box: ${what} is not modelled\n`);

function text(fs: FakeBoxFs, p: string): string | null {
  const node = fs.lstat(p);
  return node?.kind === 'file' ? node.bytes.toString('utf8') : null;
}

const firstLine = (t: string): string => (t.split('\n', 1)[0] ?? '').trim();
const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The common git dir git finds from the main worktree: its `.git` directory, or where a `.git` file points. */
function commonDir(fs: FakeBoxFs, main: string): string | null {
  const dotGit = path.join(main, '.git');
  const node = fs.stat(dotGit);
  if (node?.kind === 'dir') return dotGit;
  const pointer = /^gitdir:\s*(.+)$/.exec(firstLine(text(fs, dotGit) ?? ''))?.[1];
  if (pointer === undefined) return null;
  const gitDir = path.resolve(main, pointer);
  const common = text(fs, path.join(gitDir, 'commondir'));
  return common === null ? gitDir : path.resolve(gitDir, firstLine(common));
}

/** A ref's object id, loose or packed; null when the ref does not exist. */
function refValue(fs: FakeBoxFs, common: string, ref: string): string | null {
  const loose = text(fs, path.join(common, ref));
  if (loose !== null) return firstLine(loose);
  for (const line of (text(fs, path.join(common, 'packed-refs')) ?? '').split('\n')) {
    const [oid = '', name] = line.trim().split(' ');
    if (name === ref && OID.test(oid)) return oid;
  }
  return null;
}

/** The commit the main worktree's HEAD names; null on an unborn branch. */
function headCommit(fs: FakeBoxFs, common: string): string | null {
  const head = firstLine(text(fs, path.join(common, 'HEAD')) ?? '');
  const symbolic = /^ref:\s*(refs\/.+)$/.exec(head)?.[1];
  if (symbolic !== undefined) return refValue(fs, common, symbolic);
  return OID.test(head) ? head : null;
}

interface Linked {
  admin: string;
  dir: string;
  head: string;
  /** The lock reason ('' when none was given); null when not locked. */
  locked: string | null;
}

/** The linked worktrees git records under `<common>/worktrees`. */
function linkedWorktrees(fs: FakeBoxFs, common: string): Linked[] {
  return fs.children(path.join(common, 'worktrees')).flatMap((admin) => {
    const pointer = firstLine(text(fs, path.join(admin, 'gitdir')) ?? '');
    if (fs.lstat(admin)?.kind !== 'dir' || pointer === '') return [];
    const locked = text(fs, path.join(admin, 'locked'));
    return [
      {
        admin,
        dir: path.dirname(path.resolve(admin, pointer)),
        head: firstLine(text(fs, path.join(admin, 'HEAD')) ?? ''),
        locked: locked === null ? null : locked.trimEnd(),
      },
    ];
  });
}

/**
 * The helper's `git worktree add --no-checkout` (creating the branch at HEAD
 * when it does not exist), then byre's marker in the new git dir.
 */
export function worktreeAdd(fs: FakeBoxFs, env: Readonly<Record<string, string>>): BoxRun {
  const main = env['BYRE_WT_MAIN'] ?? '';
  const target = path.resolve('/', env['BYRE_WT_TARGET'] ?? '');
  const branch = env['BYRE_WT_BRANCH'] ?? '';
  if (fs.stat(main)?.kind !== 'dir') return fail(2, `sh: 3: cd: can't cd to ${main}\n`);
  const common = commonDir(fs, main);
  if (common === null)
    return fail(128, 'fatal: not a git repository (or any of the parent directories): .git\n');
  const ref = `refs/heads/${branch}`;
  const existing = refValue(fs, common, ref);
  const said =
    existing === null
      ? `Preparing worktree (new branch '${branch}')\n`
      : `Preparing worktree (checking out '${branch}')\n`;
  if (existing !== null) {
    const holder =
      firstLine(text(fs, path.join(common, 'HEAD')) ?? '') === `ref: ${ref}`
        ? main
        : linkedWorktrees(fs, common).find((w) => w.head === `ref: ${ref}`)?.dir;
    if (holder !== undefined)
      return fail(128, `${said}fatal: '${branch}' is already checked out at '${holder}'\n`);
  }
  const commit = existing ?? headCommit(fs, common);
  // git 2.39's words and status for a repository with no commit yet.
  if (commit === null) return fail(255, `${said}fatal: not a valid object name: 'HEAD'\n`);
  // git makes a new branch before it looks at the target: a refused target leaves the branch.
  const refFile = path.join(common, ref);
  if (
    existing === null &&
    !(fs.mkdirp(path.dirname(refFile)) && fs.writeFile(refFile, `${commit}\n`))
  )
    return fail(128, `${said}fatal: cannot lock ref '${ref}': Read-only file system\n`);
  const there = fs.lstat(target);
  if (there !== undefined && (there.kind !== 'dir' || fs.children(target).length > 0))
    return fail(128, `${said}fatal: '${target}' already exists\n`);
  const base = path.basename(target);
  // git sanitises the name as a ref component; only names it keeps as they are are modelled.
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(base) || base.endsWith('.lock'))
    return notModelled(`git's admin dir name for ${base}`);
  let name = base;
  for (let n = 1; fs.lstat(path.join(common, 'worktrees', name)) !== undefined; n++)
    name = `${base}${n}`;
  const admin = path.join(common, 'worktrees', name);
  const wrote =
    fs.mkdirp(admin) &&
    fs.writeFile(path.join(admin, 'gitdir'), `${target}/.git\n`) &&
    fs.writeFile(path.join(admin, 'commondir'), '../..\n') &&
    fs.writeFile(path.join(admin, 'HEAD'), `ref: ${ref}\n`) &&
    fs.mkdirp(target) &&
    fs.writeFile(path.join(target, '.git'), `gitdir: ${admin}\n`);
  if (!wrote)
    return fail(
      128,
      `${said}fatal: could not create directory of '${admin}': Read-only file system\n`,
    );
  // `git -C "$BYRE_WT_TARGET" rev-parse --absolute-git-dir`, then `: > "$gitdir/<marker>"`.
  const gitDir = /^gitdir:\s*(.+)$/.exec(firstLine(text(fs, path.join(target, '.git')) ?? ''))?.[1];
  const marker = path.join(path.resolve(target, gitDir ?? ''), NEEDS_CHECKOUT_MARKER);
  if (!fs.writeFile(marker, ''))
    return fail(2, `${said}sh: 10: cannot create ${marker}: Read-only file system\n`);
  return ok(said);
}

/**
 * The helper's `git worktree remove [--force]`: refused when the path is no
 * linked worktree, locked, or its `.git` does not point back; else its files
 * go, then its admin dir. The worktree's own directory is the helper's mount
 * point and stays, so git says it failed, as it does on the engines.
 */
export function worktreeRemove(fs: FakeBoxFs, env: Readonly<Record<string, string>>): BoxRun {
  const main = env['BYRE_WT_MAIN'] ?? '';
  const given = env['BYRE_WT_TARGET'] ?? '';
  const target = path.resolve('/', given);
  const force = env['BYRE_WT_FORCE'] === '1';
  if (fs.stat(main)?.kind !== 'dir') return fail(2, `sh: 3: cd: can't cd to ${main}\n`);
  const common = commonDir(fs, main);
  if (common === null)
    return fail(128, 'fatal: not a git repository (or any of the parent directories): .git\n');
  const wt = linkedWorktrees(fs, common).find((w) => w.dir === target);
  if (wt === undefined) return fail(128, `fatal: '${given}' is not a working tree\n`);
  if (wt.locked !== null)
    return fail(
      128,
      `fatal: cannot remove a locked working tree${wt.locked === '' ? ';' : `, lock reason: ${wt.locked}`}\nuse 'remove -f -f' to override or unlock first\n`,
    );
  const errors: string[] = [];
  if (fs.lstat(target) !== undefined) {
    const pointer = /^gitdir:\s*(.+)$/.exec(
      firstLine(text(fs, path.join(target, '.git')) ?? ''),
    )?.[1];
    if (pointer === undefined)
      return fail(
        128,
        `fatal: validation failed, cannot remove working tree: '${target}/.git' does not exist\n`,
      );
    if (path.resolve(target, pointer) !== wt.admin)
      return fail(
        128,
        `fatal: validation failed, cannot remove working tree: '${target}' does not point back to '${wt.admin}'\n`,
      );
    if (!force) return notModelled("git's clean check before an unforced removal");
    for (const child of fs.children(target)) fs.remove(child);
    if (fs.children(target).length > 0 || !fs.remove(target))
      errors.push(
        `error: failed to delete '${target}': ${fs.isMountPoint(target) ? 'Device or resource busy' : 'Read-only file system'}\n`,
      );
  }
  // git goes on to the admin dir even when the worktree's files did not all go.
  if (!fs.remove(wt.admin))
    errors.push(`error: failed to delete '${wt.admin}': Read-only file system\n`);
  const worktrees = path.join(common, 'worktrees');
  if (fs.children(worktrees).length === 0) fs.remove(worktrees);
  // A failed delete returns -1 from git's remove, which exits 255.
  return errors.length === 0 ? ok() : fail(255, errors.join(''));
}
