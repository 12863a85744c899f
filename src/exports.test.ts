// Every export of src/ is used outside its own file by production code: by
// another module of src/, or by the build and doc scripts in scripts/. An
// export only its own file uses stops being exported, one nothing uses is
// deleted, and one only tests use is named below in TEST_ONLY_EXPORTS, with
// why a test needs the name rather than the module's exported API. The
// reading is syntactic, like the import-graph test: named imports and
// re-exports count per name; a namespace import, `export *` or a lazy
// `import()` counts every export of the module it names.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/**
 * Exports only tests use, `file#name` → why a test needs the name: production
 * never calls some, and uses the rest only in their own file.
 */
const TEST_ONLY_EXPORTS: Readonly<Record<string, string>> = {
  'src/cli/commands-doc.ts#exitDocDrift':
    'the drift check a test runs: every exit a command documents is one it can give',
  'src/config/key-edits.ts#ENTRY_KEYS':
    "a test proves the list equals the key registry's identity keys",
  'src/config/key-edits.ts#NAME_LIST_KEYS':
    "a test proves the list equals the key registry's union keys",
  'src/credentials/edge-decision.ts#EDGE_RENEW_BEFORE_MS':
    'the renewal boundary the decision tests sit on either side of, to the millisecond',
  'src/credentials/edge-decision.ts#LeafFacts':
    'the shape the decision tests write their store readings in',
  'src/credentials/edge-store.ts#readEdgeStore':
    'tests read back what ensureEdgeSet kept, minted or refused to trust',
  'src/credentials/edge-store.ts#writeEdgeStore':
    'a test fails the write midway to prove the old set survives whole',
  'src/credentials/injection-plan.ts#INJECTION_SENTINEL':
    "tests hold the launcher's literal (which sets it, adr/0084) and the edge's replacement of it to this one value",
  'src/doctor/findings.ts#DISK_FAIL_BYTES':
    "the low-disk failure's boundary the disk tests sit on either side of, to the byte",
  'src/doctor/findings.ts#DISK_WARN_BYTES':
    "the low-disk warning's boundary the disk tests sit on either side of, to the byte",
  'src/engine/detect.ts#judgeRootlessProbe':
    'a test feeds it probe outcomes (a trapped SIGTERM, a signal, an empty answer) no engine gives on demand',
  'src/engine/detect.ts#localPodmanRootless':
    "a test gives it root's and a user's uid; detection passes the process's own, which a test cannot choose",
  'src/engine/idle-probe.ts#systemExecutable':
    'a test owns files as root to prove which podman client is trusted; the pool check behind it scans a live podman',
  'src/exit-report/snapshot.ts#ENV_FILE_LIMIT':
    'a test writes one .env file past the bound to see the walk stop there and say so',
  'src/exit-report/snapshot.ts#HOOK_ENTRY_LIMIT':
    'a test writes one hook past the bound to see the walk stop there and say so',
  'src/gen/shell-exec.ts#SHELL_COMMAND_SCRIPT':
    'the fake box (test/support/fake-box.ts) recognises the script byre shell sends',
  'src/doctor/report.ts#doctorDataJsonSchema':
    "the schema a test checks doctor's --json output against",
  'src/host/runtime-dir.ts#privateDirAt':
    'tests point it at temp dirs (a link, an open or foreign parent) that privateRuntimeDir, fixed to /run/user and /tmp, never names',
  'src/host/runtime-dir.ts#runtimeDirFor':
    "a test gives it other users' uids and sessions; privateRuntimeDir would make those real directories",
  'src/launch/trees-record.ts#TREES_RECORD_MAX_ENTRIES':
    'tests fill the record to its cap, and one past it, to see it refuse',
  'src/launch/trees-record.ts#renderTreesRecord':
    "tests plant a record as byre wrote it (the cli tier's containment tests too) without a launch to write it",
  'src/lifecycle/rehome-project.ts#chooseHelperImage':
    "a test puts a dangling image's bare id before a tag; the fake engine lists every image tagged",
  'src/lifecycle/rehome-project.ts#migrateVolumeArgv':
    'the engine contract (test/support/engine-contract.ts) runs the copy helper on every engine',
  'src/output/redact.ts#clearSecrets': 'resets the process-wide secret registry between tests',
  'src/session/attach.ts#sessionOutcome':
    'a test pins which of a failed proof, credential delivery and wall ends a session; the fake engine cannot fail them together',
  'src/skills/packages/author.ts#packedManifest':
    "tests list a fixed payload into manifests no loadable package holds; packPackage hashes a real package's files",
  'src/skills/packages/author.ts#rebasedManifest':
    'tests rebase manifests no loadable package holds (a bare [package], an id in a string, one that does not parse) to pin the edit alone',
  'src/status/banner.ts#bannerLines':
    "tests hand it the very facts status and the editor's header drew on, to prove they agree; exposureLines recomputes its own",
  'src/status/layout.ts#DEFAULT_MAX_VALUE_LINES':
    "the default tier's line budget the truncation tests count shown and hidden lines by",
  'src/status/layout.ts#MIN_VALUE_WIDTH':
    "the value column's floor the narrow-page tests hold every line to",
  'src/status/layout.ts#wrapValue':
    'tests wrap at 5 to 20 cells, below the 24-cell value floor renderRows keeps, where the break choices show',
  'src/status/wall-events.ts#NO_WALL_EVENTS':
    'the empty wall log, a fixture the denial tests spread',
  'src/status/wall-events.ts#parseWallLine':
    "tests read each event's every field, a resolved line's ttl among them, which parseWallLog drops",
  'src/transfer/box-scripts.ts#DELIVER_FILE_SCRIPT':
    'the fake box (test/support/fake-box.ts) plays a one-file deliver when it sees this script',
  'src/transfer/box-scripts.ts#DELIVER_TAR_SCRIPT':
    'the fake box (test/support/fake-box.ts) plays a tree deliver when it sees this script',
  'src/transfer/box-scripts.ts#GRAB_SCRIPT':
    'the fake box (test/support/fake-box.ts) plays a one-file grab when it sees this script',
  'src/transfer/box-scripts.ts#GRAB_STOP_SCRIPT':
    'the fake box (test/support/fake-box.ts) answers the stop of an abandoned grab by this script',
  'src/transfer/box-scripts.ts#GRAB_TREE_SCRIPT':
    'the fake box (test/support/fake-box.ts) and a grab test tell a tree grab by this script',
  'src/transfer/grab-from-box.ts#partialReasons':
    'a test gives it a broken-stream reason holding an ESC, to see it escaped; no stream error a grab meets carries one',
  'src/transfer/podman-memo.ts#podmanShortcut':
    'tests give it monitor lists and a memo directory; localTransferEngines takes both from a live podman',
  'src/transfer/tar-entry.ts#TAR_NAME_MAX':
    'the name cap the entry tests sit on either side of, counted in bytes',
  'src/transfer/tar-entry.ts#TAR_PATH_MAX':
    'the path cap the entry tests sit on either side of, counted in bytes',
};

const isTest = (rel: string): boolean =>
  /\.test\.(ts|tsx|mjs)$/.test(rel) || rel.startsWith('test/');

function filesUnder(dir: string, exts: RegExp): string[] {
  const abs = path.join(ROOT, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (rel !== 'src/generated') out.push(...filesUnder(rel, exts));
    } else if (exts.test(entry.name)) out.push(rel);
  }
  return out;
}

function parse(rel: string): ts.SourceFile {
  const kind = rel.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(
    rel,
    readFileSync(path.join(ROOT, rel), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    kind,
  );
}

/** The src/ file a relative specifier names, or null (a package, or outside src/). */
function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const stem = base.replace(/\.(m?js|jsx)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}/index.ts`]) {
    if (existsSync(path.join(ROOT, candidate))) return candidate;
  }
  return null;
}

const hasExport = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names a module exports by its own declarations and `export { … }` lists (not re-exports), once each. */
function exportedNames(sf: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      if (
        st.moduleSpecifier === undefined &&
        st.exportClause &&
        ts.isNamedExports(st.exportClause)
      ) {
        names.push(...st.exportClause.elements.map((e) => e.name.text));
      }
      continue;
    }
    if (!hasExport(st)) continue;
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (ts.isIdentifier(d.name)) names.push(d.name.text);
      }
    } else if (
      (ts.isFunctionDeclaration(st) ||
        ts.isClassDeclaration(st) ||
        ts.isInterfaceDeclaration(st) ||
        ts.isTypeAliasDeclaration(st) ||
        ts.isEnumDeclaration(st)) &&
      st.name !== undefined
    ) {
      names.push(st.name.text);
    }
  }
  return [...new Set(names)];
}

/** Adds to `used` every `file#name` (or `file#*`) that `rel` imports or re-exports. */
function collectUses(rel: string, sf: ts.SourceFile, used: Set<string>): void {
  const mark = (spec: ts.Expression | undefined, names: string[] | '*'): void => {
    if (spec === undefined || !ts.isStringLiteral(spec)) return;
    const target = resolve(rel, spec.text);
    if (target === null) return;
    for (const n of names === '*' ? ['*'] : names) used.add(`${target}#${n}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) mark(node.moduleSpecifier, '*');
      else if (bindings) {
        mark(
          node.moduleSpecifier,
          bindings.elements.map((e) => (e.propertyName ?? e.name).text),
        );
      }
      if (clause?.name) mark(node.moduleSpecifier, ['default']);
    } else if (ts.isExportDeclaration(node)) {
      const clause = node.exportClause;
      if (clause && ts.isNamedExports(clause)) {
        mark(
          node.moduleSpecifier,
          clause.elements.map((e) => (e.propertyName ?? e.name).text),
        );
      } else mark(node.moduleSpecifier, '*');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      mark(node.arguments[0], '*');
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg)) mark(arg.literal, '*');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

/** How often `name` appears as an identifier in `sf` (its declaration included). */
function mentions(sf: ts.SourceFile, name: string): number {
  let n = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === name) n++;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return n;
}

interface Finding {
  key: string;
  /** Who uses it besides its declaration: tests only, its own file only, or nothing. */
  use: 'tests' | 'own file' | 'nothing';
}

function findings(): Finding[] {
  const sources = filesUnder('src', /\.(ts|tsx)$/);
  const users = [
    ...sources,
    ...filesUnder('scripts', /\.(ts|mjs)$/),
    ...filesUnder('bench', /\.mjs$/),
  ];
  const testFiles = [...sources.filter(isTest), ...filesUnder('test', /\.(ts|tsx)$/)];
  const parsed = new Map<string, ts.SourceFile>();
  const sf = (rel: string): ts.SourceFile => {
    let s = parsed.get(rel);
    if (s === undefined) parsed.set(rel, (s = parse(rel)));
    return s;
  };
  const prodUse = new Set<string>();
  for (const rel of users.filter((f) => !isTest(f))) collectUses(rel, sf(rel), prodUse);
  const testUse = new Set<string>();
  for (const rel of testFiles) collectUses(rel, sf(rel), testUse);
  const out: Finding[] = [];
  for (const rel of sources.filter((f) => !isTest(f) && f !== 'src/main.ts')) {
    if (prodUse.has(`${rel}#*`)) continue;
    for (const name of exportedNames(sf(rel))) {
      const key = `${rel}#${name}`;
      if (prodUse.has(key)) continue;
      const use =
        testUse.has(key) || testUse.has(`${rel}#*`)
          ? 'tests'
          : mentions(sf(rel), name) > 1
            ? 'own file'
            : 'nothing';
      out.push({ key, use });
    }
  }
  return out;
}

const named = (key: string): boolean => TEST_ONLY_EXPORTS[key] !== undefined;

describe('exports', () => {
  const found = findings();

  it('every export is used outside its file by production code, or named here', () => {
    const stray = found.filter((f) => f.use !== 'tests' || !named(f.key));
    expect(stray.map((f) => `${f.key} (used by ${f.use})`)).toEqual([]);
  });

  it('names only exports that tests alone use, each once, with a reason', () => {
    const testOnly = new Set(found.filter((f) => f.use === 'tests').map((f) => f.key));
    expect(Object.keys(TEST_ONLY_EXPORTS).filter((k) => !testOnly.has(k))).toEqual([]);
    expect(Object.entries(TEST_ONLY_EXPORTS).filter(([, why]) => why.trim() === '')).toEqual([]);
  });
});
