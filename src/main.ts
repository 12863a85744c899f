#!/usr/bin/env node
// Process boundary: argv in, exit status out. The only file that decides an
// exit code; everything below throws data (src/errors.ts) and returns.

import { failureReport } from './output/render-error.js';
import { runCli } from './cli/program.js';

function report(error: unknown): number {
  const { code, text } = failureReport(error);
  if (text !== null) process.stderr.write(`${text}\n`);
  return code;
}

// A throw outside the awaited chain would otherwise reach the runtime's own
// printer, which knows nothing of the credential redactor.
function crashOutOfBand(error: unknown): void {
  process.exitCode = report(error);
  process.exit();
}
process.on('uncaughtException', crashOutOfBand);
process.on('unhandledRejection', crashOutOfBand);

async function main(argv: readonly string[]): Promise<number> {
  try {
    return await runCli(argv);
  } catch (error) {
    return report(error);
  }
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
