// Every installed engine, for the questions that span engines: is a session
// live here, which volumes and images exist, which launch records are still
// referenced. A declined engine is never read as an absent one; an engine
// that does not answer is reported as such, so callers can refuse to speak in
// totals (forget, reset, rehome) or treat the pool as partial.

import { EngineError } from '../errors.js';
import { resolveHostTool } from './host-tools.js';
import type { Engine } from './engine.js';
import { createEngine } from './runner.js';
import type { EngineFacts, EngineName } from './types.js';

type PoolMember =
  | { name: EngineName; state: 'ok'; engine: Engine }
  | { name: EngineName; state: 'declined'; path: string; root: string };

export interface EnginePool {
  members: PoolMember[];
}

const ENGINES: EngineName[] = ['docker', 'podman'];

/**
 * The engines installed on this host. `primary` (the engine detection pinned
 * for this invocation) is reused as is; others get a pinned CLI without a
 * probe, since queries do not depend on rootless facts.
 */
export function enginePool(
  declinedRoots: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  primary: Engine | null,
): EnginePool {
  const members: PoolMember[] = [];
  for (const name of ENGINES) {
    if (primary?.facts.name === name) {
      members.push({ name, state: 'ok', engine: primary });
      continue;
    }
    const r = resolveHostTool(name, { declinedRoots, env });
    if (r.kind === 'absent') continue;
    if (r.kind === 'declined') {
      members.push({ name, state: 'declined', path: r.path, root: r.root });
      continue;
    }
    const facts: EngineFacts = {
      name,
      path: r.path,
      rootless: false,
      keepId: false,
      version: '',
      warnings: [],
    };
    members.push({ name, state: 'ok', engine: createEngine(facts, { env }) });
  }
  return { members };
}

/** The pool narrowed to `names` (adr/0032); null keeps every member. */
export function poolOf(pool: EnginePool, names: readonly EngineName[] | null): EnginePool {
  if (names === null) return pool;
  return { members: pool.members.filter((m) => names.includes(m.name)) };
}

/** An engine that failed the question: byre's words, and the engine's own (its stderr's last line). */
interface Failed {
  name: EngineName;
  message: string;
  said?: string;
}

export type PoolAnswer<T> =
  | { name: EngineName; state: 'ok'; value: T; engine: Engine }
  | (Failed & { state: 'declined' })
  | (Failed & { state: 'unreachable' })
  | (Failed & { state: 'denied' })
  | (Failed & { state: 'error' });

/** The last line an engine wrote on stderr, capped: what it said, to quote. */
export function engineSaid(stderr: string): string {
  const last = stderr.trimEnd().split('\n').pop()?.trim() ?? '';
  return last.length > 300 ? `${last.slice(0, 300)}…` : last;
}

/** Ask every member the same question; failures become data, never exceptions. */
export async function askPool<T>(
  pool: EnginePool,
  question: (engine: Engine) => Promise<T>,
): Promise<PoolAnswer<T>[]> {
  return Promise.all(
    pool.members.map(async (m): Promise<PoolAnswer<T>> => {
      if (m.state === 'declined') {
        return {
          name: m.name,
          state: 'declined',
          message: `${m.name} at ${m.path} is inside ${m.root}, which the box can write; byre declined to run it`,
        };
      }
      try {
        return { name: m.name, state: 'ok', value: await question(m.engine), engine: m.engine };
      } catch (error) {
        if (!(error instanceof EngineError)) throw error;
        const said = engineSaid(error.stderr);
        return {
          name: m.name,
          state: answerState(error.rule),
          message: error.message,
          ...(said === '' ? {} : { said }),
        };
      }
    }),
  );
}

function answerState(rule: string): 'unreachable' | 'denied' | 'error' {
  if (rule === 'engine.unreachable' || rule === 'engine.timeout') return 'unreachable';
  return rule === 'engine.denied' ? 'denied' : 'error';
}

/**
 * The failed answers that leave a question open. A daemon that is down runs
 * nothing, and one that refuses this user (docker socket, permission denied)
 * cannot have run this user's boxes; a declined or failing engine might hide one.
 */
export function openAnswers<T>(
  answers: readonly PoolAnswer<T>[],
): Exclude<PoolAnswer<T>, { state: 'ok' }>[] {
  return failedAnswers(answers).filter((a) => a.state !== 'unreachable' && a.state !== 'denied');
}

/** The answers that are not `ok`, for "could not check" wording. */
export function failedAnswers<T>(
  answers: readonly PoolAnswer<T>[],
): Exclude<PoolAnswer<T>, { state: 'ok' }>[] {
  return answers.filter((a): a is Exclude<PoolAnswer<T>, { state: 'ok' }> => a.state !== 'ok');
}

/**
 * The pool with each reachable member re-detected, so helpers that fill
 * volumes (rehome's copy) know the identity mode (keep-id) of every engine.
 * A member whose detection fails keeps its unprobed engine; asking it will
 * then fail as data.
 */
export async function probedPool(
  pool: EnginePool,
  detect: (name: EngineName) => Promise<EngineFacts>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<EnginePool> {
  const members = await Promise.all(
    pool.members.map(async (m): Promise<PoolMember> => {
      if (m.state !== 'ok') return m;
      try {
        return { ...m, engine: createEngine(await detect(m.name), { env }) };
      } catch {
        return m;
      }
    }),
  );
  return { members };
}
