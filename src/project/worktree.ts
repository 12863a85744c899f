// Linked-worktree identity: finds a worktree's main worktree by reading git's
// own pointer files (`.git` -> gitdir -> commondir). It must never run git: a
// project's hooks and config are the boxed agent's to write, so running git
// here would run the agent's code on the host. The pointers are the box's to
// write too, so a linked worktree is accepted only in the shape `git worktree
// add` makes (adr/0019), and never when its repository lies in a tree a box
// could have built the whole structure in (adr/0047).

// Sync reads: see canonical.ts (the first async fs call is costly in the binary).
import path from 'node:path';

import { ByreError, RefusedError } from '../errors.js';
import { canonicalPath } from '../host/canonical.js';
import { lstatOrNull } from '../host/path-view.js';
import { isAncestorOrSelf } from './containment.js';
import { projectIdFor } from './identity.js';
import { describeNotRegular, readRegularFile, type RegularRead } from '../host/read-regular.js';

/** git's pointer files hold one path; anything larger is not one of them. */
export const POINTER_MAX_BYTES = 8192;

export interface WorktreeIdentity {
  /** The main worktree (canonical); identity anchors here. Equals worktreeDir for a plain project. */
  projectRoot: string;
  /** The directory byre was started in (canonical); it becomes /workspace. */
  worktreeDir: string;
  isLinkedWorktree: boolean;
  /** The repository's shared git dir (canonical), or null outside git. */
  commonGitDir: string | null;
  /** This worktree's own git dir (`.git`, or `<common>/worktrees/<name>`), or null outside git. */
  gitDir: string | null;
  /**
   * A linked worktree's paths as git recorded them (not symlink-resolved):
   * the box binds each at the same path so git inside it still finds them.
   */
  gitPaths: { commonGitDir: string; worktreeDir: string } | null;
  /**
   * A forged structure, when the caller asked to see it (`forged: 'report'`):
   * the directory then resolves as its own project outside git.
   */
  forged: RefusedError | null;
}

/** The `gitdir:` target of a `.git` file, or null when the text is not a pointer. Pure. */
function parseGitFile(text: string): string | null {
  const first = text.split('\n', 1)[0]?.replace(/\r$/, '') ?? '';
  const match = /^gitdir:\s*(.+?)\s*$/.exec(first);
  return match?.[1] ?? null;
}

/** The main worktree for a common git dir: its parent when it is a `.git` dir. Pure. */
export function mainWorktreeFor(commonGitDir: string): string | null {
  return path.basename(commonGitDir) === '.git' ? path.dirname(commonGitDir) : null;
}

/**
 * The common dir a linked worktree's git dir implies: git keeps each one at
 * `<common>/worktrees/<name>`, so anything else is not git's structure. Pure.
 */
export function commonDirOfWorktreeGitdir(gitdir: string): string | null {
  const parent = path.dirname(gitdir);
  if (path.basename(parent) !== 'worktrees' || path.basename(gitdir) === '') return null;
  return path.dirname(parent);
}

/** A worktree's own id: the project id formula over the worktree's path. */
export function worktreeIdFor(worktreeDir: string): string {
  return projectIdFor(worktreeDir);
}

function brokenPointer(worktreeDir: string, detail: string, cause?: unknown): ByreError {
  return new ByreError(`${worktreeDir} looks like a linked git worktree, but ${detail}`, {
    rule: 'worktree.broken-pointer',
    remedy:
      'repair git’s pointers (`git worktree repair` from the main worktree), then run byre again',
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The pointers say "linked worktree" but not in the shape git makes: possibly forged from inside a box. */
function notGitStructure(worktreeDir: string, detail: string): ByreError {
  return new ByreError(
    `${worktreeDir}/.git names another repository's worktree, but ${detail}; byre will not take that repository's identity`,
    {
      rule: 'worktree.pointer-mismatch',
      remedy:
        'if this is a real worktree, run `git worktree repair` from its main worktree; otherwise remove the .git file (a box may have planted it)',
    },
  );
}

function pointerNotFile(file: string, what: string): ByreError {
  return new ByreError(`${file} is ${what}, not one of git's pointer files`, {
    rule: 'worktree.pointer-not-file',
    remedy: `remove or replace ${file} (a box may have planted it), then run byre again`,
  });
}

/** A linked worktree's claim: its directory, its repository's paths and its main checkout. */
interface LinkedClaim {
  worktreeDir: string;
  /** The common git dir, canonical and as git's pointers name it. */
  repository: readonly string[];
  /** The main worktree the repository implies (canonical), or null for a bare one. */
  mainWorktree: string | null;
}

/**
 * The tree a box can write that holds both a linked worktree and its
 * repository, when that tree is not the repository's own main checkout: a box
 * there could have written every pointer of the structure, each one
 * consistent with the others. `launchedDirs` are ancestors of the worktree
 * byre launched boxes in; the worktree itself always counts, since the box
 * about to start writes it. Pure.
 */
function forgingTree(claim: LinkedClaim, launchedDirs: readonly string[]): string | null {
  for (const tree of [claim.worktreeDir, ...launchedDirs]) {
    if (tree === claim.mainWorktree || !isAncestorOrSelf(tree, claim.worktreeDir)) continue;
    if (claim.repository.some((p) => isAncestorOrSelf(tree, p))) return tree;
  }
  return null;
}

/** A worktree structure a box could have built: refused, whatever identity it names. */
function forgedStructure(claim: LinkedClaim, tree: string): RefusedError {
  const dotGit = path.join(claim.worktreeDir, '.git');
  const repo = claim.repository[0] ?? '';
  const where =
    tree === claim.worktreeDir
      ? 'inside the worktree itself'
      : `inside ${tree}, where byre has run a box that could write all of it`;
  const restore =
    tree === claim.worktreeDir
      ? `if ${repo} is this directory's own repository, put it back (\`rm ${dotGit} && mv ${repo} ${dotGit}\`)`
      : `if git made this worktree, move its repository out of ${tree}`;
  return new RefusedError(
    `${dotGit} makes ${claim.worktreeDir} a linked worktree of ${claim.mainWorktree ?? repo}, but its repository ${repo} lies ${where}; git never builds that, a box can, so byre will not take that identity`,
    {
      rule: 'worktree.forged',
      remedy: `${restore}; otherwise remove ${dotGit} (a box planted it), then run byre again`,
    },
  );
}

/** A pointer file inside a git dir (`gitdir`, `commondir`): its text, or null when absent. */
function readPointer(file: string): string | null {
  const read: RegularRead = readRegularFile(file, POINTER_MAX_BYTES);
  switch (read.kind) {
    case 'missing':
      return null;
    case 'not-regular':
      throw pointerNotFile(file, describeNotRegular(read.what));
    case 'too-large':
      throw pointerNotFile(file, `${read.size} bytes, too large`);
    case 'ok':
      return read.bytes.toString('utf8');
  }
}

function firstLine(text: string): string {
  return (text.split('\n', 1)[0] ?? '').replace(/\r$/, '').trim();
}

async function samePath(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  try {
    return (await canonicalPath(a)) === (await canonicalPath(b));
  } catch {
    return false;
  }
}

interface ResolveOptions {
  /** Whether a directory is one byre launched a box in (the store's records); none when absent. */
  launchedDir?: (dir: string) => boolean;
  /**
   * `refuse` (every verb): a forged structure throws. `report`: it resolves
   * as the directory's own project outside git, the refusal on `forged`, for
   * the page that shows it (status).
   */
  forged?: 'refuse' | 'report';
}

/** The worktree's ancestors that byre launched boxes in, nearest first. */
function launchedAncestors(worktreeDir: string, options: ResolveOptions): string[] {
  const launched = options.launchedDir;
  if (launched === undefined) return [];
  const out: string[] = [];
  for (let d = path.dirname(worktreeDir); ; d = path.dirname(d)) {
    if (launched(d)) out.push(d);
    if (d === path.dirname(d)) return out;
  }
}

/**
 * Resolves where identity anchors for `dir`. A linked worktree is accepted
 * only in git's own shape: `.git` a regular file whose `gitdir:` is
 * `<common>/worktrees/<name>`, that directory's `gitdir` file pointing back
 * at this `.git`, and its `commondir` naming `<common>`; and never when its
 * repository lies inside a tree a box can write (forgingTree). A plain
 * checkout, a submodule, a bare repository's worktree or no git at all is
 * its own project.
 */
export async function resolveWorktree(
  dir: string,
  options: ResolveOptions = {},
): Promise<WorktreeIdentity> {
  const worktreeDir = await canonicalPath(dir);
  const dotGit = path.join(worktreeDir, '.git');
  const plain = (commonGitDir: string | null, gitDir = commonGitDir): WorktreeIdentity => ({
    projectRoot: worktreeDir,
    worktreeDir,
    isLinkedWorktree: false,
    commonGitDir,
    gitDir,
    gitPaths: null,
    forged: null,
  });

  const info = lstatOrNull(dotGit);
  if (info === null) return plain(null);
  if (info.isDirectory()) return plain(dotGit);
  if (!info.isFile()) {
    const what = info.isSymbolicLink()
      ? 'a symbolic link'
      : info.isFIFO()
        ? 'a FIFO'
        : 'a device or socket';
    throw pointerNotFile(dotGit, what);
  }
  const read = readRegularFile(dotGit, POINTER_MAX_BYTES);
  // Too large to be a pointer: a file that happens to be named .git.
  if (read.kind === 'too-large' || read.kind === 'missing') return plain(null);
  if (read.kind === 'not-regular') throw pointerNotFile(dotGit, describeNotRegular(read.what));
  const gitdirValue = parseGitFile(read.bytes.toString('utf8'));
  if (gitdirValue === null) {
    throw brokenPointer(worktreeDir, `${dotGit} holds no "gitdir:" line`);
  }
  const gitdir = path.resolve(worktreeDir, gitdirValue);
  const gitdirInfo = lstatOrNull(gitdir);
  if (gitdirInfo === null) throw brokenPointer(worktreeDir, `its git dir ${gitdir} is missing`);
  if (!gitdirInfo.isDirectory()) {
    throw notGitStructure(worktreeDir, `its git dir ${gitdir} is not a directory`);
  }
  const commondirText = readPointer(path.join(gitdir, 'commondir'));
  if (commondirText === null) {
    // A submodule's .git file: it points at a private git dir, not a shared one.
    return plain(await canonicalPath(gitdir));
  }

  const common = commonDirOfWorktreeGitdir(gitdir);
  if (common === null) {
    throw notGitStructure(
      worktreeDir,
      `its git dir ${gitdir} is not <repository>/worktrees/<name>`,
    );
  }
  const commonNamed = path.resolve(gitdir, firstLine(commondirText));
  if (!(await samePath(commonNamed, common))) {
    throw notGitStructure(worktreeDir, `${gitdir}/commondir names ${commonNamed}, not ${common}`);
  }
  const backText = readPointer(path.join(gitdir, 'gitdir'));
  const back = backText === null ? null : path.resolve(gitdir, firstLine(backText));
  if (back === null || !(await samePath(back, dotGit))) {
    throw notGitStructure(
      worktreeDir,
      `${gitdir}/gitdir points at ${back ?? 'nothing'}, not back at ${dotGit}`,
    );
  }

  let commonGitDir: string;
  try {
    commonGitDir = await canonicalPath(common);
  } catch (err) {
    throw brokenPointer(worktreeDir, `its common git dir ${common} is missing`, err);
  }
  const main = mainWorktreeFor(common);
  const ownGitDir = await canonicalPath(gitdir);
  let projectRoot: string | null = null;
  if (main !== null) {
    try {
      projectRoot = await canonicalPath(main);
    } catch (err) {
      throw brokenPointer(worktreeDir, `its main worktree ${main} is missing`, err);
    }
  }
  const claim: LinkedClaim = {
    worktreeDir,
    repository: [commonGitDir, common],
    mainWorktree: projectRoot,
  };
  const tree = forgingTree(claim, launchedAncestors(worktreeDir, options));
  if (tree !== null) {
    const refusal = forgedStructure(claim, tree);
    if (options.forged !== 'report') throw refusal;
    return { ...plain(null), forged: refusal };
  }
  if (projectRoot === null) return plain(commonGitDir, ownGitDir);
  if (projectRoot === worktreeDir) return plain(commonGitDir, ownGitDir);
  return {
    projectRoot,
    worktreeDir,
    isLinkedWorktree: true,
    commonGitDir,
    gitDir: ownGitDir,
    gitPaths: { commonGitDir: common, worktreeDir: path.dirname(back) },
    forged: null,
  };
}
