// Running the built binary for the cli tier: dist/byre (or a copy of it) in
// a directory, with its store in BYRE_HOME, root allowed (the tier runs as
// root), stdin empty. `inherit: false` starts from an empty environment, for
// tests that decide PATH and HOME themselves (no engine on PATH).

import { spawnSync } from 'node:child_process';
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
  },
): BinRun {
  const base = where.inherit === false ? {} : process.env;
  const r = spawnSync(where.bin ?? BYRE_BIN, [...args], {
    cwd: where.cwd,
    input: '',
    encoding: 'utf8',
    env: { ...base, BYRE_HOME: where.home, BYRE_ALLOW_ROOT: '1', ...where.env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
