// Every `byre <verb>` that byre tells a person or an agent — a remedy, a note,
// a status row, a bundled skill's agent-facing text or script, a template's
// comments — names a command that exists in this build's command tree. A verb
// the reference has and this build does not (`byre config`, `byre preset`), or
// any word quoted as code (`byre frobnicate`), fails here rather than in front
// of a user; an unquoted word that is no verb is prose ("byre never pulls").

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

import { fakeIo } from '../../test/support/io.js';
import { buildProgram } from './program.js';
import { describeTree, type CommandSpec } from './tree.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/**
 * Words that read as a command wherever they follow "byre": the reference's
 * verbs (some of which this build lacks) and every subcommand name. Any other
 * word is prose ("byre never pulls") unless it is quoted as code (`byre x`).
 */
const REFERENCE_VERBS = new Set([
  'develop',
  'config',
  'dockerfile',
  'dockerrun',
  'ejectfirewall',
  'status',
  'shell',
  'deliver',
  'grab',
  'worktree',
  'skill',
  'template',
  'layer',
  'mcp',
  'claude-skill',
  'context',
  'preset',
  'reset',
  'rebuild',
  'rehome',
  'forget',
  'version',
  'completion',
  'doctor',
  'credential',
  'validate',
  'pack',
]);

/**
 * The config reference (docs/CONFIG.md, rendered from keys.ts and
 * config-doc.ts) and the editor's rows for the same keys describe verbs being
 * built alongside them (`worktree_base` is for `byre worktree`): each may be
 * named there, and only there, until it lands in the command tree. Remedies
 * and printed hints never may.
 */
const PLANNED_IN_REFERENCE: Readonly<Record<string, string>> = {};
const REFERENCE_FILES = new Set([
  'src/config/keys.ts',
  'src/config/config-doc.ts',
  'src/tui/model/config-editor/items-other.ts',
]);

/** Stands for an interpolated `${…}` in a template literal: any command. */
const ANY = '*';

interface Mention {
  where: string;
  text: string;
  verb: string;
  sub: string | undefined;
  /** Quoted as code: `` `byre x` ``. */
  quoted: boolean;
}

/** Every `byre <word> [<word>]` in a text. */
function mentions(where: string, text: string): Mention[] {
  return [...text.matchAll(/\bbyre ([a-z*][a-z-]*)(?: ([a-z][a-z-]*))?/g)].map((m) => ({
    where,
    text: m[0],
    verb: m[1] ?? '',
    sub: m[2],
    quoted: m.index > 0 && text[m.index - 1] === '`',
  }));
}

/** Why a mention names no command of `tree`, or null when it is prose or a real command. */
function problem(
  tree: CommandSpec,
  m: Mention,
  planned: Readonly<Record<string, string>> = PLANNED_IN_REFERENCE,
): string | null {
  const groups = tree.subcommands.filter((c) => c.subcommands.length > 0);
  const subNames = new Set(groups.flatMap((g) => g.subcommands.map((c) => c.name)));
  if (m.verb === ANY) {
    // `byre ${kind} pack`: some group must have the subcommand.
    if (m.sub === undefined || subNames.has(m.sub) || !KNOWN_SUBCOMMANDS.has(m.sub)) return null;
    return `"${m.text}": no command group has a subcommand ${m.sub}`;
  }
  const command = tree.subcommands.find((c) => c.name === m.verb);
  if (command === undefined) {
    const claimed = m.quoted || REFERENCE_VERBS.has(m.verb) || subNames.has(m.verb);
    if (!claimed) return null;
    if (REFERENCE_FILES.has(m.where) && m.verb in planned) return null;
    return `"${m.text}": byre has no command ${m.verb}`;
  }
  if (command.subcommands.length === 0 || m.sub === undefined) return null;
  if (command.subcommands.some((c) => c.name === m.sub)) return null;
  // "byre skill fork" must be a subcommand; "byre skill in the store" is prose.
  return subNames.has(m.sub) || KNOWN_SUBCOMMANDS.has(m.sub)
    ? `"${m.text}": byre ${m.verb} has no subcommand ${m.sub}`
    : null;
}

/** Subcommand names the reference's groups have, some of which this build lacks. */
const KNOWN_SUBCOMMANDS = new Set([
  'list',
  'inspect',
  'install',
  'uninstall',
  'fork',
  'init',
  'adopt',
  'validate',
  'pack',
  'archive-legacy',
  'new',
  'add',
  'remove',
  'apply',
]);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : files(full);
    return [full];
  });
}

/** Every string a source file could show: literals, and template literals with `${…}` as ANY. */
function stringsOf(file: string, source: string): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    else if (ts.isTemplateExpression(node)) {
      out.push(node.head.text + node.templateSpans.map((s) => ANY + s.literal.text).join(''));
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false));
  return out;
}

const tree = describeTree(buildProgram(fakeIo()));

/** This build's tree without `byre worktree`: a reference verb not built yet, for the cases below. */
const lacking: CommandSpec = {
  ...tree,
  subcommands: tree.subcommands.filter((c) => c.name !== 'worktree'),
};

function allMentions(): Mention[] {
  const src = files(path.join(ROOT, 'src')).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
  );
  const fromSource = src.flatMap((file) =>
    stringsOf(file, readFileSync(file, 'utf8')).flatMap((text) =>
      mentions(path.relative(ROOT, file), text),
    ),
  );
  const packaged = [...files(path.join(ROOT, 'skills')), ...files(path.join(ROOT, 'templates'))];
  const fromPackages = packaged.flatMap((file) =>
    mentions(path.relative(ROOT, file), readFileSync(file, 'utf8')),
  );
  return [...fromSource, ...fromPackages];
}

describe('commands byre names', () => {
  const cases: [string, string, string | null][] = [
    ['a command', 'run `byre develop` here', null],
    ['a group subcommand', 'then byre skill fork it', null],
    ['an interpolated group', `make one with byre ${ANY} pack`, null],
    ['an interpolated verb', `then run byre ${ANY} again`, null],
    [
      'an interpolated group lacking the subcommand',
      `byre ${ANY} archive-legacy`,
      'no command group has',
    ],
    ['prose', 'byre never pulls', null],
    ['prose naming a noun', 'a byre store', null],
    ['a group in prose', 'the byre skill is bundled', null],
    ['a verb this build lacks', 'make one with `byre worktree`', 'byre has no command worktree'],
    ['a group verb this build lacks', 'byre worktree add x', 'byre has no command worktree'],
    ['a missing subcommand', 'byre skill archive-legacy', 'byre skill has no subcommand'],
    ['a subcommand without its group', 'fix it: byre validate', 'byre has no command validate'],
    ['an unknown word quoted as code', 'run `byre frobnicate`', 'byre has no command frobnicate'],
    ['a reference verb this build lacks', 'run byre worktree feat', 'byre has no command worktree'],
  ];
  it.each(cases)('reads %s', (_name, text, expected) => {
    const found = mentions('t', text).map((m) => problem(lacking, m));
    expect(found).toHaveLength(1);
    if (expected === null) expect(found[0]).toBeNull();
    else expect(found[0]).toContain(expected);
  });

  it('a verb being built may be named in the config reference only', () => {
    const [inReference] = mentions('src/config/keys.ts', 'where `byre worktree` puts them');
    const [inHint] = mentions('src/commands/onboard.ts', 'create one with byre worktree');
    const planned = { worktree: 'issue 17' };
    expect(inReference && problem(lacking, inReference, planned)).toBeNull();
    expect(inHint && problem(lacking, inHint, planned)).toContain('byre has no command worktree');
    expect(inReference && problem(lacking, inReference)).toContain('byre has no command worktree');
  });

  it('reads string literals and template literals, not comments', () => {
    const text = stringsOf(
      'x.ts',
      '// byre config\nconst a = "byre develop"; const b = `byre ${k} pack`;',
    ).join('|');
    expect(text).toBe(`byre develop|byre ${ANY} pack`);
  });

  it('every byre <verb> in src/, skills/ and templates/ is a command of this build', () => {
    const all = allMentions();
    expect(all.length).toBeGreaterThan(50);
    const problems = all.flatMap((m) => {
      const why = problem(tree, m);
      return why === null ? [] : [`${m.where}: ${why}`];
    });
    expect(problems).toEqual([]);
  }, 30_000);

  it('the firewall skill tells the agent how the user opens a host, with a command that exists', () => {
    const text = readFileSync(path.join(ROOT, 'skills/firewall/skill.toml'), 'utf8');
    const named = mentions('firewall', text);
    expect(named.map((m) => m.verb)).toEqual(['config', 'status']);
    expect(text).toContain('`egress`');
  });
});
