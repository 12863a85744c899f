// This process's own limits, as the host reports them: the open-file soft and
// hard limits from the shell's `ulimit` (node has no getrlimit; byre's engine
// clients inherit these), and the inotify limits from /proc. Each fact is
// null when it cannot be read; doctor judges them.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';

interface HostLimits {
  nofileSoft: number | null;
  nofileHard: number | null;
  inotifyWatches: number | null;
  inotifyInstances: number | null;
}

function readNumber(file: string): number | null {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

function readInt(s: string): number | null {
  return /^\d+$/.test(s.trim()) ? Number(s.trim()) : null;
}

/** The limits, read once; `unlimited` reads as Number.MAX_SAFE_INTEGER. */
export async function hostLimits(): Promise<HostLimits> {
  // A fixed script, no input of anyone's: only /bin/sh's builtin answers this.
  const said = await new Promise<string>((resolve) => {
    execFile('/bin/sh', ['-c', 'ulimit -Sn; ulimit -Hn'], { timeout: 5000 }, (err, stdout) =>
      resolve(err === null ? stdout : ''),
    );
  });
  const [soft, hard] = said.trim().split('\n');
  const num = (s: string | undefined): number | null =>
    s === undefined ? null : s.trim() === 'unlimited' ? Number.MAX_SAFE_INTEGER : readInt(s);
  return {
    nofileSoft: num(soft),
    nofileHard: num(hard),
    inotifyWatches: readNumber('/proc/sys/fs/inotify/max_user_watches'),
    inotifyInstances: readNumber('/proc/sys/fs/inotify/max_user_instances'),
  };
}
