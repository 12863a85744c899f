// Reads a config-declared Claude Skill (a host directory) for baking: walks
// it without following a link, reads regular files only (never a FIFO), and
// stops at the bounds, so a hostile or huge directory costs byre nothing.
// The rules that judge what it found live in claude-skill.ts.

import path from 'node:path';
import type { ClaudeSkillSpec, Sourced } from '../config/types.js';
import { ByreError } from '../errors.js';
import { readRegularFile } from '../host/read-regular.js';
import { listEntries, lstatEntry, type Stats } from '../host/path-view.js';
import {
  CLAUDE_SKILL_MAX_BYTES,
  CLAUDE_SKILL_MAX_FILES,
  claudeSkillProblems,
  type FoundEntry,
} from './claude-skill.js';
import type { ClaudeSkillFile } from './types.js';

/** A walk that finds more entries than this (directories included) stops. */
const MAX_ENTRIES = 4 * CLAUDE_SKILL_MAX_FILES;

interface ClaudeSkillDir {
  files: ClaudeSkillFile[];
  /** Empty when the directory is a Claude Skill byre will bake. */
  problems: string[];
}

function kindOf(stat: Stats): FoundEntry['kind'] {
  if (stat.isFile()) return 'file';
  if (stat.isDirectory()) return 'dir';
  if (stat.isSymbolicLink()) return 'symlink';
  if (stat.isFIFO()) return 'fifo';
  if (stat.isSocket()) return 'socket';
  if (stat.isBlockDevice() || stat.isCharacterDevice()) return 'device';
  return 'other';
}

/** Reads `dir` as the Claude Skill `name`; every problem comes back as data. */
export function readClaudeSkillDir(dir: string, name: string): ClaudeSkillDir {
  let root: Stats;
  try {
    root = lstatEntry(dir);
  } catch {
    return { files: [], problems: [`${dir} does not exist`] };
  }
  if (root.isSymbolicLink()) {
    return { files: [], problems: [`${dir} is a symbolic link; name the directory itself`] };
  }
  if (!root.isDirectory()) return { files: [], problems: [`${dir} is not a directory`] };

  const entries: FoundEntry[] = [];
  const files: ClaudeSkillFile[] = [];
  let bytes = 0;
  let truncated = false;
  const walk = (abs: string, rel: string): void => {
    for (const entry of listEntries(abs).sort()) {
      if (truncated) return;
      const childAbs = path.join(abs, entry);
      const childRel = rel === '' ? entry : `${rel}/${entry}`;
      const stat = lstatEntry(childAbs);
      const kind = kindOf(stat);
      entries.push({ rel: childRel, kind, size: stat.size });
      if (entries.length > MAX_ENTRIES || files.length >= CLAUDE_SKILL_MAX_FILES + 1) {
        truncated = true;
        return;
      }
      if (kind === 'dir') walk(childAbs, childRel);
      if (kind !== 'file' || bytes > CLAUDE_SKILL_MAX_BYTES) continue;
      const read = readRegularFile(childAbs, CLAUDE_SKILL_MAX_BYTES - bytes);
      if (read.kind === 'ok') {
        bytes += read.bytes.length;
        files.push({
          rel: childRel,
          content: new Uint8Array(read.bytes),
          executable: (read.mode & 0o111) !== 0,
        });
      } else if (read.kind === 'too-large') bytes += read.size;
      else entries[entries.length - 1] = { rel: childRel, kind: 'other', size: 0 };
    }
  };
  walk(dir, '');
  const skillMd = files.find((f) => f.rel === 'SKILL.md');
  const text = skillMd === undefined ? null : Buffer.from(skillMd.content).toString('utf8');
  return { files, problems: claudeSkillProblems(name, entries, text, truncated) };
}

function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  return p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}

/**
 * Every config-declared Claude Skill, read and validated, by name; the
 * first invalid one is refused, located at its declaration.
 */
export function readConfigClaudeSkills(
  declared: readonly Sourced<ClaudeSkillSpec>[],
  home: string,
): Map<string, ClaudeSkillFile[]> {
  const out = new Map<string, ClaudeSkillFile[]>();
  for (const entry of declared) {
    const { name, path: declaredPath } = entry.value;
    const dir = path.resolve(expandHome(declaredPath, home));
    const read = readClaudeSkillDir(dir, name);
    if (read.problems.length > 0) {
      throw new ByreError(`claude skill "${name}" (${dir}) cannot be baked: ${read.problems[0]}`, {
        rule: 'claude-skill.invalid',
        remedy:
          'fix the directory (a Claude Skill: SKILL.md with name and description front matter, at most 64 files and 8 MiB, no links), or remove the [[claude_skills]] entry',
        location: { file: entry.from.path ?? entry.from.name, key: `claude_skills.${name}` },
        details: read.problems.slice(1),
      });
    }
    out.set(name, read.files);
  }
  return out;
}

/** For status: each config-declared Claude Skill that would be refused, with its first problem. */
export function configClaudeSkillProblems(
  declared: readonly Sourced<ClaudeSkillSpec>[],
  home: string,
): string[] {
  return declared.flatMap((entry) => {
    const dir = path.resolve(expandHome(entry.value.path, home));
    const [first] = readClaudeSkillDir(dir, entry.value.name).problems;
    return first === undefined ? [] : [`${entry.value.name}: ${first}`];
  });
}
