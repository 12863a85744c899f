// `npm run docs`: regenerate docs/COMMANDS.md from the command tree
// (src/cli/commands-doc.ts). src/cli/commands-doc.test.ts fails until the
// checked-in page matches what this writes.
import { writeFileSync } from 'node:fs';

import { COMMANDS_DOC_PATH, renderCommandsDoc } from '../src/cli/commands-doc.js';
import { buildProgram } from '../src/cli/program.js';
import { silentIo } from '../src/io.js';

const program = buildProgram(silentIo());
writeFileSync(COMMANDS_DOC_PATH, renderCommandsDoc(program));
process.stderr.write(`wrote ${COMMANDS_DOC_PATH}\n`);
