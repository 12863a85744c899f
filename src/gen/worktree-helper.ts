// The short-lived, network-less helper containers that run the repository's
// git for `byre worktree` (adr/0036): registration (`git worktree add
// --no-checkout`, plus the marker the launcher checks out from at first
// start) and removal. The repository's git never runs on the host: its hooks
// and config are the box's to write. Pure: argv and scripts only.

import { DROP_PRIVILEGES, helperUsernsArgs, NEVER_PULL } from '../engine/argv.js';
import { bindProofEnvArgs, provenScript, type ProvenBind } from './bind-proof.js';
import { worktreeAddHelperName } from './names.js';
import { NEEDS_CHECKOUT_MARKER } from '../project/worktree-list.js';

/** The helper's exit status when the image has no git. */
export const NO_GIT_EXIT = 97;

const PREAMBLE = `set -eu
command -v git >/dev/null 2>&1 || { echo "byre: this project's image has no git" >&2; exit ${NO_GIT_EXIT}; }
cd "$BYRE_WT_MAIN"`;

/**
 * Registers the worktree without checking it out (a checkout runs hooks and
 * filters; the box does it at first start), creating the branch when it
 * does not exist yet.
 */
const ADD_SCRIPT = `${PREAMBLE}
if git show-ref --verify --quiet "refs/heads/$BYRE_WT_BRANCH"; then
  git worktree add --no-checkout "$BYRE_WT_TARGET" "$BYRE_WT_BRANCH"
else
  git worktree add --no-checkout -b "$BYRE_WT_BRANCH" "$BYRE_WT_TARGET"
fi
gitdir="$(git -C "$BYRE_WT_TARGET" rev-parse --absolute-git-dir)"
: > "$gitdir/${NEEDS_CHECKOUT_MARKER}"
`;

/**
 * Removes the worktree; git refuses a dirty or locked one unless forced.
 * The worktree directory is a mount point here, so git cannot remove the
 * directory itself: the host judges success by git's admin dir being gone,
 * then removes the empty directory.
 */
const REMOVE_SCRIPT = `${PREAMBLE}
if [ "\${BYRE_WT_FORCE:-}" = 1 ]; then set -- --force; else set --; fi
git worktree remove "$@" "$BYRE_WT_TARGET"
`;

export interface WorktreeHelperInput {
  image: string;
  /** In-box ids (the baked dev user), so files land owned like the box's. */
  uid: number;
  gid: number;
  keepId: boolean;
  /** The worktree git runs from (read-only here). */
  main: string;
  commonGitDir: string;
  /** The worktree directory, as git records it. */
  target: string;
  /** False when its directory is gone (removal only): nothing to mount. */
  targetExists: boolean;
  /** The target's worktree id: names the helper. */
  targetId: string;
  /** Each bind's pinned identity, proven before git runs (adr/0045); null: no proof (a remote engine). */
  proof?: readonly ProvenBind[] | null;
}

/** A bind of the helper: each directory at its own path, so git's recorded paths hold. */
interface HelperBind {
  path: string;
  readonly: boolean;
  /** For messages. */
  label: string;
}

/** The helper's binds, in argv order: the main worktree (read-only), the common git dir, the worktree. */
export function worktreeHelperBinds(input: WorktreeHelperInput): HelperBind[] {
  return [
    { path: input.main, readonly: true, label: `the main worktree ${input.main}` },
    { path: input.commonGitDir, readonly: false, label: `the git dir ${input.commonGitDir}` },
    ...(input.targetExists
      ? [{ path: input.target, readonly: false, label: `the worktree ${input.target}` }]
      : []),
  ];
}

function helperArgv(
  input: WorktreeHelperInput,
  env: Readonly<Record<string, string>>,
  script: string,
): string[] {
  const proof = input.proof ?? null;
  return [
    'run',
    '--rm',
    NEVER_PULL,
    '--name',
    worktreeAddHelperName(input.targetId),
    '--entrypoint',
    'sh',
    '--network',
    'none',
    // The repository's git (its hooks and config are the box's) runs as the
    // box's user with no capability and no way to gain one (adr/0050).
    ...DROP_PRIVILEGES,
    '-u',
    `${input.uid}:${input.gid}`,
    ...helperUsernsArgs(input.keepId),
    '-e',
    `BYRE_WT_MAIN=${input.main}`,
    '-e',
    `BYRE_WT_TARGET=${input.target}`,
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    // The directories are the user's and the in-box user may differ: git
    // must not refuse them as "dubious ownership".
    '-e',
    'GIT_CONFIG_COUNT=1',
    '-e',
    'GIT_CONFIG_KEY_0=safe.directory',
    '-e',
    'GIT_CONFIG_VALUE_0=*',
    '-e',
    'HOME=/tmp',
    ...bindProofEnvArgs(proof),
    ...worktreeHelperBinds(input).flatMap((b) => [
      '--mount',
      `type=bind,source=${b.path},target=${b.path}${b.readonly ? ',readonly' : ''}`,
    ]),
    input.image,
    '-c',
    provenScript(script, proof),
  ];
}

export function worktreeAddArgv(input: WorktreeHelperInput, branch: string): string[] {
  return helperArgv(input, { BYRE_WT_BRANCH: branch }, ADD_SCRIPT);
}

export function worktreeRemoveArgv(input: WorktreeHelperInput, force: boolean): string[] {
  return helperArgv(input, force ? { BYRE_WT_FORCE: '1' } : {}, REMOVE_SCRIPT);
}
