// The dependency direction, enforced: no module in src/ reaches itself
// through its imports, and no top-level area (a folder under src/, or a file
// directly in it) depends on one that depends back on it. Static, type-only,
// re-export and lazy `import()` edges all count: a type cycle is still a
// layering mistake. Why a test rather than a lint plugin: it needs no
// resolver or new dependency and reads the whole graph in well under a second.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(new URL(import.meta.url).pathname);

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
});
