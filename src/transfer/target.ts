// The target cascade for deliver and grab: --box (unique prefix), the nearest
// ancestor of cwd that is a box's workdir, the sole box (never on a partial
// pool), the picker, else an error listing the candidates. Pure: the caller
// supplies the discovery, the ancestor ids and whether a picker can run.

import { ByreError } from '../errors.js';
import type { BoxSummary } from './discover.js';

/** The verb a remedy tells the user to run again. */
export type TransferVerb = 'deliver' | 'grab';

interface TargetQuery<T extends BoxSummary> {
  /** Defaults to deliver. */
  verb?: TransferVerb;
  boxes: readonly T[];
  partial: boolean;
  /** --box, when given. */
  boxFlag?: string;
  /** Worktree ids of cwd and each ancestor, nearest first. */
  ancestorIds: readonly string[];
  /**
   * Ancestor ids the store records for another directory, with the refusal
   * to give: a box under such an id is that directory's, so cwd never
   * selects it (as `byre shell` refuses, adr/0023). --box still can.
   */
  foreignIds?: ReadonlyMap<string, ByreError>;
  /** An interactive picker can ask the user. */
  canPick: boolean;
}

type TargetDecision<T extends BoxSummary> =
  | { kind: 'box'; box: T; via: 'flag' | 'cwd' | 'sole' }
  | { kind: 'pick'; candidates: T[] }
  | { kind: 'error'; error: ByreError };

/** One line per candidate, for error details (the renderer escapes it). */
export function describeBox(b: BoxSummary): string {
  const where = b.workdirId === b.projectId ? b.projectId : `${b.projectId} (${b.workdirId})`;
  return `${b.id.slice(0, 12)}  ${b.engine}  ${where}${b.foreign ? '  [foreign]' : ''}`;
}

function listing(boxes: readonly BoxSummary[]): string[] {
  return boxes.map(describeBox);
}

export function chooseTarget<T extends BoxSummary>(q: TargetQuery<T>): TargetDecision<T> {
  if (q.boxFlag !== undefined) {
    const x = q.boxFlag;
    const hits = q.boxes.filter(
      (b) => b.projectId.startsWith(x) || b.workdirId.startsWith(x) || b.id.startsWith(x),
    );
    // An exact workdir or container id wins over prefixes it shares with others.
    const exact = hits.filter((b) => b.workdirId === x || b.id === x);
    const pick = hits.length === 1 ? hits : exact.length === 1 ? exact : [];
    const only = pick[0];
    if (only !== undefined) return { kind: 'box', box: only, via: 'flag' };
    if (hits.length === 0) {
      return {
        kind: 'error',
        error: new ByreError(
          `no running box matches --box ${x}` +
            (q.boxes.length > 0 ? '; running:' : ' (no byre box is running)'),
          {
            rule: 'transfer.box-no-match',
            remedy: 'pass a prefix of one of the ids listed',
            details: listing(q.boxes),
          },
        ),
      };
    }
    return {
      kind: 'error',
      error: new ByreError(`--box ${x} matches ${hits.length} boxes:`, {
        rule: 'transfer.box-ambiguous',
        remedy: 'pass a longer prefix',
        details: listing(hits),
      }),
    };
  }
  for (const id of q.ancestorIds) {
    const here = q.boxes.filter((b) => b.workdirId === id);
    const refused = here.length > 0 ? q.foreignIds?.get(id) : undefined;
    if (refused !== undefined) return { kind: 'error', error: refused };
    const only = here[0];
    if (here.length === 1 && only !== undefined) return { kind: 'box', box: only, via: 'cwd' };
    if (here.length > 1) {
      if (q.canPick) return { kind: 'pick', candidates: here };
      return { kind: 'error', error: several(here) };
    }
  }
  const sole = q.boxes[0];
  if (q.boxes.length === 1 && sole !== undefined && !q.partial) {
    return { kind: 'box', box: sole, via: 'sole' };
  }
  if (q.canPick && q.boxes.length > 0) return { kind: 'pick', candidates: [...q.boxes] };
  if (q.boxes.length === 0) {
    return {
      kind: 'error',
      error: new ByreError(
        q.partial ? 'no byre box was found on the engines that answered' : 'no byre box is running',
        {
          rule: 'transfer.no-box',
          remedy: `start one with \`byre develop\` in a project, then ${q.verb ?? 'deliver'} again`,
        },
      ),
    };
  }
  if (q.partial) {
    return {
      kind: 'error',
      error: new ByreError(
        'an engine did not answer, so byre cannot tell which box you mean; running:',
        {
          rule: 'transfer.partial-pool',
          details: listing(q.boxes),
          remedy: `pick explicitly with --box ${q.boxes[0]?.id.slice(0, 12) ?? '<id>'}`,
        },
      ),
    };
  }
  return { kind: 'error', error: several(q.boxes) };
}

/** Two decisions the user would tell apart: another box, other candidates, another error. */
function sameDecision<T extends BoxSummary>(a: TargetDecision<T>, b: TargetDecision<T>): boolean {
  const ids = (boxes: readonly T[]): string =>
    boxes
      .map((c) => c.id)
      .sort()
      .join();
  if (a.kind === 'box' && b.kind === 'box') return a.box.id === b.box.id;
  if (a.kind === 'pick' && b.kind === 'pick') return ids(a.candidates) === ids(b.candidates);
  if (a.kind === 'error' && b.kind === 'error') {
    const said = (e: ByreError): string => [e.message, ...[...e.details].sort()].join('\n');
    return said(a.error) === said(b.error);
  }
  return false;
}

/**
 * Whether the boxes left out for running as another uid would have changed
 * the cascade's decision: only then is the user told they were hidden (a
 * delivery into this directory's own box does not need the line every time).
 */
export function hiddenChangeDecision<T extends BoxSummary>(
  q: TargetQuery<T>,
  hidden: readonly T[],
): boolean {
  if (hidden.length === 0) return false;
  return !sameDecision(chooseTarget(q), chooseTarget({ ...q, boxes: [...q.boxes, ...hidden] }));
}

function several(boxes: readonly BoxSummary[]): ByreError {
  return new ByreError(`${boxes.length} boxes are running — pick one with --box:`, {
    rule: 'transfer.ambiguous',
    details: listing(boxes),
  });
}
