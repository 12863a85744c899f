// `byre mcp|claude-skill|context add|remove|list`: declare the box's wiring
// in one config file (the project's, --global or --layer) through the config
// writer, and show the effective set as status does. remove is closure-smart
// (config/wiring-edit.ts); every write holds the setup lock, so develop
// launches what was written wholly or not at all.

import { say } from '../output/notes.js';
import path from 'node:path';

import { mcpAddEntry, checkWiringName, type McpAddFlags } from '../config/mcp-entry.js';
import { layerLabel } from '../config/types.js';
import {
  declarersBelow,
  planAdd,
  planRemove,
  type RemovePlan,
  type WiringKey,
} from '../config/wiring-edit.js';
import { projectConfigFile, readConfigForEdit, writeConfig } from '../config/write.js';
import { checkProjectPath, resolveProjectContext } from '../project/context.js';
import { ByreError, UsageError } from '../errors.js';
import { MAX_CONFIG_BYTES } from '../config/parse.js';
import { CONTEXT_FILE_MAX_BYTES } from '../session/stage.js';
import { editorCommand, editText } from '../hostenv/editor.js';
import type { Io } from '../io.js';
import { mcpEgress } from '../gen/allowlist.js';
import { escapeTerminal } from '../output/escape.js';
import { readRegularFile } from '../host/read-regular.js';
import { parseFrontMatter, CLAUDE_SKILL_MAX_BYTES } from '../skills/claude-skill.js';
import { configClaudeSkillProblems, readClaudeSkillDir } from '../skills/claude-skill-read.js';
import { agentDeliveries, wiringFacts, type WiringKind } from '../status/wiring.js';
import { nextLaunchMcp } from '../status/model.js';
import type { StatusData } from '../status/data-schema.js';
import { applyEdits, type TomlEdit, type TomlTable } from '../tomldoc/index.js';
import {
  resolveTarget,
  splitCascade,
  type ConfigTarget,
  type TargetFlags,
} from './config-target.js';
import { boxHostEnv, projectDeclinedRoots, userHome } from './load.js';
import { boxWritableTrees, grantsOf } from '../containment/writable-trees.js';

/** The injected side effects: the editor handoff (tests replace it). */
export interface WiringDeps {
  edit?: typeof editText;
}

const WHAT: Readonly<Record<WiringKey, { noun: string; verb: string; kind: WiringKind }>> = {
  mcp: { noun: 'MCP server', verb: 'mcp', kind: 'mcp' },
  claude_skills: { noun: 'Claude Skill', verb: 'claude-skill', kind: 'claudeSkills' },
  context: { noun: 'context block', verb: 'context', kind: 'context' },
};

/** Apply `edits` to the target; a file not there yet starts from its seed comment. */
async function write(target: ConfigTarget, edits: readonly TomlEdit[]): Promise<boolean> {
  await target.prepare();
  const exists = readConfigForEdit(target.file).exists;
  const result = await writeConfig(
    target.file,
    (text) => applyEdits(exists || text !== '' ? text : target.seed, edits),
    target.lock === undefined ? {} : { lock: target.lock },
  );
  return result.written;
}

/** `~/…` for a path under the user's home: the portable spelling a config shares well in. */
function hostPathForConfig(io: Io, given: string): string {
  const home = userHome(io);
  const abs = path.resolve(io.cwd, given);
  const rel = path.relative(home, abs);
  if (rel === '') return '~';
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : `~/${rel}`;
}

// ---------------------------------------------------------------- add

async function addEntry(
  io: Io,
  key: WiringKey,
  entry: TomlTable & { name: string },
  flags: TargetFlags,
): Promise<ConfigTarget> {
  const target = await resolveTarget(io, flags);
  const { skills } = splitCascade(io, target.ctx, target.file);
  const declaring = skills.find((s) =>
    key === 'mcp'
      ? s.mcp.some((m) => m.name === entry.name)
      : key === 'claude_skills' && s.claudeSkills.some((c) => c.name === entry.name),
  );
  if (declaring !== undefined) {
    throw new ByreError(
      `${WHAT[key].noun} ${entry.name} is declared by skill ${declaring.id}; one name cannot be declared twice`,
      {
        rule: `${WHAT[key].verb}.declared-by-skill`,
        remedy: `pick another name, or hide the skill's with byre ${WHAT[key].verb} remove ${entry.name}`,
      },
    );
  }
  const current = readConfigForEdit(target.file);
  const plan = planAdd(key, entry, current.text);
  await write(target, plan.edits);
  const how = plan.replaced ? 'replaced' : 'added';
  say(io.stderr, `${how} ${WHAT[key].noun} ${entry.name} in ${target.label} (${target.file.path})`);
  if (plan.reopened)
    say(io.stderr, `re-opened: ${target.label} no longer closes ${entry.name} (!${entry.name})`);
  return target;
}

export async function mcpAddCommand(
  io: Io,
  name: string,
  operands: readonly string[],
  flags: McpAddFlags & TargetFlags,
): Promise<void> {
  const entry = mcpAddEntry(name, operands, flags);
  await addEntry(io, 'mcp', entry, flags);
  const url = typeof entry['url'] === 'string' ? entry['url'] : undefined;
  const implied = mcpEgress({
    ...(url === undefined ? {} : { url }),
    egress: (entry['egress'] as string[] | undefined) ?? [],
  });
  if (implied.length > 0)
    say(io.stderr, `egress mcp:${name}: ${implied.join(', ')} (a grant; byre status lists it)`);
  const env = (entry['env'] as string[] | undefined) ?? [];
  if (env.length > 0) {
    say(
      io.stderr,
      `it reads ${env.join(', ')}: pass the value${env.length === 1 ? '' : 's'} into the box with env_from_host (e.g. ${env[0]} = "env:${env[0]}"); byre never stores tokens`,
    );
  }
}

export async function claudeSkillAddCommand(
  io: Io,
  dir: string,
  flags: { name?: string } & TargetFlags,
): Promise<void> {
  const abs = path.resolve(io.cwd, dir);
  let name = flags.name;
  if (name === undefined) {
    const read = readRegularFile(path.join(abs, 'SKILL.md'), CLAUDE_SKILL_MAX_BYTES);
    const front =
      read.kind === 'ok'
        ? parseFrontMatter(read.bytes.toString('utf8'))
        : { ok: false as const, problem: `${abs} has no SKILL.md at its root` };
    if (!front.ok) {
      throw new ByreError(`${abs} is not a Claude Skill: ${front.problem}`, {
        rule: 'claude-skill.invalid',
        remedy: 'point at a directory whose SKILL.md starts with name and description front matter',
      });
    }
    name = front.name;
  }
  checkWiringName(name, 'claude skill');
  const problems = readClaudeSkillDir(abs, name).problems;
  if (problems.length > 0) {
    throw new ByreError(`${abs} is not a Claude Skill byre will bake: ${problems[0] ?? ''}`, {
      rule: 'claude-skill.invalid',
      remedy:
        'a Claude Skill: SKILL.md with name and description front matter, at most 64 files and 8 MiB, no links',
      details: problems.slice(1),
    });
  }
  await addEntry(io, 'claude_skills', { name, path: hostPathForConfig(io, abs) }, flags);
}

export interface ContextAddFlags extends TargetFlags {
  text?: string;
  file?: string;
}

export async function contextAddCommand(
  io: Io,
  name: string,
  flags: ContextAddFlags,
  deps: WiringDeps = {},
): Promise<void> {
  checkWiringName(name, 'context');
  if (flags.text !== undefined && flags.file !== undefined) {
    throw new UsageError('--text and --file are two sources for one block', {
      rule: 'context.text-and-file',
      remedy: 'give one of them, or neither to write the text in $EDITOR',
    });
  }
  let entry: TomlTable & { name: string };
  if (flags.file !== undefined) {
    const abs = path.resolve(io.cwd, flags.file);
    const read = readRegularFile(abs, CONTEXT_FILE_MAX_BYTES);
    if (read.kind !== 'ok') {
      throw new ByreError(
        `--file ${abs}: ${read.kind === 'missing' ? 'no such file' : 'not a regular file of at most 16 MiB'}`,
        {
          rule: 'context.file-invalid',
          remedy: 'point --file at the text file the agent should read at every develop',
        },
      );
    }
    entry = { name, file: hostPathForConfig(io, abs) };
  } else if (flags.text !== undefined) {
    entry = { name, text: flags.text };
  } else {
    entry = { name, text: await textFromEditor(io, name, flags, deps) };
  }
  await addEntry(io, 'context', entry, flags);
}

async function textFromEditor(
  io: Io,
  name: string,
  flags: TargetFlags,
  deps: WiringDeps,
): Promise<string> {
  if (!io.stdinIsTty && deps.edit === undefined && editorCommand(io.env) === 'vi') {
    throw new UsageError('no --text or --file, and no terminal to open $EDITOR on', {
      rule: 'context.no-text',
      remedy: 'pass --text "…" or --file <path>',
    });
  }
  const target = await resolveTarget(io, flags);
  const existing = splitCascade(io, target.ctx, target.file).config.context.find(
    (c) => c.value.name === name && c.from.path === target.file.path,
  );
  const initial = existing !== undefined && 'text' in existing.value ? existing.value.text : '';
  const text = (deps.edit ?? editText)({
    env: io.env,
    declinedRoots: projectDeclinedRoots(io, target.ctx),
    name: `byre-context-${name}.md`,
    initial,
    help: [
      `The standing instructions of context block "${name}", for ${target.label}.`,
      'Lines starting with # are dropped. Save an empty text to abort.',
    ],
    maxBytes: MAX_CONFIG_BYTES,
  });
  if (text === '') {
    throw new ByreError('the text is empty; nothing was written', {
      rule: 'context.empty',
      remedy: `write the instructions, or pass --text "…"`,
    });
  }
  return text;
}

// ---------------------------------------------------------------- remove

function removedLine(
  key: WiringKey,
  name: string,
  target: ConfigTarget,
  plan: RemovePlan,
  by: string,
): string {
  const noun = `${WHAT[key].noun} ${name}`;
  switch (plan.outcome) {
    case 'deleted':
      return `removed ${noun} from ${target.label} (${target.file.path})`;
    case 'deleted-and-closed':
      return `removed ${noun} from ${target.label}, and closed it there (!${name}): ${by} still declares it`;
    case 'closed':
      return `closed ${noun} in ${target.label} (!${name}): ${by} declares it`;
    case 'already-closed':
      return `${noun} is already closed in ${target.label} (!${name}); nothing to do`;
    case 'not-declared':
      return '';
  }
}

export async function wiringRemoveCommand(
  io: Io,
  key: WiringKey,
  name: string,
  flags: TargetFlags,
): Promise<void> {
  checkWiringName(name, WHAT[key].verb);
  const target = await resolveTarget(io, flags);
  const split = splitCascade(io, target.ctx, target.file);
  const declarers = declarersBelow(key, name, split.below, split.skills);
  const plan = planRemove(key, name, readConfigForEdit(target.file).text, declarers);
  if (plan.outcome === 'not-declared') {
    throw new ByreError(`no ${WHAT[key].noun} named ${name} in ${target.label} or below it`, {
      rule: `${WHAT[key].verb}.not-declared`,
      remedy: `byre ${WHAT[key].verb} list shows what this directory's box declares`,
    });
  }
  await write(target, plan.edits);
  const by =
    declarers.below === null
      ? `skill ${declarers.skill ?? ''}`
      : declarers.below.kind === 'default'
        ? 'default.config'
        : layerLabel(declarers.below);
  say(io.stderr, removedLine(key, name, target, plan, by));
  const above = split.above.find((l) => {
    const list = l.raw[key] ?? [];
    return list.some((e) => e.name === name);
  });
  if (above !== undefined) {
    say(
      io.stderr,
      `note: ${layerLabel(above.ref)} (${above.ref.path ?? ''}) declares ${name} too, and it sits above ${target.label}: it still applies here`,
    );
  }
}

// ---------------------------------------------------------------- list

function table(rows: readonly (readonly string[])[]): string {
  const widths =
    rows[0]?.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) =>
          i === r.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - [...cell].length),
        )
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${escapeTerminal(line)}\n`)
    .join('');
}

function deliveryLines(
  kind: WiringKind,
  config: Parameters<typeof agentDeliveries>[0],
  skills: Parameters<typeof agentDeliveries>[1],
  sentence: string | null,
): string {
  const agents = agentDeliveries(config, skills, kind);
  const lines = [`delivery: ${sentence ?? 'nothing declared'}`];
  for (const a of agents) {
    lines.push(
      `  ${a.skill}${a.selected ? ' (the agent)' : ''}: ${a.delivered ? 'delivers it' : 'has no adapter: declared, NOT delivered'}`,
    );
  }
  return lines.map((l) => `${escapeTerminal(l)}\n`).join('');
}

type McpEnv = StatusData['mcp_servers'][number]['env'];

/** The ENV cell: each consumed name, marked when nothing will provide it (status's judgement). */
function envCell(names: readonly string[], judged: McpEnv): string {
  if (names.length === 0) return '-';
  return names
    .map((key) =>
      judged.find((e) => e.key === key)?.provided_by === null ? `${key}(missing)` : key,
    )
    .join(',');
}

export async function wiringListCommand(io: Io, key: WiringKey): Promise<void> {
  // Reads only: the project's store is neither created nor recorded.
  const ctx = await resolveProjectContext(io.cwd, io.env);
  await checkProjectPath(ctx);
  const { config, skills } = splitCascade(io, ctx, projectConfigFile(ctx.project));
  const facts = wiringFacts(
    config,
    skills,
    key === 'claude_skills' ? configClaudeSkillProblems(config.claudeSkills, userHome(io)) : [],
  );
  let out = '';
  switch (key) {
    case 'mcp': {
      const judged = nextLaunchMcp({
        config,
        skills,
        skillError: null,
        hostEnv: boxHostEnv(
          io,
          boxWritableTrees(ctx, grantsOf(config, skills), userHome(io)),
          config,
        ),
        projectId: ctx.projectId,
        hostUid: io.uid,
      });
      const judgedOf = (name: string) => judged.find((j) => j.name === name);
      const envOf = (name: string): McpEnv => judgedOf(name)?.env ?? [];
      out +=
        facts.mcp_servers.length === 0
          ? '(no MCP servers)\n'
          : table([
              ['NAME', 'TRANSPORT', 'TARGET', 'ENV', 'FROM'],
              ...facts.mcp_servers.map((m) => [
                m.name,
                m.transport === 'url' ? 'http' : 'stdio',
                m.target,
                envCell(m.env, envOf(m.name)),
                m.source,
              ]),
            ]);
      for (const m of facts.mcp_servers) {
        const shut = judgedOf(m.name)?.not_operational ?? null;
        const lines = [
          ...(shut === null ? [] : [`${m.name}: NOT operational: ${shut}`]),
          ...envOf(m.name)
            .filter((e) => e.provided_by === null)
            .map(
              (e) => `${m.name}: env ${e.key}: NOT provided — ${e.missing ?? 'nothing sets it'}`,
            ),
        ];
        for (const line of lines) out += `${escapeTerminal(line)}\n`;
      }
      for (const c of facts.mcp_closed)
        out += `closed: !${escapeTerminal(c.name)}  (${escapeTerminal(c.source)})\n`;
      out += deliveryLines('mcp', config, skills, facts.mcp_delivery);
      break;
    }
    case 'claude_skills':
      out +=
        facts.claude_skills.length === 0
          ? '(no Claude Skills)\n'
          : table([
              ['NAME', 'PATH', 'FROM'],
              ...facts.claude_skills.map((c) => [c.name, c.path, c.source]),
            ]);
      for (const c of facts.claude_skills_closed)
        out += `closed: !${escapeTerminal(c.name)}  (${escapeTerminal(c.source)})\n`;
      out += deliveryLines('claudeSkills', config, skills, facts.claude_skills_delivery);
      break;
    case 'context':
      out +=
        facts.instructions.length === 0
          ? '(no standing instructions)\n'
          : table([
              ['NAME', 'FROM', 'TEXT'],
              ...facts.instructions.map((i) => [
                i.name,
                i.source,
                i.file !== null ? `file ${i.file}` : firstLine(i.text ?? ''),
              ]),
            ]);
      out += deliveryLines('context', config, skills, facts.instructions_delivery);
      break;
  }
  io.stdout.write(out);
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  const more = line.length > 60 || text.includes('\n');
  return more ? `${line.slice(0, 60)}…` : line;
}
