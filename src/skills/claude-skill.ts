// What makes a directory a Claude Skill byre will bake: a root SKILL.md whose
// YAML front matter carries a name (matching the declaration) and a
// description, at most 64 regular files and 8 MiB, and nothing else (no
// symlinks, FIFOs or devices). Pure: readers hand in what they found.

import { yamlLib } from '../lazy-deps.js';

export const CLAUDE_SKILL_MAX_FILES = 64;
export const CLAUDE_SKILL_MAX_BYTES = 8 * 1024 * 1024;

/** One entry a reader found under a Claude Skill's root, relative to it. */
export interface FoundEntry {
  rel: string;
  kind: 'file' | 'dir' | 'symlink' | 'fifo' | 'socket' | 'device' | 'other';
  size: number;
}

/** The name and description a SKILL.md declares, or why it does not. */
type FrontMatter = { ok: true; name: string; description: string } | { ok: false; problem: string };

const FENCE = /^---[ \t]*$/;

/** Parses SKILL.md's front matter: a `---` line first, YAML, a closing `---` line. */
export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? '')) {
    return { ok: false, problem: 'SKILL.md does not start with a --- front matter block' };
  }
  const end = lines.findIndex((line, i) => i > 0 && FENCE.test(line));
  if (end < 0) return { ok: false, problem: 'SKILL.md front matter has no closing ---' };
  let data: unknown;
  try {
    data = yamlLib().parse(lines.slice(1, end).join('\n'));
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { ok: false, problem: `SKILL.md front matter is not valid YAML (${why})` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, problem: 'SKILL.md front matter is not a YAML mapping' };
  }
  const { name, description } = data as Record<string, unknown>;
  if (typeof name !== 'string' || name.trim() === '') {
    return { ok: false, problem: 'SKILL.md front matter has no name' };
  }
  if (typeof description !== 'string' || description.trim() === '') {
    return { ok: false, problem: 'SKILL.md front matter has no description' };
  }
  return { ok: true, name: name.trim(), description };
}

const KIND_WORDS: Record<Exclude<FoundEntry['kind'], 'file' | 'dir'>, string> = {
  symlink: 'a symbolic link',
  fifo: 'a FIFO',
  socket: 'a socket',
  device: 'a device',
  other: 'not a regular file',
};

/**
 * Every reason the found tree is not a Claude Skill named `declared`
 * (empty when it is). `skillMd` is SKILL.md's text, or null when the root
 * has no regular SKILL.md. `truncated`: the reader stopped early at a bound.
 */
export function claudeSkillProblems(
  declared: string,
  entries: readonly FoundEntry[],
  skillMd: string | null,
  truncated = false,
): string[] {
  const problems: string[] = [];
  for (const e of entries) {
    if (e.kind !== 'file' && e.kind !== 'dir') problems.push(`${e.rel} is ${KIND_WORDS[e.kind]}`);
  }
  const files = entries.filter((e) => e.kind === 'file');
  if (truncated || files.length > CLAUDE_SKILL_MAX_FILES) {
    problems.push(`it holds more than ${CLAUDE_SKILL_MAX_FILES} files`);
  }
  const bytes = files.reduce((sum, e) => sum + e.size, 0);
  if (bytes > CLAUDE_SKILL_MAX_BYTES) {
    problems.push(`it holds ${bytes} bytes; the cap is ${CLAUDE_SKILL_MAX_BYTES} (8 MiB)`);
  }
  if (skillMd === null) {
    problems.push('it has no SKILL.md at its root');
    return problems;
  }
  const front = parseFrontMatter(skillMd);
  if (!front.ok) problems.push(front.problem);
  else if (front.name !== declared) {
    problems.push(
      `SKILL.md names it ${JSON.stringify(front.name)}, not ${JSON.stringify(declared)}`,
    );
  }
  return problems;
}
