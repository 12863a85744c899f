// `byre layer new|list|validate`: named layers (~/.byre/layers/<name>/
// layer.config) are plain files that projects and other layers build on with
// `extends`. new scaffolds one through the config writer; list and validate
// walk each chain root-first, naming a loop or the file a dangling parent
// needs.

import { say } from '../output/notes.js';
import path from 'node:path';

import { layerDirNames, readExtendsChain, readLayerFile, type LayerFile } from '../config/read.js';
import { layerNameProblem } from '../config/rules/index.js';
import { layerConfigFile, writeConfig } from '../config/write.js';
import { ByreError, ConfigError, UsageError, type ConfigIssue } from '../errors.js';
import type { Io } from '../io.js';
import { escapeTerminal, escapeTerminalBlock } from '../output/escape.js';
import { ensurePrivateDir } from '../host/atomic-write.js';
import { byreHome } from '../project/store-layout.js';
import { applyEdits } from '../tomldoc/index.js';
import { formatIssue } from './package.js';

function checkName(name: string, what: string): void {
  const problem = layerNameProblem(name);
  if (problem !== null) {
    throw new UsageError(`${what} ${JSON.stringify(name)}: ${problem}`, {
      rule: 'layer.name-invalid',
      remedy: 'name the layer with lowercase letters, digits and "-"',
    });
  }
}

/** The scaffold `layer new` writes (pure). */
function layerScaffold(name: string, parent: string | undefined): string {
  const header = [
    `# byre layer "${name}": a shared baseline. A project (or another layer) builds`,
    `# on it with extends = "${name}"; editing it changes every extending box's next`,
    '# launch. Every key in docs/CONFIG.md but template may go here.',
    `# Check it with: byre layer validate ${name}`,
    '',
  ].join('\n');
  return parent === undefined
    ? header
    : applyEdits(header, [{ op: 'set', path: ['extends'], value: parent }]);
}

interface Walked {
  name: string;
  file: LayerFile | null;
  /** Root first, ending with this layer; only as far as the walk got. */
  chain: string[];
  issues: ConfigIssue[];
}

function walk(home: string, name: string): Walked {
  const file = readLayerFile(layerConfigFile(home, name).path, 'layer', name);
  if (file === null) {
    const where = layerConfigFile(home, name).path;
    return {
      name,
      file,
      chain: [name],
      issues: [
        {
          rule: 'layer.missing',
          message: `layer ${name} has no ${path.basename(where)} — create ${where}`,
          location: { file: where },
          fix: `byre layer new ${name}`,
        },
      ],
    };
  }
  if (file.value === null) return { name, file, chain: [name], issues: file.issues };
  const { chain, issues } = readExtendsChain(home, file);
  return { name, file, chain: [...chain.map((l) => l.ref.name), name], issues };
}

export async function layerNewCommand(
  io: Io,
  name: string,
  options: { extends?: string },
): Promise<void> {
  checkName(name, 'layer');
  const home = byreHome(io.env);
  const parent = options.extends;
  if (parent !== undefined) {
    checkName(parent, '--extends');
    if (parent === name) {
      throw new UsageError(`layer ${name} cannot extend itself`, {
        rule: 'layer.extends-self',
        remedy: 'name another layer, or leave --extends out',
      });
    }
    const up = walk(home, parent);
    // The parent's chain dangling at this very name: creating it would close a loop.
    const loop = up.issues.some(
      (i) =>
        i.rule === 'config.extends-missing' && i.message.startsWith(`layer "${name}" not found`),
    );
    if (loop) {
      throw new ByreError(
        `extends cycle: ${[name, ...[...up.chain].reverse(), name].join(' -> ')}`,
        {
          rule: 'config.extends-cycle',
          remedy: `pick a parent whose chain does not reach ${name}`,
        },
      );
    }
    if (up.issues.length > 0) throw new ConfigError(up.issues);
  }
  const file = layerConfigFile(home, name);
  await ensurePrivateDir(path.dirname(path.dirname(file.path)));
  await ensurePrivateDir(path.dirname(file.path));
  await writeConfig(file, () => layerScaffold(name, parent), { createOnly: true });
  io.stdout.write(`${escapeTerminal(file.path)}\n`);
  say(
    io.stderr,
    `created layer ${name}${parent === undefined ? '' : ` (extends ${parent})`}; a project uses it with extends = "${name}"`,
  );
}

export async function layerListCommand(io: Io): Promise<void> {
  const home = byreHome(io.env);
  const names = layerDirNames(home);
  if (names.length === 0) {
    io.stdout.write('(no layers)\n');
    say(io.stderr, 'make one with byre layer new <name>');
    return;
  }
  const rows = names.map((name) => {
    const w = walk(home, name);
    const first = w.issues[0];
    return [name, w.chain.join(' -> '), first === undefined ? 'ok' : `BROKEN: ${first.message}`];
  });
  const all = [['NAME', 'CHAIN (root first)', 'STATUS'], ...rows];
  const widths = [0, 1].map((i) => Math.max(...all.map((r) => [...(r[i] ?? '')].length)));
  for (const r of all) {
    const line = `${(r[0] ?? '').padEnd(widths[0] ?? 0)}  ${(r[1] ?? '').padEnd(widths[1] ?? 0)}  ${r[2] ?? ''}`;
    io.stdout.write(`${escapeTerminal(line.trimEnd())}\n`);
  }
}

export async function layerValidateCommand(io: Io, name: string | undefined): Promise<void> {
  const home = byreHome(io.env);
  if (name !== undefined) checkName(name, 'layer');
  const names = name === undefined ? layerDirNames(home) : [name];
  const broken: Walked[] = [];
  for (const n of names) {
    const w = walk(home, n);
    io.stdout.write(
      `${escapeTerminal(`${w.issues.length === 0 ? 'ok' : 'BROKEN'}  ${n}  (${w.chain.join(' -> ')})`)}\n`,
    );
    if (w.issues.length > 0) {
      broken.push(w);
      io.stderr.write(`${w.issues.map((i) => escapeTerminalBlock(formatIssue(i))).join('\n')}\n`);
    }
    for (const warning of w.file?.warnings ?? [])
      io.stderr.write(`${escapeTerminalBlock(formatIssue(warning))}\n`);
  }
  const first = broken[0]?.issues[0];
  if (first !== undefined) {
    throw new ByreError(`${broken.length} layer(s) failed validation`, {
      rule: first.rule,
      remedy: 'fix the issues listed above',
    });
  }
}
