// References a maintainer can follow: every decision record cited in src/
// exists in adr/, nothing cites a section of a document outside this
// repository, adr/README.md indexes every record with tests that exist, and
// the README's command table matches the command tree.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { buildProgram } from './cli/program.js';
import { describeTree } from './cli/tree.js';
import { fakeIo } from '../test/support/io.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SRC = path.join(ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : files(full);
    return [full];
  });
}

const ADR_FILES = readdirSync(path.join(ROOT, 'adr')).filter((f) => /^\d{4}-.*\.md$/.test(f));
const ADR_NUMBERS = new Set(ADR_FILES.map((f) => f.slice(0, 4)));

/** `ADR 0007`, `ADRs 0001, 0041`, `ADR 0020/0030`, `adr/0003`: every number cited. */
function citedAdrs(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b(?:ADRs?[ -]?|adr\/)(\d{4}(?:\s*(?:,|\/|and|or)\s*\d{4})*)/g)) {
    out.push(...(m[1]?.match(/\d{4}/g) ?? []));
  }
  return out;
}

const SELF = path.join(SRC, 'references.test.ts');
const sources = files(SRC)
  .filter((file) => file !== SELF)
  .map((file) => ({ file: path.relative(ROOT, file), text: readFileSync(file, 'utf8') }));

describe('decision records', () => {
  it('reads citations in every form the code uses', () => {
    expect(citedAdrs('(ADR 0007) ADRs 0001, 0041 and 0042; ADR 0020/0030 adr/0003.')).toEqual([
      '0007',
      '0001',
      '0041',
      '0042',
      '0020',
      '0030',
      '0003',
    ]);
    expect(citedAdrs('ADDR 1234, adr/x, 10000 ADR')).toEqual([]);
  });

  it('every ADR cited in src/ exists in adr/', () => {
    const cited = sources.flatMap(({ file, text }) => citedAdrs(text).map((n) => ({ file, n })));
    expect(cited.length).toBeGreaterThan(5);
    expect(cited.filter(({ n }) => !ADR_NUMBERS.has(n))).toEqual([]);
  });

  it('no comment cites a section or order of a document outside the repository', () => {
    const outside = /\breference(?:'s)? (?:section|order)|\bsection \d+\b/i;
    expect(sources.filter(({ text }) => outside.test(text)).map(({ file }) => file)).toEqual([]);
  });

  it('adr/README.md indexes every record, each with enforcing tests that exist', () => {
    const index = readFileSync(path.join(ROOT, 'adr/README.md'), 'utf8');
    const rows = index.split('\n').filter((line) => /^\| \[\d{4}\]/.test(line));
    expect(rows.map((row) => /\]\(([^)]+)\)/.exec(row)?.[1]).sort()).toEqual([...ADR_FILES].sort());
    for (const row of rows) {
      const enforcedBy = row.split('|').at(-2) ?? '';
      const paths = [...enforcedBy.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
      expect(paths.length, row).toBeGreaterThan(0);
      expect(
        paths.filter((p) => !existsSync(path.join(ROOT, p))),
        row,
      ).toEqual([]);
    }
  });
});

describe("the README's command table", () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const table = /^## Commands\n([\s\S]*?)\n## /m.exec(readme)?.[1] ?? '';
  const rows = table.split('\n').filter((l) => l.startsWith('| `byre'));
  const tree = describeTree(buildProgram(fakeIo()));

  it('names exactly the commands byre has', () => {
    const named = rows.flatMap((row) => [...row.matchAll(/`byre ([a-z-]+)/g)].map((m) => m[1]));
    expect(new Set(named)).toEqual(new Set(tree.subcommands.map((c) => c.name)));
  });

  it('lists every subcommand of a command group on its row', () => {
    for (const group of tree.subcommands.filter((c) => c.subcommands.length > 0)) {
      const row = rows.find((r) => r.includes(`\`byre ${group.name} `)) ?? '';
      const missing = group.subcommands.map((c) => c.name).filter((n) => !row.includes(n));
      expect(missing, group.name).toEqual([]);
    }
  });
});
