// Whether a host port is free, and who holds it when it is not (adr/0034):
// a listen attempt on the interface the box would publish on, then, for a
// port in use, a bounded best-effort look through /proc for the listening
// process. Linux only for the name; elsewhere the holder is "another program".

import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/** How many processes the holder lookup reads before giving up on a name. */
const PROC_SCAN_LIMIT = 4096;

/** `in-use` only for EADDRINUSE; a port byre may not bind (EACCES) or an absent address is `unknown`. */
function probePort(iface: string, port: number): Promise<'free' | 'in-use' | 'unknown'> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code === 'EADDRINUSE' ? 'in-use' : 'unknown');
    });
    server.listen({ host: iface, port, exclusive: true }, () => {
      server.close(() => resolve('free'));
    });
  });
}

/** Socket inodes listening on `port` (state 0A), from /proc/net/tcp and tcp6. */
export function listeningInodes(tables: readonly string[], port: number): Set<string> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of tables) {
    for (const line of table.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1] ?? '';
      if (cols[3] === '0A' && local.endsWith(`:${hex}`) && cols[9] !== undefined) {
        inodes.add(cols[9]);
      }
    }
  }
  return inodes;
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** "pid 1234 (docker-proxy)", or null when no readable process holds the socket. */
function processHolding(port: number): string | null {
  const inodes = listeningInodes([readOr('/proc/net/tcp'), readOr('/proc/net/tcp6')], port);
  if (inodes.size === 0) return null;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return null;
  }
  for (const pid of pids.slice(0, PROC_SCAN_LIMIT)) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m?.[1] !== undefined && inodes.has(m[1])) {
        const comm = readOr(`/proc/${pid}/comm`).trim();
        return `pid ${pid}${comm === '' ? '' : ` (${comm})`}`;
      }
    }
  }
  return null;
}

/** Who holds the port on this host, in words, or null when it is free (or cannot be told). */
export async function hostPortHolder(iface: string, port: number): Promise<string | null> {
  const state = await probePort(iface, port);
  if (state !== 'in-use') return null;
  const proc = processHolding(port);
  return proc === null ? 'another program on this host' : `another program on this host, ${proc}`;
}
