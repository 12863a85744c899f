#!/usr/bin/env node
// Process boundary: argv in, exit status out. The only file that decides an
// exit code; everything below throws data (src/errors.ts) and returns.

import { ByreError, EXIT, PassthroughExit } from './errors.js';
import { renderCrash, renderError } from './output/render-error.js';
import { systemErrorToByre } from './output/system-error.js';
import { runCli } from './cli/program.js';

async function main(argv: readonly string[]): Promise<number> {
  try {
    return await runCli(argv);
  } catch (error) {
    if (error instanceof PassthroughExit) return error.code;
    const known = error instanceof ByreError ? error : systemErrorToByre(error);
    if (known !== null) {
      process.stderr.write(`${renderError(known)}\n`);
      return known.exitCode;
    }
    process.stderr.write(`${renderCrash(error)}\n`);
    return EXIT.crash;
  }
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
