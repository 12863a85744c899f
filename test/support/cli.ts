// Running the built binary for the cli tier: dist/byre (or a copy of it) in
// a directory, with its store in BYRE_HOME, root allowed (the tier runs as
// root), stdin empty. `inherit: false` starts from an empty environment, for
// tests that decide PATH and HOME themselves (no engine on PATH).

import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const BYRE_BIN = path.resolve('dist/byre');

export interface BinRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runBin(
  args: readonly string[],
  where: {
    cwd: string;
    home: string;
    env?: Record<string, string>;
    bin?: string;
    inherit?: boolean;
    /** Standard input (empty unless given). */
    input?: string;
    /** Handed over on descriptor 3 (for `--passphrase-fd 3`), from an already-unlinked file. */
    fd3?: string;
    /** Milliseconds before the run is killed (its status is then null). */
    timeout?: number;
  },
): BinRun {
  const base = where.inherit === false ? {} : process.env;
  const fd = where.fd3 === undefined ? undefined : unlinkedFileWith(where.fd3);
  try {
    const r = spawnSync(where.bin ?? BYRE_BIN, [...args], {
      cwd: where.cwd,
      input: where.input ?? '',
      encoding: 'utf8',
      env: { ...base, BYRE_HOME: where.home, BYRE_ALLOW_ROOT: '1', ...where.env },
      ...(fd === undefined ? {} : { stdio: ['pipe', 'pipe', 'pipe', fd] }),
      ...(where.timeout === undefined ? {} : { timeout: where.timeout }),
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A descriptor open for reading on `text`, its file already removed. */
function unlinkedFileWith(text: string): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'byre-fd-'));
  try {
    const file = path.join(dir, 'fd');
    writeFileSync(file, text, { mode: 0o600 });
    return openSync(file, 'r');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
