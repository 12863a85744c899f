// Linked-worktree identity: finds a worktree's main worktree by reading git's
// own pointer files (`.git` -> gitdir -> commondir). It must never run git: a
// project's hooks and config are the boxed agent's to write, so running git
// here would run the agent's code on the host.

import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

import { ByreError } from '../errors.js';
import { canonicalPath } from './canonical.js';
import { projectIdFor } from './identity.js';

export interface WorktreeIdentity {
  /** The main worktree (canonical); identity anchors here. Equals worktreeDir for a plain project. */
  projectRoot: string;
  /** The directory byre was started in (canonical); it becomes /workspace. */
  worktreeDir: string;
  isLinkedWorktree: boolean;
  /** The repository's shared git dir (canonical), or null outside git. */
  commonGitDir: string | null;
}

/** The `gitdir:` target of a `.git` file, or null when the text is not a pointer. Pure. */
export function parseGitFile(text: string): string | null {
  const first = text.split('\n', 1)[0]?.replace(/\r$/, '') ?? '';
  const match = /^gitdir:\s*(.+?)\s*$/.exec(first);
  return match?.[1] ?? null;
}

/** The main worktree for a common git dir: its parent when it is a `.git` dir. Pure. */
export function mainWorktreeFor(commonGitDir: string): string | null {
  return path.basename(commonGitDir) === '.git' ? path.dirname(commonGitDir) : null;
}

/** A worktree's own id: the project id formula over the worktree's path. */
export function worktreeIdFor(worktreeDir: string): string {
  return projectIdFor(worktreeDir);
}

async function readIfFile(p: string): Promise<string | null> {
  try {
    const info = await stat(p);
    return info.isFile() ? await readFile(p, 'utf8') : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

function brokenPointer(worktreeDir: string, detail: string, cause?: unknown): ByreError {
  return new ByreError(`${worktreeDir} looks like a linked git worktree, but ${detail}`, {
    rule: 'worktree.broken-pointer',
    remedy:
      'repair git’s pointers (`git worktree repair` from the main worktree), then run byre again',
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Resolves where identity anchors for `dir`. A `.git` file with a `commondir`
 * whose target is a `.git` directory marks a linked worktree; anything else
 * (a plain checkout, a submodule, a bare repository's worktree, no git at all)
 * is its own project.
 */
export async function resolveWorktree(dir: string): Promise<WorktreeIdentity> {
  const worktreeDir = await canonicalPath(dir);
  const dotGit = path.join(worktreeDir, '.git');
  const plain = (commonGitDir: string | null): WorktreeIdentity => ({
    projectRoot: worktreeDir,
    worktreeDir,
    isLinkedWorktree: false,
    commonGitDir,
  });

  const pointerText = await readIfFile(dotGit);
  if (pointerText === null) {
    return plain((await isDirectory(dotGit)) ? dotGit : null);
  }
  const gitdirValue = parseGitFile(pointerText);
  if (gitdirValue === null) {
    throw brokenPointer(worktreeDir, `${dotGit} holds no "gitdir:" line`);
  }
  const gitdir = path.resolve(worktreeDir, gitdirValue);
  if (!(await isDirectory(gitdir))) {
    throw brokenPointer(worktreeDir, `its git dir ${gitdir} is missing`);
  }
  const commondirText = await readIfFile(path.join(gitdir, 'commondir'));
  if (commondirText === null) {
    // A submodule's .git file: it points at a private git dir, not a shared one.
    return plain(await canonicalPath(gitdir));
  }
  const commonAbs = path.resolve(gitdir, commondirText.trim());
  let commonGitDir: string;
  try {
    commonGitDir = await canonicalPath(commonAbs);
  } catch (err) {
    throw brokenPointer(worktreeDir, `its common git dir ${commonAbs} is missing`, err);
  }
  const main = mainWorktreeFor(commonAbs);
  if (main === null) return plain(commonGitDir);
  let projectRoot: string;
  try {
    projectRoot = await canonicalPath(main);
  } catch (err) {
    throw brokenPointer(worktreeDir, `its main worktree ${main} is missing`, err);
  }
  return { projectRoot, worktreeDir, isLinkedWorktree: projectRoot !== worktreeDir, commonGitDir };
}
