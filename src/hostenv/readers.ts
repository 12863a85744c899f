// The IO side of env_from_host: the host's git config (through the pinned git
// binary), its environment, and its timezone. Each reader fails soft: a value
// that cannot be read is simply not delivered. The git config is read once
// per reader with one `git config --list` however many keys are asked for
// (the core layer asks for user.name and user.email twice each). A command
// may start that listing early (`startGitConfigList`), so it runs while the
// command's own code loads; the readers then use it instead of running git.

import { execFile, execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { createHostTools } from '../engine/host-tools.js';
import type { HostReaders } from './resolve.js';
import { canonicalGitKey, parseGitConfigList, zoneFromLocaltimeTarget } from './resolve.js';

// From `/`, never the project: git there would read the repository's own
// config, which the box writes (the repository's git never runs on the
// host). Outside a repository git reads the user's and the system's config
// only.
const GIT_OPTIONS = {
  cwd: '/',
  encoding: 'utf8',
  timeout: 5_000,
  maxBuffer: 4 * 1024 * 1024,
} as const;

function runGit(gitPath: string, args: string[]): string | null {
  try {
    return execFileSync(gitPath, args, { ...GIT_OPTIONS, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

const LIST_ARGS = ['config', '--list', '-z'];

/** The host git env_from_host reads through: one the box could not have planted (not under `declinedRoots`). */
export function hostGit(
  env: Readonly<Record<string, string | undefined>>,
  declinedRoots: readonly string[],
): string | null {
  const git = createHostTools({ declinedRoots, env }).resolve('git');
  return git.kind === 'found' ? git.path : null;
}

/** The host git and its `git config --list -z` (null when the listing failed). */
export interface GitConfigList {
  gitPath: string | null;
  listed: string | null;
}

/** Starts the listing the readers would run, without waiting for it. */
export function startGitConfigList(
  env: Readonly<Record<string, string | undefined>>,
  declinedRoots: readonly string[],
): Promise<GitConfigList> {
  const gitPath = hostGit(env, declinedRoots);
  if (gitPath === null) return Promise.resolve({ gitPath, listed: null });
  return new Promise((resolve) => {
    const child = execFile(gitPath, LIST_ARGS, GIT_OPTIONS, (error, stdout) =>
      resolve({ gitPath, listed: error === null ? stdout : null }),
    );
    child.stdin?.end();
  });
}

/**
 * Readers over the host's environment. `early` is a listing already taken
 * (startGitConfigList) through the same git; without it the first git key
 * runs one.
 */
export function hostReaders(
  env: NodeJS.ProcessEnv,
  gitPath: string | null,
  early?: GitConfigList,
): HostReaders {
  // undefined: not read yet; null: the listing failed, so each key is asked alone.
  let config: Map<string, string> | null | undefined =
    early === undefined || early.gitPath !== gitPath
      ? undefined
      : early.listed === null
        ? null
        : parseGitConfigList(early.listed);
  return {
    git(key) {
      if (gitPath === null) return null;
      if (config === undefined) {
        const listed = runGit(gitPath, LIST_ARGS);
        config = listed === null ? null : parseGitConfigList(listed);
      }
      if (config === null) {
        const out = runGit(gitPath, ['config', '--get', key]);
        return out === null ? null : out.replace(/\r?\n$/, '');
      }
      const canonical = canonicalGitKey(key);
      return canonical === null ? null : (config.get(canonical) ?? null);
    },
    env(name) {
      return env[name] ?? null;
    },
    tz() {
      const fromVar = env['TZ'];
      if (fromVar !== undefined && fromVar !== '') return fromVar;
      try {
        return zoneFromLocaltimeTarget(readlinkSync('/etc/localtime'));
      } catch {
        return null;
      }
    },
  };
}
