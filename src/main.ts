#!/usr/bin/env node
// Process boundary: argv in, exit status out. The only file that decides an
// exit code; everything below throws data (src/errors.ts) and returns.

import { ByreError, EXIT, PassthroughExit } from './errors.js';
import { renderCrash, renderError } from './output/render-error.js';
import { runCli } from './cli/program.js';

async function main(argv: readonly string[]): Promise<number> {
  try {
    return await runCli(argv);
  } catch (error) {
    if (error instanceof PassthroughExit) return error.code;
    if (error instanceof ByreError) {
      process.stderr.write(`${renderError(error)}\n`);
      return error.exitCode;
    }
    process.stderr.write(`${renderCrash(error)}\n`);
    return EXIT.crash;
  }
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
