// Which engines a session question must ask (adr/0032). Asking every
// installed engine "does this worktree have a session?" costs a client
// process per engine on every develop and status (podman's `ps` alone is
// ~40 ms, and it spawns conmon); the per-worktree engine record lets byre
// ask only the engines that can hold one. Also which engine a project's
// commands run on (adr/0053), and the refusal when that engine cannot be
// asked. Pure: the record's text in, the engine names out.

import type { EngineName } from './types.js';
import { RefusedError } from '../errors.js';

/**
 * `projects/<id>/engine.<worktreeId>`: the engine of this worktree's last
 * launch, and every engine the check before it could not ask (unreachable
 * or refusing this user), which stay to be asked until one answers.
 */
export interface EngineRecord {
  last: EngineName;
  unresolved: EngineName[];
}

const NAMES: readonly EngineName[] = ['docker', 'podman'];

const isEngine = (word: string): word is EngineName => (NAMES as readonly string[]).includes(word);

/** The record file's name for a worktree id (ids are slugs: no separator can appear). */
export function engineRecordFile(worktreeId: string): string {
  return `engine.${worktreeId}`;
}

/** One line: `<last>[ unresolved=<engine>]…`. */
export function formatEngineRecord(record: EngineRecord): string {
  const unresolved = [...new Set(record.unresolved)].filter((e) => e !== record.last).sort();
  return `${[record.last, ...unresolved.map((e) => `unresolved=${e}`)].join(' ')}\n`;
}

/** The record, or null for anything that is not exactly what formatEngineRecord writes. */
export function parseEngineRecord(text: string): EngineRecord | null {
  if (!text.endsWith('\n') || text.indexOf('\n') !== text.length - 1) return null;
  const [last, ...rest] = text.slice(0, -1).split(' ');
  if (last === undefined || !isEngine(last)) return null;
  const unresolved: EngineName[] = [];
  for (const word of rest) {
    const name = word.startsWith('unresolved=') ? word.slice('unresolved='.length) : '';
    if (!isEngine(name)) return null;
    unresolved.push(name);
  }
  return { last, unresolved };
}

/**
 * The engines that can hold this worktree's session, or null for every
 * installed engine. Narrowed only when the config names an engine and this
 * worktree has a readable record: a box on another engine could only have
 * come from a develop that rewrote the record under the setup lock, so the
 * configured engine, the record's last engine and its unresolved ones are
 * all that can hold one. Without a record (never launched, or launched by a
 * byre before records) or under `engine = "auto"`, every engine is asked.
 */
export function sessionEngines(
  configured: 'auto' | EngineName,
  own: EngineRecord | null,
): EngineName[] | null {
  if (configured === 'auto' || own === null) return null;
  return NAMES.filter((e) => e === configured || e === own.last || own.unresolved.includes(e));
}

/**
 * The engines that can hold any of the project's sessions (status lists
 * sibling worktrees): as sessionEngines for this worktree, widened by every
 * other worktree's record; every engine when one of those is unreadable
 * (null). A worktree with no record never launched with a byre that writes
 * one; its sessions, if any, are the ones this does not see.
 */
export function projectEngines(
  configured: 'auto' | EngineName,
  own: EngineRecord | null,
  others: readonly (EngineRecord | null)[],
): EngineName[] | null {
  const mine = sessionEngines(configured, own);
  if (mine === null || others.includes(null)) return null;
  const wanted = new Set<EngineName>(mine);
  for (const r of others) if (r !== null) for (const e of [r.last, ...r.unresolved]) wanted.add(e);
  return NAMES.filter((e) => wanted.has(e));
}

/**
 * The engines status can ask before the config is read: the ones every
 * record names, or null (every engine) when a record is missing or
 * unreadable. projectEngines always includes them, whatever the config
 * says, so asking them early never asks an engine the page would not.
 */
export function recordedEngines(
  own: EngineRecord | null,
  others: readonly (EngineRecord | null)[],
): EngineName[] | null {
  if (own === null || others.includes(null)) return null;
  const named = new Set<EngineName>();
  for (const r of [own, ...others])
    if (r !== null) for (const e of [r.last, ...r.unresolved]) named.add(e);
  return NAMES.filter((e) => named.has(e));
}

/**
 * The engine this project's boxes are on (adr/0053): this worktree's last
 * launch; else the last launch of its other worktrees and the engines of
 * the launch records on disk (docker first when they name both, as `auto`
 * would pick). Null when nothing says: the project never launched.
 */
export function recordedEngine(
  own: EngineRecord | null,
  others: readonly (EngineRecord | null)[],
  launched: readonly EngineName[],
): EngineName | null {
  if (own !== null) return own.last;
  const named = new Set<EngineName>([
    ...others.flatMap((r) => (r === null ? [] : [r.last])),
    ...launched,
  ]);
  return NAMES.find((e) => named.has(e)) ?? null;
}

/**
 * What detection is asked for (adr/0053). `auto` picks an engine only for a
 * project that never launched; once it has, `auto` means the engine its
 * boxes are on, so a project never lands on another engine because the
 * first stopped answering. A configured engine is taken as is; `movedFrom`
 * is set when it is not where the project's boxes are (a deliberate move,
 * which develop announces).
 */
export interface EngineDecision {
  ask: 'auto' | EngineName;
  /** The engine the project's boxes are on, by its records; null before its first launch. */
  recorded: EngineName | null;
  /** Set when the records chose the engine for `auto`. */
  pinned: EngineName | null;
  /** Set when the config names an engine other than the recorded one. */
  movedFrom: EngineName | null;
}

export function engineDecision(
  configured: 'auto' | EngineName,
  recorded: EngineName | null,
): EngineDecision {
  if (configured === 'auto') {
    return { ask: recorded ?? 'auto', recorded, pinned: recorded, movedFrom: null };
  }
  return {
    ask: configured,
    recorded,
    pinned: null,
    movedFrom: recorded !== null && recorded !== configured ? recorded : null,
  };
}

/** The first line develop prints when the project changes engine on purpose. */
export function engineMoveLine(to: EngineName, from: EngineName): string {
  return `engine: ${to} for this project, moved from ${from} because the config names ${to} (engine = "${to}"); its image and volumes are made anew on ${to}, and ${from}'s stay there`;
}

const OTHER: Readonly<Record<EngineName, EngineName>> = { docker: 'podman', podman: 'docker' };

/** How to get a project's engine back, or move the project off it on purpose. */
function remedy(engine: EngineName, configFile: string): string {
  const back =
    engine === 'docker'
      ? 'start the Docker daemon, or point DOCKER_HOST (or the docker context) back at it'
      : 'fix podman as its own error above says (or point CONTAINER_HOST back at it)';
  const other = OTHER[engine];
  return `${back}, then run the command again; to move this project to ${other} instead, set engine = "${other}" in ${configFile} (byre config)`;
}

/**
 * The refusal when the engine a project's boxes are on cannot be asked:
 * `details` is what went wrong, in the engine's own words (`causeDetails`
 * of detection's error, or `unansweredDetails` of a pool answer).
 */
export function projectEngineUnavailable(
  engine: EngineName,
  details: readonly string[],
  configFile: string,
  cause?: unknown,
): RefusedError {
  return new RefusedError(
    `this project's boxes are on ${engine}, and ${engine} cannot be asked; byre does not guess another engine`,
    {
      rule: 'engine.project-unavailable',
      details,
      remedy: remedy(engine, configFile),
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/** A failed pool answer as refusal details, laid out as `causeDetails` lays out an engine error. */
export function unansweredDetails(answer: {
  name: EngineName;
  message: string;
  said?: string;
}): string[] {
  const said = answer.said === undefined ? [] : [`  ${answer.name} said:`, `    ${answer.said}`];
  return [answer.message, ...said];
}
