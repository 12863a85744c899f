// `npm run docs:config`: regenerate docs/CONFIG.md from the key registry
// (src/config/keys.ts). src/config/config-doc.test.ts fails until the
// checked-in page matches what this writes.
import { writeFileSync } from 'node:fs';

import { CONFIG_DOC_PATH, renderConfigDoc } from '../src/config/config-doc.js';

writeFileSync(CONFIG_DOC_PATH, renderConfigDoc());
process.stderr.write(`wrote ${CONFIG_DOC_PATH}\n`);
