// Live sessions across every installed engine, found by labels (never by an
// assumed name): byre.project for the project, plus byre.workdir for one
// worktree's session.

import { LABEL } from '../engine/names.js';
import type { Engine } from '../engine/engine.js';
import type { EngineName } from '../engine/types.js';
import { askPool, failedAnswers, type EnginePool, type PoolAnswer } from './pool.js';

export interface LiveBox {
  engineName: EngineName;
  engine: Engine;
  id: string;
}

export interface SessionQuery {
  projectId: string;
  worktreeId?: string;
  /** Include stopped and created containers. */
  all?: boolean;
}

export interface SessionScan {
  boxes: LiveBox[];
  /** Engines byre could not ask (declined, unreachable, failed). */
  unchecked: Exclude<PoolAnswer<string[]>, { state: 'ok' }>[];
}

export async function findSessions(pool: EnginePool, query: SessionQuery): Promise<SessionScan> {
  const labels: Record<string, string> = { [LABEL.project]: query.projectId };
  if (query.worktreeId !== undefined) labels[LABEL.workdir] = query.worktreeId;
  const answers = await askPool(pool, (e) => e.ps({ labels, all: query.all === true }));
  const boxes = answers.flatMap((a) =>
    a.state === 'ok' ? a.value.map((id) => ({ engineName: a.name, engine: a.engine, id })) : [],
  );
  return { boxes, unchecked: failedAnswers(answers) };
}

/** One line naming each engine that could not be asked, for refusals and notes. */
export function describeUnchecked(unchecked: SessionScan['unchecked']): string {
  return unchecked.map((u) => `${u.name} (${u.message})`).join('; ');
}
