// Live sessions across every installed engine, found by labels (never by an
// assumed name): byre.project for the project, plus byre.workdir for one
// worktree's session. A box that another byre has created but not yet
// started is a session too: its creator (label byre.client) is still alive.

import { LABEL } from '../gen/names.js';
import type { Engine } from '../engine/engine.js';
import type { ContainerFacts, EngineName } from '../engine/types.js';
import { askPool, failedAnswers, type EnginePool, type PoolAnswer } from '../engine/pool.js';

export interface LiveBox {
  engineName: EngineName;
  engine: Engine;
  id: string;
  /** Its labels as the census read them (no second inspect needed). */
  labels?: Readonly<Record<string, string>>;
}

interface SessionQuery {
  projectId: string;
  worktreeId?: string;
  /** Include stopped and created containers. */
  all?: boolean;
}

export interface SessionScan {
  boxes: LiveBox[];
  /** Engines byre could not ask (declined, unreachable, denied, failed). */
  unchecked: Exclude<PoolAnswer<unknown>, { state: 'ok' }>[];
}

function sessionLabels(query: SessionQuery): Record<string, string> {
  const labels: Record<string, string> = { [LABEL.project]: query.projectId };
  if (query.worktreeId !== undefined) labels[LABEL.workdir] = query.worktreeId;
  return labels;
}

export async function findSessions(pool: EnginePool, query: SessionQuery): Promise<SessionScan> {
  const labels = sessionLabels(query);
  const answers = await askPool(pool, (e) => e.ps({ labels, all: query.all === true }));
  const boxes = answers.flatMap((a) =>
    a.state === 'ok' ? a.value.map((id) => ({ engineName: a.name, engine: a.engine, id })) : [],
  );
  return { boxes, unchecked: failedAnswers(answers) };
}

/** Whether a host process still runs; injected so tests decide. */
export type PidAlive = (pid: number) => boolean;

/** Signal 0 probes without signalling; EPERM means the process exists under another user. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * What one of this project's boxes is: running; created and about to start
 * (its creating byre is alive, so removing it would kill a session being
 * born); or stale, left created by a byre that is gone. Pure.
 */
function judgeBox(
  box: Pick<ContainerFacts, 'running' | 'labels'>,
  alive: PidAlive,
  selfPid: number,
): 'running' | 'starting' | 'stale' {
  if (box.running) return 'running';
  const raw = box.labels[LABEL.client] ?? '';
  const pid = /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : null;
  return pid !== null && pid !== selfPid && alive(pid) ? 'starting' : 'stale';
}

interface SessionCensus extends SessionScan {
  /** Boxes left created by a byre that is gone: safe to remove. */
  stale: LiveBox[];
}

/**
 * Every box of the query, running or not, judged: `boxes` are sessions
 * (running or starting), `stale` are leftovers. One ps and one inspect per engine.
 */
export async function censusSessions(
  pool: EnginePool,
  query: Omit<SessionQuery, 'all'>,
  alive: PidAlive,
  selfPid: number,
): Promise<SessionCensus> {
  const labels = sessionLabels(query);
  const answers = await askPool(pool, async (e) =>
    e.inspectContainers(await e.ps({ labels, all: true })),
  );
  const boxes: LiveBox[] = [];
  const stale: LiveBox[] = [];
  for (const a of answers) {
    if (a.state !== 'ok') continue;
    for (const facts of a.value) {
      const box = { engineName: a.name, engine: a.engine, id: facts.id, labels: facts.labels };
      (judgeBox(facts, alive, selfPid) === 'stale' ? stale : boxes).push(box);
    }
  }
  return { boxes, stale, unchecked: failedAnswers(answers) };
}

/** One line naming each engine that could not be asked, quoting its own words, for refusals and notes. */
export function describeUnchecked(unchecked: SessionScan['unchecked']): string {
  return unchecked
    .map(
      (u) =>
        `${u.name} (${u.message}${u.said === undefined ? '' : `: ${u.name} said "${u.said}"`})`,
    )
    .join('; ');
}
