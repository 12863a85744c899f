// Turns a validated SkillManifest plus its package tree into the ResolvedSkill
// the generator reads: payload files located, staged paths assigned, context
// read. Pure over the injected tree; the catalog supplies real files.

import path from 'node:path';
import type { ConfigIssue } from '../errors.js';
import { indexKeys, type PathSegment } from '../config/locate.js';
import { locateFinding } from '../config/parse.js';
import type { Finding } from '../config/rules/index.js';
import { MAX_CONTEXT_BYTES, type SkillManifest } from './manifest/index.js';
import { claudeSkillProblems, type FoundEntry } from './claude-skill.js';
import type { ClaudeSkillFile, Provenance, ResolvedSkill, SkillFile } from './types.js';

/** A package's files as the resolver sees them, whatever the provenance. */
export interface PackageTree {
  /** Every regular payload file, package-relative with `/`, sorted; dot-entries and the manifest excluded. */
  list(): string[];
  /** A file's bytes; null when absent. */
  read(rel: string): Uint8Array | null;
  executable(rel: string): boolean;
  /** Whether `rel` (file or directory) is a symlink leading outside the package. */
  escapes(rel: string): boolean;
  /** Whether `rel` was reached through a symlink (inside the package); absent means never. */
  linked?(rel: string): boolean;
  /** Whether `rel` is a directory of the package, empty ones too; absent means only those holding files. */
  isDir?(rel: string): boolean;
}

/** An in-memory tree, for bundled and installed packages and for tests. */
export function memoryTree(
  files: Readonly<Record<string, { content: Uint8Array; executable: boolean }>>,
): PackageTree {
  const names = Object.keys(files).sort();
  return {
    list: () => names,
    read: (rel) => files[rel]?.content ?? null,
    executable: (rel) => files[rel]?.executable ?? false,
    escapes: () => false,
  };
}

interface MaterializeInput {
  id: string;
  provenance: Provenance;
  manifest: SkillManifest;
  tree: PackageTree;
  /** The manifest's path or label, for issues. */
  file: string;
  /** The manifest text, to locate issues by line; optional. */
  text?: string;
  digest?: string | null;
  dir?: string | null;
}

function normalizeRel(src: string): string {
  const n = path.posix.normalize(src).replace(/\/+$/, '');
  return n === '' ? '.' : n;
}

/** The payload files a package-relative source names: a file, a directory, or "." (everything). */
function filesUnder(tree: PackageTree, src: string): string[] | null {
  const rel = normalizeRel(src);
  const all = tree.list();
  if (rel === '.') return all;
  if (all.includes(rel)) return [rel];
  const under = all.filter((f) => f.startsWith(`${rel}/`));
  return under.length > 0 ? under : null;
}

function escapeAlong(tree: PackageTree, rel: string): boolean {
  const parts = rel.split('/');
  for (let n = 1; n <= parts.length; n++)
    if (tree.escapes(parts.slice(0, n).join('/'))) return true;
  return false;
}

/** Records one finding against the manifest. */
type Fail = (rule: string, at: PathSegment[], message: string, fix: string) => void;
/** The payload files a manifest source names, or null after recording why it names none. */
type Locate = (src: string, at: PathSegment[], what: string) => string[] | null;

/** A locator that refuses a source missing from the package or leading outside it by a symlink. */
function payloadLocator(tree: PackageTree, fail: Fail): Locate {
  return (src, at, what) => {
    const rel = normalizeRel(src);
    if (rel !== '.' && escapeAlong(tree, rel)) {
      fail(
        'skill.payload-escapes',
        at,
        `${what} ${JSON.stringify(src)} is a symlink leading outside the package`,
        'copy the file into the package instead of linking to it',
      );
      return null;
    }
    const found = filesUnder(tree, rel);
    if (found === null) {
      fail(
        'skill.payload-missing',
        at,
        `${what} ${JSON.stringify(src)} is not in the package`,
        'add the file to the package, or fix the path',
      );
      return null;
    }
    const escaping = found.filter((f) => escapeAlong(tree, f));
    if (escaping.length > 0) {
      fail(
        'skill.payload-escapes',
        at,
        `${what} ${JSON.stringify(src)} includes ${escaping[0] ?? ''}, a symlink leading outside the package`,
        'copy the file into the package instead of linking to it',
      );
      return null;
    }
    return found;
  };
}

/** The build files, each staged under skills/<id>/ and bound for its dest (a directory's files under it). */
function buildFiles(input: MaterializeInput, locate: Locate): SkillFile[] {
  const { manifest, tree, id } = input;
  const files: SkillFile[] = [];
  for (const [src, dest] of Object.entries(manifest.build.files)) {
    const found = locate(src, ['build', 'files', src], 'build file');
    if (found === null) continue;
    const base = normalizeRel(src);
    const single = found.length === 1 && found[0] === base;
    for (const rel of found) {
      const content = tree.read(rel);
      if (content === null) continue;
      const tail = single ? '' : base === '.' ? rel : rel.slice(base.length + 1);
      files.push({
        staged: `skills/${id}/${rel}`,
        dest: tail === '' ? dest : path.posix.join(dest, tail),
        executable: tree.executable(rel),
        content,
      });
    }
  }
  return files;
}

interface ClaudeSkillsFound {
  claudeSkills: ResolvedSkill['claudeSkills'];
  claudeSkillFiles: Record<string, ClaudeSkillFile[]>;
}

/** The Claude Skills a package ships, with their files; each must be a valid Claude Skill directory. */
function claudeSkillsOf(input: MaterializeInput, locate: Locate, fail: Fail): ClaudeSkillsFound {
  const { manifest, tree, id } = input;
  const claudeSkillFiles: Record<string, ClaudeSkillFile[]> = {};
  const claudeSkills = manifest.claudeSkills.map((entry, i) => {
    const at: PathSegment[] = ['claude_skills', i, 'from'];
    const base = normalizeRel(entry.from);
    const invalid = (problem: string): void =>
      fail(
        'skill.claude-skill-invalid',
        at,
        `claude skill ${JSON.stringify(entry.name)} (${JSON.stringify(entry.from)}): ${problem}`,
        'make from a Claude Skill: SKILL.md with name and description front matter, at most 64 files and 8 MiB, no links',
      );
    // A directory with nothing in it (or only dot-files) is a Claude Skill
    // without its SKILL.md, not a path missing from the package.
    const empty = base !== '.' && tree.isDir?.(base) === true && filesUnder(tree, base) === null;
    const found = empty ? [] : locate(entry.from, at, 'claude skill from');
    const list: ClaudeSkillFile[] = [];
    const seen: FoundEntry[] = [];
    if (found !== null && found.length === 1 && found[0] === base && base !== '.') {
      invalid('it is a file; a Claude Skill is a directory with a SKILL.md at its root');
    } else if (found !== null) {
      for (const rel of found) {
        const content = tree.read(rel);
        if (content === null) continue;
        const inSkill = base === '.' ? rel : rel.slice(base.length + 1);
        list.push({ rel: inSkill, content, executable: tree.executable(rel) });
        const kind = tree.linked?.(rel) === true ? 'symlink' : 'file';
        seen.push({ rel: inSkill, kind, size: content.length });
      }
      const skillMd = list.find((f) => f.rel === 'SKILL.md');
      const text = skillMd === undefined ? null : new TextDecoder().decode(skillMd.content);
      const [problem] = claudeSkillProblems(entry.name, seen, text);
      if (problem !== undefined) invalid(problem);
    }
    claudeSkillFiles[entry.name] = list;
    return { name: entry.name, path: `skills/${id}/${base}` };
  });
  return { claudeSkills, claudeSkillFiles };
}

/** The agent context: inline text, or one UTF-8 file of the package within the size cap. */
function contextOf(input: MaterializeInput, locate: Locate, fail: Fail): string | null {
  const { manifest, tree } = input;
  if (manifest.context === null) return null;
  if ('text' in manifest.context) return manifest.context.text;
  const found = locate(manifest.context.file, ['context', 'file'], 'context file');
  const rel = found?.length === 1 ? found[0] : undefined;
  const bytes = rel === undefined ? null : tree.read(rel);
  if (found !== null && bytes === null) {
    fail(
      'skill.payload-missing',
      ['context', 'file'],
      `context file ${JSON.stringify(manifest.context.file)} is a directory, not a file`,
      'point file at one markdown file',
    );
  } else if (bytes !== null && bytes.length > MAX_CONTEXT_BYTES) {
    fail(
      'skill.context-too-large',
      ['context', 'file'],
      `context file is ${bytes.length} bytes; the cap is 1 MiB`,
      'trim the prose',
    );
  } else if (bytes !== null) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      fail(
        'skill.context-not-utf8',
        ['context', 'file'],
        'context file is not valid UTF-8',
        'save it as UTF-8',
      );
    }
  }
  return null;
}

export function materializeSkill(input: MaterializeInput): {
  value: ResolvedSkill | null;
  issues: ConfigIssue[];
} {
  const findings: Finding[] = [];
  const fail: Fail = (rule, at, message, fix) => {
    findings.push({ rule, path: at, message, fix });
  };
  const locate = payloadLocator(input.tree, fail);
  // In this order: the findings list in it.
  const files = buildFiles(input, locate);
  const claude = claudeSkillsOf(input, locate, fail);
  const context = contextOf(input, locate, fail);

  if (findings.length > 0) {
    const index = indexKeys(input.text ?? '');
    return { value: null, issues: findings.map((f) => locateFinding(f, input.file, index)) };
  }
  return { value: resolvedSkill(input, files, claude, context), issues: [] };
}

/** The ResolvedSkill the generator reads: the manifest's sections copied, the located payload added. */
function resolvedSkill(
  input: MaterializeInput,
  files: SkillFile[],
  claude: ClaudeSkillsFound,
  context: string | null,
): ResolvedSkill {
  const { manifest, id } = input;
  const agent = manifest.agent;
  return {
    id,
    provenance: input.provenance,
    version: manifest.package?.version ?? (input.provenance === 'local' ? 'local' : '0.0.0'),
    description: manifest.description ?? manifest.package?.description ?? '',
    build: {
      apt: [...manifest.build.apt],
      node: manifest.build.node,
      dockerfile: [...manifest.build.dockerfile],
      files,
    },
    runtime: {
      env: { ...manifest.runtime.env },
      runArgs: [...manifest.runtime.runArgs],
      caps: [...manifest.runtime.caps],
      mounts: manifest.runtime.mounts.map((m) => ({ ...m })),
      networkPosture: manifest.runtime.networkPosture,
      netnsInit: manifest.runtime.netnsInit,
      egress: [...manifest.runtime.egress],
      egressOffered: [...manifest.runtime.egressOffered],
      sockGroups: [...manifest.runtime.sockGroups],
      containment: manifest.runtime.containment,
    },
    agent:
      agent === null
        ? null
        : {
            command: agent.command,
            state: agent.state,
            context: agent.context,
            mcp: agent.mcp,
            claudeSkills: agent.claudeSkills,
            ...(agent.prefs === null ? {} : { prefs: agent.prefs }),
          },
    volumes: manifest.volumes.map((v) => ({ ...v })),
    mcp: manifest.mcp.map((m) => ({ ...m })),
    claudeSkills: claude.claudeSkills,
    claudeSkillFiles: claude.claudeSkillFiles,
    context,
    meta: {
      companionFor: manifest.companionFor,
      sharedAuthFor: manifest.sharedAuthFor,
      envDocs: { ...manifest.runtime.envDocs },
      digest: input.digest ?? null,
      dir: input.dir ?? null,
    },
  };
}
