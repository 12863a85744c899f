// The plan-ports step (adr/0034): the host ports this session publishes, the
// configured ones in the main worktree and the worktree's block in a linked
// one, refused before anything is created when they cannot be had; and the
// banner line that shows them.

import { planPorts, portMappingText, portRefusal, siblingPortsFrom } from './port-plan.js';
import { censusSessions } from './census.js';
import type { PortSpec } from '../config/types.js';
import type { PortChoice } from '../gen/port-block.js';
import type { SessionContext } from './context.js';

/** The ports this session publishes. No ports, no engine query. */
export async function sessionPorts(
  s: Pick<SessionContext, 'pool' | 'ctx' | 'alive'> & { selfPid: number },
  ports: readonly PortSpec[],
): Promise<PortChoice> {
  if (ports.length === 0) return { kind: 'ok', ports: [], block: null };
  const { ctx } = s;
  const scan = await censusSessions(s.pool, { projectId: ctx.projectId }, s.alive, s.selfPid);
  const boxes = await Promise.all(
    scan.boxes.map(async (b) => ({
      id: b.id,
      labels: b.labels ?? (await b.engine.inspectLabels(b.id)),
    })),
  );
  const choice = await planPorts({
    ports,
    linked: ctx.isLinkedWorktree,
    worktreeId: ctx.worktreeId,
    siblings: siblingPortsFrom(boxes, ctx.project.launches),
  });
  const refusal = portRefusal(choice);
  if (refusal !== null) throw refusal;
  return choice;
}

/** The banner's ports line: the mapping, and the block a linked worktree took. */
export function portBanner(choice: PortChoice): string[] {
  if (choice.kind !== 'ok' || choice.ports.length === 0) return [];
  const block = choice.block === null ? '' : `  (this worktree's port block ${choice.block})`;
  return [`byre: ports: ${portMappingText(choice.ports)}${block}`];
}
