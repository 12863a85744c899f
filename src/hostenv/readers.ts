// The IO side of env_from_host: the host's git config (through the pinned git
// binary), its environment, and its timezone. Each reader fails soft: a value
// that cannot be read is simply not delivered.

import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import type { HostReaders } from './resolve.js';
import { zoneFromLocaltimeTarget } from './resolve.js';

export function hostReaders(env: NodeJS.ProcessEnv, gitPath: string | null): HostReaders {
  return {
    git(key) {
      if (gitPath === null) return null;
      try {
        // From `/`, never the project: git there would read the repository's
        // own config, which the box writes (the repository's git never runs
        // on the host). Outside a repository git reads the user's and the
        // system's config only.
        const out = execFileSync(gitPath, ['config', '--get', key], {
          cwd: '/',
          encoding: 'utf8',
          timeout: 5_000,
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        return out.replace(/\r?\n$/, '');
      } catch {
        return null;
      }
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
