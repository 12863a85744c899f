// The dependency direction, enforced. DIRECTIONS below is the architecture:
// each top-level area (a folder under src/, or a file directly in it) lists
// the areas it may import, and every import in src/ must follow it; the few
// NEVER edges (status never reads the engine adapter, the engine adapter
// never reads config, the core or status, only cli/ dispatches to commands/,
// only main.ts reaches cli/) may not be granted by editing the table. The
// table is acyclic, no module reaches itself through its imports, and the
// README's layout section carries the table as rendered here (adr/0009).
// Static, type-only, re-export and lazy `import()` edges all count: a type
// edge is still a layering decision. Why a test rather than a lint plugin:
// it needs no resolver or new dependency and reads the whole graph in well
// under a second.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(new URL(import.meta.url).pathname);
const README = path.join(SRC, '..', 'README.md');

/**
 * Area → the areas it may import. Read top-down: the command tree and the
 * verbs at the top; a launch's ordered steps (session/) under them; the
 * pure core (gen/) under those, fed by config/ and skills/; the engine adapter (engine/) a leaf that knows only how to speak
 * to docker and podman; errors.ts and io.ts at the bottom. An entry is an
 * area, or one file in an area when only that file may be read.
 */
const DIRECTIONS: Readonly<Record<string, readonly string[]>> = {
  'main.ts': ['cli/', 'output/'],
  'cli/': ['commands/', 'credentials/', 'transfer/', 'embedded.ts', 'errors.ts', 'io.ts'],
  'commands/': [
    'config/',
    'containment/',
    'credentials/',
    'doctor/',
    'engine/',
    'exit-report/',
    'gen/',
    'host/',
    'hostenv/',
    'launch/',
    'lifecycle/',
    'network/',
    'output/',
    'project/',
    'session/',
    'skills/',
    'status/',
    'tomldoc/',
    'transfer/',
    'tui/',
    'embedded.ts',
    'errors.ts',
    'io.ts',
  ],
  // The launch's steps: commands/ wires them, nothing else reads them.
  'session/': [
    'config/',
    'containment/',
    'credentials/',
    'engine/',
    'exit-report/',
    'gen/',
    'host/',
    'hostenv/',
    'launch/',
    'network/',
    'output/',
    'project/',
    'skills/',
    'status/',
    'embedded.ts',
    'errors.ts',
    'io.ts',
  ],
  // What reset, forget, rehome and the editor's volume-data clear share.
  'lifecycle/': [
    'config/',
    'engine/',
    'gen/',
    'host/',
    'output/',
    'project/',
    'session/',
    'errors.ts',
    'io.ts',
  ],
  // What a box would reach on the host, gathered for project/'s pure rules.
  'containment/': [
    'config/',
    'gen/',
    'host/',
    'launch/',
    'output/',
    'project/',
    'skills/',
    'errors.ts',
  ],
  'transfer/': [
    'containment/',
    'engine/',
    'gen/',
    'host/',
    'output/',
    'project/',
    'tui/',
    'errors.ts',
    'io.ts',
  ],
  'tui/': [
    'config/',
    'gen/',
    'host/',
    'hostenv/',
    'output/',
    'project/',
    'skills/',
    'status/',
    'tomldoc/',
    'errors.ts',
  ],
  'credentials/': [
    'config/',
    'engine/',
    'gen/',
    'host/',
    'network/',
    'output/',
    'errors.ts',
    'io.ts',
  ],
  'doctor/': ['engine/', 'gen/', 'output/', 'project/', 'errors.ts', 'zod.ts'],
  'exit-report/': ['config/', 'host/', 'project/', 'transfer/'],
  'status/': ['config/', 'gen/', 'hostenv/', 'launch/', 'output/', 'skills/', 'zod.ts'],
  'network/': ['engine/', 'gen/', 'host/', 'output/', 'status/', 'errors.ts'],
  'launch/': ['gen/', 'host/', 'output/', 'project/', 'errors.ts'],
  'hostenv/': ['config/', 'engine/', 'host/', 'project/', 'errors.ts'],
  // The core reads only the engine's vocabulary: its types and its flag constants.
  'gen/': [
    'config/',
    'engine/argv.ts',
    'engine/types.ts',
    'project/worktree-list.ts',
    'skills/',
    'embedded.ts',
    'errors.ts',
    'zod.ts',
  ],
  'skills/': [
    'config/',
    'host/',
    'output/',
    'project/',
    'tomldoc/',
    'embedded.ts',
    'errors.ts',
    'lazy-deps.ts',
  ],
  'config/': ['host/', 'output/', 'project/', 'tomldoc/', 'errors.ts'],
  'engine/': ['host/', 'project/', 'errors.ts'],
  'project/': ['host/', 'output/', 'embedded.ts', 'errors.ts'],
  // Host IO's safe primitives (adr/0068): above only the error shapes.
  'host/': ['output/', 'errors.ts'],
  'output/': ['errors.ts', 'io.ts'],
  'tomldoc/': [],
  'embedded.ts': ['generated/'],
  'generated/': [],
  'lazy-deps.ts': [],
  'zod.ts': [],
  'io.ts': ['errors.ts'],
  'errors.ts': [],
};

/** Edges no table may grant: `*` is every area but the ones `except` names. */
const NEVER: readonly { from: string; to: string; except?: readonly string[] }[] = [
  { from: 'status/', to: 'engine/' },
  { from: 'engine/', to: 'config/' },
  { from: 'engine/', to: 'gen/' },
  { from: 'engine/', to: 'status/' },
  { from: '*', to: 'commands/', except: ['cli/'] },
  { from: '*', to: 'cli/', except: ['main.ts'] },
  { from: '*', to: 'main.ts' },
];

type Graph = Map<string, Set<string>>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [full] : [];
  });
}

/** Module → the src modules it imports (relative specifiers, `.js` read as `.ts`/`.tsx`). */
function importGraph(files: readonly string[]): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const deps = new Set<string>();
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const base = path.resolve(path.dirname(file), ref.fileName).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`].find((f) => existsSync(f));
      if (target !== undefined) deps.add(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** Strongly connected components with more than one member, or a self-edge (Tarjan). */
function cycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.has(v) === true) out.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** A top-level area: `cli/`, `config/`, …, or a file directly in src/. */
function area(file: string): string {
  const [head = '', ...rest] = path.relative(SRC, file).split(path.sep);
  return rest.length === 0 ? head : `${head}/`;
}

function areaGraph(graph: Graph): Graph {
  const out: Graph = new Map();
  for (const [from, deps] of graph) {
    const a = area(from);
    const edges = out.get(a) ?? new Set<string>();
    out.set(a, edges);
    for (const to of deps) if (area(to) !== a) edges.add(area(to));
  }
  return out;
}

/** Every import that crosses areas against `table`: the ones it does not allow, as `from -> to`. */
function wrongWay(graph: Graph, table: Readonly<Record<string, readonly string[]>>): string[] {
  const allowed = (from: string, to: string): boolean => {
    const row = table[area(from)] ?? [];
    return row.includes(area(to)) || row.includes(path.relative(SRC, to));
  };
  return [...graph].flatMap(([from, deps]) =>
    [...deps]
      .filter((to) => area(to) !== area(from) && !allowed(from, to))
      .map((to) => `${path.relative(SRC, from)} -> ${path.relative(SRC, to)}`),
  );
}

/** The area a table entry is in: itself, or the folder of a one-file entry. */
function entryArea(entry: string): string {
  const [head = '', ...rest] = entry.split('/');
  return rest.length === 0 || entry.endsWith('/') ? entry : `${head}/`;
}

/** The NEVER edges `table` grants, as `from -> to`. */
function neverGranted(table: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(table).flatMap(([from, tos]) =>
    tos
      .map(entryArea)
      .filter((to) =>
        NEVER.some(
          (n) =>
            n.to === to &&
            (n.from === from || (n.from === '*' && n.except?.includes(from) !== true)),
        ),
      )
      .map((to) => `${from} -> ${to}`),
  );
}

/** The table as the README's layout section shows it, between its two markers. */
function renderDirections(table: Readonly<Record<string, readonly string[]>>): string {
  const cell = (a: string): string => `\`src/${a}\``;
  const rows = Object.entries(table).map(
    ([from, tos]) =>
      `| ${cell(from)} | ${tos.length === 0 ? 'nothing in src/' : tos.map(cell).join(', ')} |`,
  );
  return ['| Area | May import |', '|---|---|', ...rows].join('\n');
}

const DIRECTIONS_START = '<!-- directions: src/import-graph.test.ts -->';
const DIRECTIONS_END = '<!-- /directions -->';

const graph = importGraph(sourceFiles(SRC));
const rel = (files: string[]): string[] => files.map((f) => path.relative(SRC, f));

describe('import graph', () => {
  it('reads the real tree (the checks below are not vacuous)', () => {
    const edges = [...graph.values()].reduce((n, deps) => n + deps.size, 0);
    expect(graph.size).toBeGreaterThan(100);
    expect(edges).toBeGreaterThan(300);
    expect(graph.get(path.join(SRC, 'cli/program.ts'))).toContain(
      path.join(SRC, 'commands/develop.ts'),
    );
  });

  it('finds a planted cycle, and none in a chain', () => {
    const g = (edges: [string, string][]): Graph => {
      const out: Graph = new Map();
      for (const [a, b] of edges) {
        out.set(a, (out.get(a) ?? new Set()).add(b));
        if (!out.has(b)) out.set(b, new Set());
      }
      return out;
    };
    expect(
      cycles(
        g([
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'a'],
          ['c', 'd'],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(cycles(g([['a', 'a']]))).toEqual([['a']]);
    expect(
      cycles(
        g([
          ['a', 'b'],
          ['b', 'c'],
          ['a', 'c'],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no cycle between modules', () => {
    expect(cycles(graph).map(rel)).toEqual([]);
  });

  it('has no cycle between top-level areas', () => {
    // Each offending cycle is reported with the file imports that close it.
    const report = cycles(areaGraph(graph)).map((areas) => ({
      areas,
      imports: [...graph].flatMap(([from, deps]) =>
        [...deps]
          .filter((to) => area(to) !== area(from))
          .filter((to) => areas.includes(area(from)) && areas.includes(area(to)))
          .map((to) => `${path.relative(SRC, from)} -> ${path.relative(SRC, to)}`),
      ),
    }));
    expect(report).toEqual([]);
  });

  it('names every area in the directions table, and no area that does not exist', () => {
    const areas = new Set([...areaGraph(graph)].flatMap(([a, deps]) => [a, ...deps]));
    expect([...areas].filter((a) => !(a in DIRECTIONS)).sort()).toEqual([]);
    expect(Object.keys(DIRECTIONS).filter((a) => !areas.has(a))).toEqual([]);
    for (const tos of Object.values(DIRECTIONS)) {
      expect(tos.filter((a) => !(entryArea(a) in DIRECTIONS))).toEqual([]);
      // A one-file entry names a module that exists.
      expect(tos.filter((a) => a !== entryArea(a) && !graph.has(path.join(SRC, a)))).toEqual([]);
    }
  });

  it('finds a planted wrong-way import, and none where the table allows it', () => {
    const file = (f: string): string => path.join(SRC, f);
    const planted: Graph = new Map([
      [file('status/model.ts'), new Set([file('gen/names.ts'), file('engine/types.ts')])],
      [file('engine/types.ts'), new Set([file('engine/host-user.ts')])],
    ]);
    expect(wrongWay(planted, DIRECTIONS)).toEqual(['status/model.ts -> engine/types.ts']);
    expect(wrongWay(planted, { ...DIRECTIONS, 'status/': ['gen/', 'engine/'] })).toEqual([]);
    expect(neverGranted({ ...DIRECTIONS, 'status/': ['gen/', 'engine/'] })).toEqual([
      'status/ -> engine/',
    ]);
    expect(neverGranted({ 'gen/': ['commands/'], 'cli/': ['commands/'] })).toEqual([
      'gen/ -> commands/',
    ]);
    // A one-file entry allows that file only, and cannot smuggle a never edge.
    const core: Graph = new Map([
      [file('gen/run-argv.ts'), new Set([file('engine/argv.ts'), file('engine/runner.ts')])],
    ]);
    expect(wrongWay(core, DIRECTIONS)).toEqual(['gen/run-argv.ts -> engine/runner.ts']);
    expect(neverGranted({ 'status/': ['engine/types.ts'] })).toEqual(['status/ -> engine/']);
  });

  it('imports only in the directions the table allows', () => {
    expect(wrongWay(graph, DIRECTIONS)).toEqual([]);
  });

  it('grants none of the never edges, and has no cycle', () => {
    expect(neverGranted(DIRECTIONS)).toEqual([]);
    const tableGraph: Graph = new Map(
      Object.entries(DIRECTIONS).map(([from, tos]) => [from, new Set(tos.map(entryArea))]),
    );
    expect(cycles(tableGraph)).toEqual([]);
  });

  it("is the table the README's layout section shows", () => {
    const readme = readFileSync(README, 'utf8');
    const layout = readme.slice(readme.indexOf('## Layout'));
    const start = layout.indexOf(DIRECTIONS_START);
    const end = layout.indexOf(DIRECTIONS_END);
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    expect(layout.slice(start + DIRECTIONS_START.length, end).trim()).toBe(
      renderDirections(DIRECTIONS),
    );
  });
});
