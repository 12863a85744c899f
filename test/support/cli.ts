// Running the built binary for the cli tier: no shell, empty stdin, output
// captured as text. Each test decides the environment (no engine on PATH is
// the usual one), so a change to how the tier spawns byre happens here once.

import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const BYRE_BIN = path.resolve('dist/byre');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runBinary(
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; bin?: string; input?: string },
): CliRun {
  const r = spawnSync(opts.bin ?? BYRE_BIN, args, {
    cwd: opts.cwd,
    input: opts.input ?? '',
    encoding: 'utf8',
    env: opts.env,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
