// Every `byre <verb>` that byre tells a person or an agent — a remedy, a note,
// a status row, a bundled skill's agent-facing text or script, a template's
// comments — names a command that exists in this build's command tree. A verb
// the reference has and this build does not (`byre config`, `byre layer new`)
// fails here rather than in front of a user.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

import { fakeIo } from '../../test/support/io.js';
import { buildProgram } from './program.js';
import { describeTree, type CommandSpec } from './tree.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/**
 * Words that follow "byre " in prose ("byre never pulls", "a byre box"): not
 * verbs. A new sentence may need its word here; a verb never belongs here.
 */
const PROSE = new Set([
  'again',
  'always',
  'and',
  'as',
  'before',
  'binary',
  'box',
  'bundles',
  'cannot',
  'core',
  'credential',
  'declined',
  'derives',
  // An image metadata tag (transfer/app/icon.ts), not a command.
  'deliver-app',
  'did',
  'does',
  'elsewhere',
  'executable',
  'from',
  'guards',
  'has',
  'is',
  'launch',
  'makes',
  'names',
  'needs',
  'never',
  'no',
  'on',
  'or',
  'outside',
  'path',
  'printed',
  'project',
  'read',
  'reads',
  'refuses',
  'regenerates',
  'reported',
  'runs',
  'security',
  'setup',
  'speaks',
  'that',
  'there',
  'told',
  'uses',
  'was',
  'will',
  'writes',
  'yet',
  'you',
]);

/**
 * The config reference (docs/CONFIG.md, rendered from these files) describes
 * verbs being built alongside it: each may be named there, and only there,
 * until it lands in the command tree. Remedies and printed hints never may.
 */
const PLANNED_IN_REFERENCE: Record<string, string> = {
  mcp: 'issue 14',
  'claude-skill': 'issue 14',
  context: 'issue 14',
  layer: 'issue 14',
  preset: 'not scheduled',
  worktree: 'issue 17',
  config: 'issue 15',
};
const REFERENCE_FILES = new Set(['src/config/keys.ts', 'src/config/config-doc.ts']);

/** Stands for an interpolated `${…}` in a template literal: any command. */
const ANY = '*';

interface Mention {
  where: string;
  text: string;
  verb: string;
  sub: string | undefined;
}

/** Every `byre <word> [<word>]` in a text. */
function mentions(where: string, text: string): Mention[] {
  return [...text.matchAll(/\bbyre ([a-z*][a-z-]*)(?: ([a-z][a-z-]*))?/g)].map((m) => ({
    where,
    text: m[0],
    verb: m[1] ?? '',
    sub: m[2],
  }));
}

/** Why a mention names no command of `tree`, or null when it is prose or a real command. */
function problem(tree: CommandSpec, m: Mention): string | null {
  const groups = tree.subcommands.filter((c) => c.subcommands.length > 0);
  const subNames = new Set(groups.flatMap((g) => g.subcommands.map((c) => c.name)));
  if (m.verb === ANY) {
    // `byre ${kind} pack`: some group must have the subcommand.
    if (m.sub === undefined || subNames.has(m.sub) || !KNOWN_SUBCOMMANDS.has(m.sub)) return null;
    return `"${m.text}": no command group has a subcommand ${m.sub}`;
  }
  const command = tree.subcommands.find((c) => c.name === m.verb);
  if (command === undefined && REFERENCE_FILES.has(m.where) && m.verb in PLANNED_IN_REFERENCE) {
    return null;
  }
  if (command === undefined) {
    return PROSE.has(m.verb)
      ? null
      : `"${m.text}": byre has no command ${m.verb} (if this is prose, add "${m.verb}" to PROSE)`;
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
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true));
  return out;
}

const tree = describeTree(buildProgram(fakeIo()));

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
    ['an interpolated group lacking the subcommand', `byre ${ANY} apply`, 'no command group has'],
    ['prose', 'byre never pulls', null],
    ['a group in prose', 'the byre skill is bundled', null],
    ['a verb this build lacks', 'add it in `byre config`', 'byre has no command config'],
    ['a group verb this build lacks', 'byre layer new corp', 'byre has no command layer'],
    ['a missing subcommand', 'byre skill archive-legacy', 'byre skill has no subcommand'],
    ['a subcommand without its group', 'fix it: byre validate', 'byre has no command validate'],
    ['an unknown word', 'run byre doctor', 'byre has no command doctor'],
  ];
  it.each(cases)('reads %s', (_name, text, expected) => {
    const found = mentions('t', text).map((m) => problem(tree, m));
    expect(found).toHaveLength(1);
    if (expected === null) expect(found[0]).toBeNull();
    else expect(found[0]).toContain(expected);
  });

  it('a verb being built may be named in the config reference only', () => {
    const [inReference] = mentions('src/config/keys.ts', '`byre mcp add|remove|list` edits them');
    const [inHint] = mentions('src/box/onboard.ts', 'edit it with byre mcp');
    expect(inReference && problem(tree, inReference)).toBeNull();
    expect(inHint && problem(tree, inHint)).toContain('byre has no command mcp');
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
  });

  it('the firewall skill tells the agent how the user opens a host, with a command that exists', () => {
    const text = readFileSync(path.join(ROOT, 'skills/firewall/skill.toml'), 'utf8');
    const named = mentions('firewall', text);
    expect(named.map((m) => m.verb)).toEqual(['status']);
    expect(text).toContain('`egress`');
  });
});
