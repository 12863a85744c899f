// docs/CONFIG.md as a function of the key registry (keys.ts): every key with
// its type, merge rule, grammar, example, the layers that may set it and the
// rule ids that police it. Pure; scripts/config-doc.ts writes the page and
// src/config/config-doc.test.ts fails when the checked-in page drifts.

import {
  configKeys,
  configKey,
  FILE_RULES,
  LAYER_FILE_KINDS,
  mergeText,
  SECTION_ORDER,
  SECTION_TITLES,
  type ConfigKeyInfo,
  type FieldDoc,
  type LayerFileKind,
} from './keys.js';
import { describeShape, type ValueShape } from './shape.js';

export const CONFIG_DOC_PATH = 'docs/CONFIG.md';
const CONFIG_DOC_REGENERATE = 'npm run docs:config';

const FILE_OF: Readonly<Record<LayerFileKind, string>> = {
  default: 'default.config',
  template: 'template.config',
  layer: 'layer.config',
  project: 'byre.config',
};

const INTRO = `# Configuration reference

<!-- Generated from src/config/keys.ts by \`${CONFIG_DOC_REGENERATE}\`; do not edit by hand. -->

Every key a byre config file may carry. A box's config is a cascade of TOML
files, merged lowest first:

| Layer | File | Who writes it |
|---|---|---|
| core | built in | git identity, TERM and TZ passthrough; engine \`auto\`; base \`debian:bookworm\` |
| default | \`~/.byre/default.config\` | you: your baseline for every box (\`--global\` on the verbs) |
| template | \`~/.byre/templates/<name>/template.config\`, or a bundled one | the template the project selects |
| layer | \`~/.byre/layers/<name>/layer.config\` | named layers, chained by \`extends\`, root first (\`--layer <name>\`) |
| project | \`~/.byre/projects/<id>/byre.config\` | this project's consent document (the verbs' default target) |

\`~/.byre\` is \`$BYRE_HOME\` when set. The project file lives in byre's store,
never in the project tree, so the boxed agent cannot edit its own sandbox.
\`default.config\` and a named layer may be symbolic links to a regular file
(a dotfiles repository): byre reads through them, never writes through them,
and keeps every box away from the file they lead to.
\`byre status\` names the files that make up the cascade for the directory you
are in. Change a file by hand, or with \`byre mcp|claude-skill|context
add|remove\`, \`byre layer new\` and \`byre preset apply\`: every write byre
makes keeps your comments and layout, and is refused (leaving the file as it
was) when the result would not load.

A key byre does not know is refused with its file, line and column, and the
known key it is most likely a typo of. Every refusal carries a rule id, listed
with each key below.
`;

function code(text: string): string {
  return `\`${text}\``;
}

function layersText(k: ConfigKeyInfo): string {
  const names = k.layers.map((kind) => code(FILE_OF[kind]));
  if (k.layers.length === LAYER_FILE_KINDS.length) return `any (${names.join(', ')})`;
  return names.join(', ');
}

function fieldLines(
  fields: Readonly<Record<string, FieldDoc>>,
  shape: ValueShape | undefined,
  prefix: string,
): string[] {
  const shapes = shape?.kind === 'table' ? shape.fields : {};
  return Object.entries(fields).flatMap(([name, doc]) => {
    const fieldShape = shapes[name];
    const type = fieldShape === undefined ? '' : ` (${describeShape(fieldShape)})`;
    const required = doc.required === true ? ' Required.' : '';
    const own = `| ${code(prefix + name)} | ${type.slice(2, -1) || '—'} | ${doc.summary}${required} |`;
    return doc.fields === undefined
      ? [own]
      : [own, ...fieldLines(doc.fields, fieldShape, `${prefix}${name}.`)];
  });
}

/** The shape of one entry of a list or map of tables. */
function entryShape(shape: ValueShape): ValueShape | undefined {
  // A map of lists (`[[inject.KEY]]`) documents the tables of its lists.
  if (shape.kind === 'list' || shape.kind === 'map') return entryShape(shape.of);
  return shape.kind === 'table' ? shape : undefined;
}

function keySection(k: ConfigKeyInfo): string {
  const lines = [
    `### ${code(k.key)}`,
    '',
    k.summary,
    '',
    `- **Type:** ${k.type}`,
    `- **Merge:** ${mergeText(k.merge)}`,
    `- **Grammar:** ${k.grammar}`,
    `- **Set in:** ${layersText(k)}`,
  ];
  if (k.rules.length > 0) lines.push(`- **Refused with:** ${k.rules.map(code).join(', ')}`);
  if (k.note !== undefined) lines.push(`- **Note:** ${k.note}`);
  if (k.fields !== undefined) {
    lines.push(
      '',
      '| Field | Type | Meaning |',
      '|---|---|---|',
      ...fieldLines(k.fields, entryShape(k.shape), ''),
    );
  }
  lines.push('', '```toml', k.example, '```', '');
  return lines.join('\n');
}

/** The whole page. */
export function renderConfigDoc(): string {
  const sections = SECTION_ORDER.flatMap((section) => {
    const keys = configKeys().filter((key) => configKey(key).section === section);
    if (keys.length === 0) return [];
    return [`## ${SECTION_TITLES[section]}\n`, ...keys.map((key) => keySection(configKey(key)))];
  });
  const fileRules = [
    '## Refusals about a whole file\n',
    '| Rule | Meaning |',
    '|---|---|',
    ...Object.entries(FILE_RULES).map(([rule, meaning]) => `| ${code(rule)} | ${meaning} |`),
    '',
  ];
  return `${[INTRO, ...sections, ...fileRules].join('\n').trimEnd()}\n`;
}
