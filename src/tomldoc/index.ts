// The style-preserving TOML document engine (ADR 0010): parse to a lossless
// CST, edit by splicing only the bytes an edit must touch. Pure: no IO. The
// config writer (src/config/write.ts) is its only caller that touches files.

export { TomlDateTime } from './cst.js';
export type { TomlDocument, TomlPath, TomlScalar, TomlTable, TomlValue } from './cst.js';
export { parseDocument, printDocument, TomlDocError } from './parse.js';
export { documentData, getValue, sameValue } from './decode.js';
export {
  addToArray,
  applyEdit,
  applyEdits,
  deleteValue,
  ensureTable,
  findEntries,
  removeEntry,
  removeFromArray,
  setValue,
  upsertEntry,
  type TomlEdit,
} from './edit.js';
