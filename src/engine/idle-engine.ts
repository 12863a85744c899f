// Which installed engine provably runs no container for this user, so that
// deliver, grab and status need not wait for its `ps` (adr/0039). Podman's `ps` is the
// slow one (~100 ms on 2 busy cores: it initialises its runtime and runs
// `conmon --version`), and every container local Podman runs, rootful or
// rootless, is watched by a `conmon` process on this host, owned by the user
// whose container it is. No such process that this user can see means
// Podman would list no running box, so its answer is known without asking.
// Pure: the facts are read by the caller (src/engine/idle-probe.ts).

import { FULL_CONTAINER_ID } from './types.js';

/** What the probe read; null fields could not be read (the engine is then asked). */
interface PodmanActivityFacts {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** The real path of the podman client byre would run. */
  clientPath: string | null;
  /** The `/proc/<pid>/stat` line of every process this user can see. */
  processStats: readonly string[] | null;
  /** The text of every containers.conf podman would read; null when one exists but cannot be read. */
  containersConf: readonly string[] | null;
}

/** Environment that sends the podman client to a service elsewhere (its containers are not ours to see). */
const REMOTE_ENV = [
  'CONTAINER_HOST',
  'CONTAINER_CONNECTION',
  'CONTAINERS_CONF',
  'CONTAINERS_CONF_OVERRIDE',
];

/**
 * containers.conf lines that end the proof: `remote` may make the client
 * remote; `conmon_path` may name a monitor whose process is not called
 * `conmon`, so its containers would not show as one.
 */
const UNPROVABLE_KEY = /^\s*(remote|conmon_path)\s*=/m;

/**
 * A process's command name and state from its `/proc/<pid>/stat` line
 * (`pid (name) S …`; the name may itself hold spaces and parentheses, so it
 * ends at the last `)`). Null when the line is not that shape.
 */
export function processNameState(stat: string): { name: string; state: string } | null {
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const state = /^ ([A-Za-z]) /.exec(stat.slice(close + 1));
  return state === null ? null : { name: stat.slice(open + 1, close), state: state[1] as string };
}

/**
 * A process that may be watching a container: named `conmon` and not
 * already exited (a zombie, `Z`, or dead, `X`/`x`, waits only to be reaped
 * by its parent and watches nothing; where init reaps slowly, exited
 * monitors linger for seconds). A line that does not parse may be one.
 */
function mayBeMonitor(stat: string): boolean {
  const p = processNameState(stat);
  if (p === null) return true;
  return p.name === 'conmon' && !['Z', 'X', 'x'].includes(p.state);
}

/**
 * True only when Podman provably runs no container this user could reach:
 * on Linux, with a local client (no remote environment, not `podman-remote`,
 * no `remote` key in any containers.conf), and no live `conmon` process
 * visible. Anything unread or unusual answers false, and Podman is asked as
 * before.
 */
export function podmanProvablyIdle(f: PodmanActivityFacts): boolean {
  if (!podmanIsLocal(f)) return false;
  if (f.processStats === null || f.processStats.length === 0) return false;
  return !f.processStats.some(mayBeMonitor);
}

/**
 * Podman's containers are this host's, each watched by a process named
 * `conmon`: on Linux, with a local client (no remote environment, not
 * `podman-remote`, no `remote` or `conmon_path` in any containers.conf).
 */
export function podmanIsLocal(f: Omit<PodmanActivityFacts, 'processStats'>): boolean {
  if (f.platform !== 'linux') return false;
  if (REMOTE_ENV.some((k) => (f.env[k] ?? '') !== '')) return false;
  if (f.clientPath === null || !/(^|\/)podman$/.test(f.clientPath)) return false;
  return f.containersConf !== null && !f.containersConf.some((t) => UNPROVABLE_KEY.test(t));
}

/** One process as the monitor census reads it (src/engine/idle-probe.ts). */
export interface ProcessView {
  /** Its `/proc/<pid>/stat` line. */
  stat: string;
  /** The uid owning `/proc/<pid>`; null when it could not be read. */
  owner: number | null;
  /** Its `/proc/<pid>/cmdline`, split at NULs; null when it could not be read. */
  argv: readonly string[] | null;
}

/**
 * What one `conmon`'s argv says: the container it watches (`-c <id>`,
 * `--cid <id>` or `--cid=<id>`; an exec's monitor names its container the
 * same way), `probe` for the `conmon --version` every podman client runs,
 * `exiting` for an empty argv (a process whose memory is already gone), or
 * null when it cannot be read as one of those.
 */
function monitorArgv(argv: readonly string[]): { id: string } | 'probe' | 'exiting' | null {
  if (argv.every((w) => w === '')) return 'exiting';
  const words = argv.at(-1) === '' ? argv.slice(0, -1) : argv;
  if (words.length === 2 && words[1] === '--version') return 'probe';
  for (let i = 1; i < words.length; i++) {
    const w = words[i] ?? '';
    const id =
      w === '-c' || w === '--cid' ? words[i + 1] : w.startsWith('--cid=') ? w.slice(6) : null;
    if (id === null) continue;
    return id !== undefined && FULL_CONTAINER_ID.test(id) ? { id } : null;
  }
  return null;
}

/**
 * The container ids the live monitors owned by `uid` watch, or null when
 * one of them cannot be read that way: a monitor whose container is unknown
 * might be hiding a box, so the caller must ask podman. Monitors of other
 * users watch other users' podman; they are not this user's to list. A
 * version probe and an exiting monitor watch nothing.
 */
function monitoredIds(processes: readonly ProcessView[], uid: number): string[] | null {
  const ids = new Set<string>();
  for (const p of processes) {
    if (!mayBeMonitor(p.stat)) continue;
    if (p.owner === null) return null;
    if (p.owner !== uid) continue;
    const said = p.argv === null ? null : monitorArgv(p.argv);
    if (said === null) return null;
    if (typeof said === 'object') ids.add(said.id);
  }
  return [...ids].sort();
}

/**
 * The containers this user's local podman runs, by their monitors, or null
 * when they cannot vouch for it. Only podman itself, run as this user, keeps
 * its containers' monitors under this user's uid; a `podman` that is a
 * script or a user's own program may run it as anyone (`sudo podman`), and
 * that user's monitors would be passed over. So the client must be a
 * system executable (native, root's, in root's directory).
 */
export function podmanCensus(f: {
  clientTrusted: boolean;
  uid: number;
  views: readonly ProcessView[];
}): string[] | null {
  return f.clientTrusted ? monitoredIds(f.views, f.uid) : null;
}
