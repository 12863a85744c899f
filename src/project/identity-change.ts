// A directory byre launched before keeps its identity (adr/0047): when git's
// pointers now resolve it to another project id than its record says, every
// verb refuses, naming both ids and `byre rehome`, before anything is
// written. git's pointers are the box's to write, so a box could otherwise
// give its next launch a fresh identity with a fresh, unrestricted config.
// Pure: the records and the resolution come from the caller.

import { RefusedError } from '../errors.js';
import type { RecordedIdentity } from './identity-record.js';

/** What a directory resolves to now. */
export interface ResolvedIdentity {
  dir: string;
  projectId: string;
  isLinkedWorktree: boolean;
  /** The main worktree (the directory itself when it is not a linked worktree). */
  projectRoot: string;
}

export interface IdentityChange {
  resolved: ResolvedIdentity;
  /** The record that disagrees. */
  recorded: RecordedIdentity;
  /** The directory the recorded project's own path record names, when it has one. */
  recordedRoot: string | null;
  /** That directory no longer exists (its main checkout moved). */
  recordedRootGone: boolean;
}

/** The first record of `dir` naming another project than it resolves to, or null. Pure. */
export function findIdentityChange(
  resolved: ResolvedIdentity,
  records: readonly RecordedIdentity[],
): RecordedIdentity | null {
  return records.find((r) => r.projectId !== resolved.projectId) ?? null;
}

function wasText(change: IdentityChange): string {
  const { recorded, recordedRoot } = change;
  if (recorded.projectId === null) return `an identity its record ${recorded.file} no longer says`;
  if (recorded.as === 'project') return `its own project ${recorded.projectId}`;
  return `a linked worktree of project ${recorded.projectId}${recordedRoot === null ? '' : ` (${recordedRoot})`}`;
}

function nowText(resolved: ResolvedIdentity): string {
  return resolved.isLinkedWorktree
    ? `a linked worktree of ${resolved.projectRoot} (project ${resolved.projectId})`
    : `its own project ${resolved.projectId}`;
}

/** The remedy: the rehome that accepts a change the user made, or what to restore. Pure. */
function identityChangeRemedy(change: IdentityChange): string {
  const { recorded, resolved, recordedRoot } = change;
  if (recorded.projectId === null) {
    return `remove ${recorded.file} if this directory's identity is what byre status now shows, then run byre again`;
  }
  const restore =
    'if you did not, a box rewrote git’s files: restore this directory’s .git as it was';
  if (
    recorded.as === 'worktree' &&
    resolved.isLinkedWorktree &&
    recordedRoot !== null &&
    change.recordedRootGone
  ) {
    return `if the main checkout ${recordedRoot} moved to ${resolved.projectRoot}, run \`byre rehome ${recorded.projectId}\` in ${resolved.projectRoot}; ${restore}`;
  }
  return `if you made this change yourself, run \`byre rehome ${recorded.projectId}\` here to accept it (it carries ${recorded.projectId}'s config over, so the box keeps its restrictions); ${restore}`;
}

/** The refusal for a changed identity (exit 3, adr/0023). Pure. */
export function identityChangeRefusal(change: IdentityChange): RefusedError {
  const { resolved } = change;
  return new RefusedError(
    `${resolved.dir} was launched as ${wasText(change)}, but git's files now make it ${nowText(resolved)}; byre does not change a directory's identity silently`,
    { rule: 'project.identity-changed', remedy: identityChangeRemedy(change) },
  );
}
