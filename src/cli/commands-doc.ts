// docs/COMMANDS.md, rendered from the commander tree itself (every verb, its
// arguments and flags) and the exit-code table beside it, so the page cannot
// drift from the binary: a unit test compares the two. Pure.

import type { Command } from 'commander';

import { COMMAND_EXITS, COMMON_EXITS, type ExitDoc } from './exit-codes.js';

export const COMMANDS_DOC_PATH = 'docs/COMMANDS.md';
const REGENERATE = 'npm run docs';

/** Every command below the root, depth first in registration order, with its path (`skill list`). */
function commandPaths(program: Command): { path: string; command: Command }[] {
  const out: { path: string; command: Command }[] = [];
  const walk = (c: Command, prefix: string): void => {
    for (const sub of c.commands) {
      const p = prefix === '' ? sub.name() : `${prefix} ${sub.name()}`;
      out.push({ path: p, command: sub });
      walk(sub, p);
    }
  };
  walk(program, '');
  return out;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function synopsis(path: string, c: Command): string {
  const args = c.registeredArguments.map((a) => {
    const name = `${a.name()}${a.variadic ? '…' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  const options = c.options.some((o) => !o.hidden) ? ['[options]'] : [];
  const sub = c.commands.length > 0 ? ['<command>'] : [];
  return ['byre', path, ...sub, ...options, ...args].join(' ');
}

/** The shared statuses with this command's own folded in (same code: both meanings). */
function exitRows(path: string): ExitDoc[] {
  const own = COMMAND_EXITS[path] ?? [];
  const rows = COMMON_EXITS.map((e) => {
    const more = own.find((o) => o.code === e.code);
    return more === undefined ? e : { code: e.code, meaning: `${e.meaning}; ${more.meaning}` };
  });
  rows.push(...own.filter((o) => !COMMON_EXITS.some((e) => e.code === o.code)));
  return rows.sort((a, b) => exitOrder(a.code) - exitOrder(b.code));
}

function exitOrder(code: string): number {
  const n = Number.parseInt(code, 10);
  return Number.isNaN(n) ? 1000 : n;
}

function section(path: string, c: Command): string[] {
  const out = [`## byre ${path}`, '', '```', synopsis(path, c), '```', '', c.description(), ''];
  if (c.registeredArguments.length > 0) {
    out.push('| Argument | |', '|---|---|');
    for (const a of c.registeredArguments) {
      out.push(`| \`${a.name()}\`${a.required ? '' : ' (optional)'} | ${cell(a.description)} |`);
    }
    out.push('');
  }
  const options = c.options.filter((o) => !o.hidden);
  if (options.length > 0) {
    out.push('| Flag | |', '|---|---|');
    for (const o of options) out.push(`| \`${o.flags}\` | ${cell(o.description)} |`);
    out.push('');
  }
  if (c.commands.length > 0) {
    out.push(
      `Subcommands: ${c.commands.map((s) => `[\`${s.name()}\`](#${anchor(`byre ${path} ${s.name()}`)})`).join(', ')}.`,
      '',
    );
    return out;
  }
  out.push('| Exit | Meaning |', '|---|---|');
  for (const e of exitRows(path)) out.push(`| ${e.code} | ${cell(e.meaning)} |`);
  out.push('');
  return out;
}

/** GitHub's heading anchor for the headings this page emits (lowercase, spaces to dashes). */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

export function renderCommandsDoc(program: Command): string {
  const paths = commandPaths(program);
  const out = [
    '# byre commands',
    '',
    `<!-- Generated from the command tree by \`${REGENERATE}\` (scripts/commands-doc.ts). Do not edit. -->`,
    '',
    program.description(),
    '',
    'Every command also takes `-h, --help`; `byre --version` is `byre version`.',
    'Exit statuses every command shares:',
    '',
    '| Exit | Meaning |',
    '|---|---|',
    ...COMMON_EXITS.map((e) => `| ${e.code} | ${cell(e.meaning)} |`),
    '',
    '| Command | |',
    '|---|---|',
    ...paths
      .filter((p) => !p.path.includes(' '))
      .map(
        (p) =>
          `| [\`byre ${p.path}\`](#${anchor(`byre ${p.path}`)}) | ${cell(p.command.description().split('\n')[0] ?? '')} |`,
      ),
    '',
  ];
  for (const p of paths) out.push(...section(p.path, p.command));
  return `${out.join('\n').trimEnd()}\n`;
}

/** Command paths with no entry in COMMAND_EXITS, and entries naming no command. */
export function exitDocDrift(program: Command): { missing: string[]; stale: string[] } {
  const paths = commandPaths(program).map((p) => p.path);
  return {
    missing: paths.filter((p) => !(p in COMMAND_EXITS)),
    stale: Object.keys(COMMAND_EXITS).filter((p) => !paths.includes(p)),
  };
}
