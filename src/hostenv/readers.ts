// The IO side of env_from_host: the host's git config (through the pinned git
// binary), its environment, and its timezone. Each reader fails soft: a value
// that cannot be read is simply not delivered. The git config is read once
// per reader with one `git config --list` however many keys are asked for
// (the core layer asks for user.name and user.email twice each).

import { readLink } from '../host/path-view.js';
import { toolOutputSync } from '../host/run-tool.js';
import type { HostReaders } from './resolve.js';
import { canonicalGitKey, parseGitConfigList, zoneFromLocaltimeTarget } from './resolve.js';

function runGit(gitPath: string, args: string[]): string | null {
  // From `/` (toolOutputSync's rule), never the project: git there would read
  // the repository's own config, which the box writes. Outside a repository
  // git reads the user's and the system's config only.
  return toolOutputSync(gitPath, args, { timeoutMs: 5_000, maxBytes: 4 * 1024 * 1024 });
}

export function hostReaders(env: NodeJS.ProcessEnv, gitPath: string | null): HostReaders {
  // undefined: not read yet; null: the listing failed, so each key is asked alone.
  let config: Map<string, string> | null | undefined;
  return {
    git(key) {
      if (gitPath === null) return null;
      if (config === undefined) {
        const listed = runGit(gitPath, ['config', '--list', '-z']);
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
        return zoneFromLocaltimeTarget(readLink('/etc/localtime'));
      } catch {
        return null;
      }
    },
  };
}
