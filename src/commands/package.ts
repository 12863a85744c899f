// `byre skill …` and `byre template …`: list, inspect, install, uninstall,
// fork, init, adopt, validate, pack. Thin orchestration over src/skills/; the
// same verbs serve both kinds. Stdout carries ids, digests and manifests.

import { say, sayAll } from '../output/notes.js';
import path from 'node:path';
import { terminalConfirm, type Confirm, type Io } from '../io.js';
import { DIGEST } from '../config/grammar.js';
import { ByreError, ConfigError, type ConfigIssue } from '../errors.js';
import { escapeTerminal, escapeTerminalBlock } from '../output/escape.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { byreHome } from '../project/store-layout.js';
import { loadCatalog, type CatalogEntry } from '../skills/catalog.js';
import type { PackageKind } from '../skills/manifest/index.js';
import {
  adoptPackage,
  findReferences,
  forkPackage,
  initPackage,
  packPackage,
  syncBundledMirror,
} from '../skills/packages/author.js';
import { fileUri, type FetchOptions } from '../skills/packages/fetch.js';
import { readIndex } from '../skills/packages/index-file.js';
import { syncStoreGuide } from '../project/store-guide.js';
import {
  checkExpectedDigest,
  fetchPackage,
  installFetched,
  uninstallPackage,
} from '../skills/packages/install.js';

export interface PackageDeps {
  confirm?: Confirm;
  fetch?: FetchOptions;
  now?: Date;
}

function homeOf(io: Io): string {
  return byreHome(io.env);
}

function catalogFor(io: Io, kind: PackageKind) {
  return loadCatalog({ home: homeOf(io), kind });
}

async function mirror(io: Io): Promise<void> {
  // Display-only: a failure to refresh either must never block a package verb.
  await syncBundledMirror(homeOf(io)).catch(() => undefined);
  await syncStoreGuide(homeOf(io)).catch(() => undefined);
}

function looksLikeUri(arg: string): boolean {
  return (
    /^[A-Za-z][A-Za-z0-9+.-]*:/.test(arg) ||
    arg.startsWith('/') ||
    arg.startsWith('.') ||
    arg.endsWith('.toml') ||
    arg.endsWith('.config')
  );
}

export function formatIssue(issue: ConfigIssue): string {
  const loc = issue.location;
  const where = [loc.file, loc.line, loc.column].filter((x) => x !== undefined).join(':');
  const key = loc.key === undefined ? '' : ` [${loc.key}]`;
  const fix = issue.fix === undefined ? '' : `\n    → ${issue.fix}`;
  return `  ${where}${key}: ${issue.message} (${issue.rule})${fix}`;
}

/** Issues as detail lines under a `say` line (which indents them itself). */
function issueLines(issues: readonly ConfigIssue[]): string[] {
  return issues.flatMap((i) => formatIssue(i).split('\n')).map((l) => l.replace(/^ {2}/, ''));
}

function statusLabel(entry: CatalogEntry): string {
  if (entry.status === 'invalid') return 'INVALID';
  if (entry.status === 'shadowed') return 'shadowed by local';
  return 'ok';
}

// ---------------------------------------------------------------- list

/** The DESCRIPTION cell: an INVALID package says why instead (its first problem). */
function listDescription(entry: CatalogEntry): string {
  const first = entry.issues[0];
  if (entry.status !== 'invalid' || first === undefined) return entry.description;
  const more = entry.issues.length > 1 ? ` (+${entry.issues.length - 1} more)` : '';
  return `why: ${first.message} [${first.rule}]${more}`;
}

export async function packageListCommand(io: Io, kind: PackageKind): Promise<void> {
  await mirror(io);
  const catalog = catalogFor(io, kind);
  // Ids, versions and descriptions come from package files: escaped like any text byre did not write.
  const rows = catalog.entries.map((e) =>
    [e.id, e.provenance, e.version || '-', statusLabel(e), listDescription(e)].map((cell) =>
      escapeTerminal(cell),
    ),
  );
  const header = ['ID', 'PROVENANCE', 'VERSION', 'STATUS', 'DESCRIPTION'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  io.stdout.write(`${[header, ...rows].map(line).join('\n')}\n`);
  const invalid = catalog.entries.filter((e) => e.status === 'invalid');
  if (invalid.length > 0) {
    for (const e of invalid) say(io.stderr, `${e.id} is INVALID:`, 'plain', issueLines(e.issues));
    say(io.stderr, `${invalid.length} ${kind}(s) INVALID; see byre ${kind} validate`);
  }
}

// ---------------------------------------------------------------- inspect

/** The grant and contribution lines of a package: what inspect shows and a replacement review diffs. */
function describeEntry(entry: CatalogEntry): string[] {
  const lines = [
    `id: ${entry.id}`,
    `provenance: ${entry.provenance}`,
    `version: ${entry.version || '-'}`,
    `description: ${entry.description}`,
  ];
  if (entry.digest !== null) lines.push(`digest: ${entry.digest}`);
  if (entry.uri !== null) lines.push(`source: ${entry.uri}`);
  const s = entry.skill;
  if (s !== null) {
    const list = (label: string, values: readonly string[]): void => {
      for (const v of values) lines.push(`${label}: ${v}`);
    };
    if (s.agent !== null) lines.push(`agent command: ${s.agent.command}`);
    if (s.agent?.state != null) lines.push(`agent state volume: ${s.agent.state}`);
    if (s.meta?.sharedAuthFor != null) lines.push(`shared auth for: ${s.meta.sharedAuthFor}`);
    if (s.meta?.companionFor != null) lines.push(`companion for: ${s.meta.companionFor}`);
    if (s.runtime.networkPosture !== null)
      lines.push(`grant network posture: ${s.runtime.networkPosture}`);
    if (s.runtime.netnsInit !== null) lines.push(`grant netns_init: ${s.runtime.netnsInit}`);
    if (s.runtime.containment !== null)
      lines.push(`grant containment hole: ${s.runtime.containment}`);
    list('grant egress', s.runtime.egress);
    list('offered egress', s.runtime.egressOffered);
    list(
      'grant mount',
      s.runtime.mounts.map((m) => `${m.host} -> ${m.target} (${m.mode})`),
    );
    list('grant socket group', s.runtime.sockGroups);
    list('grant capability', s.runtime.caps);
    list('grant run arg', s.runtime.runArgs);
    list(
      'env',
      Object.entries(s.runtime.env).map(([k, v]) => `${k}=${v}`),
    );
    list(
      'volume',
      s.volumes.map((v) => `${v.name} -> ${v.target} (${v.role}, ${v.scope})`),
    );
    list('apt', s.build.apt);
    if (s.build.node !== null) lines.push(`node: ${s.build.node} (or newer)`);
    list('build line', s.build.dockerfile);
    list(
      'file',
      s.build.files.map((f) => `${f.dest}${f.executable ? ' (executable)' : ''}`),
    );
    list(
      'mcp',
      s.mcp.map((m) => m.name),
    );
    list(
      'claude skill',
      s.claudeSkills.map((c) => c.name),
    );
    if (s.context !== null) lines.push(`context: ${s.context.length} bytes`);
  }
  if (entry.status === 'invalid') {
    lines.push('status: INVALID');
    for (const issue of entry.issues) lines.push(formatIssue(issue).trimStart());
  }
  return lines;
}

export async function packageInspectCommand(
  io: Io,
  kind: PackageKind,
  reference: string,
  deps: PackageDeps = {},
): Promise<void> {
  let entry: CatalogEntry | null;
  if (looksLikeUri(reference)) {
    const fetched = await fetchPackage(reference, kind, {
      cwd: io.cwd,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
    entry = fetched.entry;
    say(io.stderr, `fetched and verified ${fetched.source} (not installed)`);
  } else {
    entry = catalogFor(io, kind).find(reference);
  }
  if (entry === null) {
    throw new ByreError(`no ${kind} named ${reference}`, {
      rule: 'package.not-found',
      remedy: `see byre ${kind} list`,
    });
  }
  // Package text byre did not write: escaped, newlines kept in the template's own text.
  io.stdout.write(`${describeEntry(entry).map(escapeTerminal).join('\n')}\n`);
  if (entry.templateText !== null) io.stdout.write(`\n${escapeTerminalBlock(entry.templateText)}`);
}

// ---------------------------------------------------------------- install / uninstall

function reviewDiff(before: readonly string[], after: readonly string[]): string[] {
  const removed = before.filter((l) => !after.includes(l)).map((l) => `- ${l}`);
  const added = after.filter((l) => !before.includes(l)).map((l) => `+ ${l}`);
  return [...removed, ...added];
}

export async function packageInstallCommand(
  io: Io,
  kind: PackageKind,
  uri: string,
  options: { digest?: string; yes?: boolean },
  deps: PackageDeps = {},
): Promise<void> {
  if (options.digest !== undefined && !DIGEST.test(options.digest)) {
    throw new ByreError(`--digest ${options.digest} is not sha256: plus 64 lowercase hex digits`, {
      rule: 'package.digest-invalid',
      remedy: `copy the digest exactly as byre ${kind} pack printed it`,
    });
  }
  const home = homeOf(io);
  const fetched = await fetchPackage(uri, kind, {
    cwd: io.cwd,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  checkExpectedDigest(fetched, options.digest);
  if (fetched.entry.status !== 'ok') throw new ConfigError(fetched.entry.issues);
  const id = fetched.entry.id;
  const previous = readIndex(home).entries.find((e) => e.id === id);
  if (previous !== undefined && previous.digest !== fetched.digest) {
    const old = loadCatalog({ home, kind }).entries.find(
      (e) => e.provenance === 'installed' && e.id === id,
    );
    const diff = reviewDiff(
      old === undefined ? [] : describeEntry(old),
      describeEntry(fetched.entry),
    );
    say(
      io.stderr,
      `${kind} ${id} is installed at ${previous.digest} (version ${previous.version || '-'}); ` +
        `this replaces it with ${fetched.digest}. What changes:`,
      'plain',
      diff.length > 0 ? diff : ['(no visible contribution changes)'],
    );
    if (options.yes !== true) {
      const confirm = deps.confirm ?? terminalConfirm(io, '--yes');
      if (!(await confirm(`Replace ${id}?`))) {
        throw new ByreError(`kept ${id} at ${previous.digest}; nothing was installed`, {
          rule: 'package.replace-declined',
          remedy: 'rerun with --yes to replace it',
        });
      }
    }
  }
  const outcome = await installFetched(home, fetched, deps.now);
  const verb =
    outcome === 'unchanged'
      ? 'already installed'
      : outcome === 'replaced'
        ? 'replaced'
        : 'installed';
  say(io.stderr, `${verb} ${kind} ${id} ${fetched.entry.version} (${fetched.digest})`);
  const shadow = loadCatalog({ home, kind }).entries.find(
    (e) => e.provenance === 'local' && e.id === id,
  );
  if (shadow !== undefined)
    say(io.stderr, `the local ${kind} at ${shadow.dir ?? ''} shadows it`, 'note');
  if (outcome === 'installed')
    say(io.stderr, `it is inert until a config enables it (skills = ["${id}"])`);
  io.stdout.write(`${fetched.digest}\n`);
}

export async function packageUninstallCommand(
  io: Io,
  kind: PackageKind,
  id: string,
  options: { yes?: boolean },
  deps: PackageDeps = {},
): Promise<void> {
  const home = homeOf(io);
  if (!readIndex(home).entries.some((e) => e.id === id && e.kind === kind)) {
    throw new ByreError(`no installed ${kind} has the id ${id}`, {
      rule: 'package.not-installed',
      remedy: `see byre ${kind} list for what is installed`,
    });
  }
  const refs = findReferences(home, kind, id);
  if (refs.length > 0) {
    say(
      io.stderr,
      `${id} is referenced by:`,
      'plain',
      refs.map((r) => `${r.file} (${r.key})`),
    );
    say(
      io.stderr,
      'those boxes will fail to load until the reference is removed or the package reinstalled',
    );
  }
  if (options.yes !== true) {
    const confirm = deps.confirm ?? terminalConfirm(io, '--yes');
    if (!(await confirm(`Uninstall ${kind} ${id}?`))) {
      throw new ByreError(`kept ${id}`, {
        rule: 'package.uninstall-declined',
        remedy: 'rerun with --yes to uninstall it',
      });
    }
  }
  const removed = await uninstallPackage(home, id, kind);
  say(io.stderr, `uninstalled ${kind} ${id} (${removed.digest})`);
}

// ---------------------------------------------------------------- authoring

export async function packageForkCommand(
  io: Io,
  kind: PackageKind,
  from: string,
  newId: string,
): Promise<void> {
  const entry = await forkPackage(homeOf(io), kind, from, newId);
  say(io.stderr, `forked ${from} into the local ${kind} ${entry.id}; edit it at:`);
  io.stdout.write(`${escapeTerminal(entry.dir ?? '')}\n`);
}

export async function packageInitCommand(io: Io, kind: PackageKind, name: string): Promise<void> {
  const entry = await initPackage(homeOf(io), kind, name);
  say(io.stderr, `created the local ${kind} ${entry.id}; edit it at:`);
  io.stdout.write(`${escapeTerminal(entry.dir ?? '')}\n`);
}

export async function packageAdoptCommand(io: Io, kind: PackageKind, dir: string): Promise<void> {
  const entry = await adoptPackage(homeOf(io), kind, path.resolve(io.cwd, dir));
  say(io.stderr, `${dir} is now the live source of the local ${kind} ${entry.id}`);
  io.stdout.write(`${escapeTerminal(entry.dir ?? '')}\n`);
}

export async function packageValidateCommand(
  io: Io,
  kind: PackageKind,
  name: string | undefined,
): Promise<void> {
  const catalog = catalogFor(io, kind);
  let entries: readonly CatalogEntry[];
  if (name === undefined) entries = catalog.entries;
  else {
    const entry = catalog.find(name);
    if (entry === null) {
      throw new ByreError(`no ${kind} named ${name}`, {
        rule: 'package.not-found',
        remedy: `see byre ${kind} list`,
      });
    }
    entries = [entry];
  }
  const bad = entries.filter((e) => e.status === 'invalid');
  for (const e of entries) {
    io.stdout.write(
      `${e.status === 'invalid' ? 'INVALID' : 'ok'}  ${escapeTerminal(e.id)} (${e.provenance})\n`,
    );
    if (e.status === 'invalid') {
      const lines = e.issues.flatMap((i) => formatIssue(i).split('\n'));
      io.stderr.write(`${lines.map((l) => escapeTerminal(l)).join('\n')}\n`);
    }
  }
  if (bad.length > 0) {
    const first = bad[0]?.issues[0];
    throw new ByreError(`${bad.length} ${kind}(s) failed validation`, {
      rule: first?.rule ?? 'package.invalid',
      remedy: 'fix the issues listed above',
    });
  }
}

export async function packagePackCommand(
  io: Io,
  kind: PackageKind,
  name: string,
  options: { out?: string },
): Promise<void> {
  const home = homeOf(io);
  const out = options.out === undefined ? undefined : path.resolve(io.cwd, options.out);
  const entry = loadCatalog({ home, kind }).find(name);
  const exclude =
    out !== undefined && entry?.dir != null && out.startsWith(`${entry.dir}${path.sep}`)
      ? [path.relative(entry.dir, out).split(path.sep).join('/')]
      : [];
  const packed = packPackage(home, kind, name, exclude);
  // Every read is done: only now touch the output.
  if (out === undefined) io.stdout.write(packed.text);
  else await writeFileAtomic(out, packed.text, 0o644);
  const uri = out === undefined ? '<manifest-url>' : fileUri(out);
  sayAll(io.stderr, [
    `packed ${packed.id} (${packed.files.length} payload file(s))`,
    `digest ${packed.digest}`,
  ]);
  say(
    io.stderr,
    "publish the manifest beside the package's files (srcs are relative to it), then install with:",
    'plain',
    [`byre ${kind} install ${uri} --digest ${packed.digest}`],
  );
  if (out !== undefined) io.stdout.write(`${packed.digest}\n`);
}
