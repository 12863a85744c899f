// Compiles src/main.ts into one self-contained executable for this machine,
// dist/byre (ADR 0001). Run through `npm run build`, after embed.mjs.
import { compileByre } from './compile.js';

await compileByre({ outfile: 'dist/byre' });
