// The shared shape of reset and forget: refuse while a session of the project
// is live, list what dies, ask, remove what every reachable engine holds, and
// then refuse to claim completeness over an engine byre could not reach. Never
// touches machine-scoped volumes or the project tree.

import type { Confirm, Writer } from '../io.js';
import { ByreError, RefusedError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import { removeTree } from '../host/remove.js';
import { say } from '../output/notes.js';
import {
  describeUnreached,
  removeInventory,
  takeInventory,
  type Inventory,
  type RemovalFailure,
  type Unreached,
} from './inventory.js';
import type { EnginePool } from '../engine/pool.js';
import { censusSessions, pidAlive } from '../session/census.js';

export type TeardownVerb = 'reset' | 'forget';

interface TeardownRequest {
  verb: TeardownVerb;
  projectId: string;
  pool: EnginePool;
  /** forget: images too. */
  images: boolean;
  /** forget: the project's store directories that exist (its folder, its bound wiring). */
  storeDirs: readonly string[];
  yes: boolean;
  confirm: Confirm;
  stderr: Writer;
  /**
   * The role the current config declares for each volume (by engine name);
   * null when the config did not load, so no role is known.
   */
  volumeRoles?: ReadonlyMap<string, 'state' | 'cache'> | null;
}

export interface TeardownOutcome {
  /** What went, one line each as it was listed before (`docker volume byre-…`, `store /…`). */
  removed: string[];
  failures: RemovalFailure[];
  unreached: Unreached[];
}

/**
 * The warning over volumes that may hold what cannot be rebuilt (logins,
 * history), naming them; null when every doomed volume is a declared cache.
 * A volume the config no longer declares, or any when it did not load, may.
 */
function stateVolumeWarning(
  volumes: readonly string[],
  roles: ReadonlyMap<string, 'state' | 'cache'> | null,
): string | null {
  const state = volumes.filter((v) => roles?.get(v) === 'state');
  const unknown = volumes.filter((v) => roles?.get(v) === undefined);
  const parts: string[] = [];
  if (state.length > 0) {
    parts.push(
      `state volumes hold agent logins and shell history and cannot be recovered: ${state.join(', ')}`,
    );
  }
  if (unknown.length > 0) {
    const why = roles === null ? 'the config did not load' : 'the config no longer declares them';
    parts.push(`${unknown.join(', ')} may hold state too (${why})`);
  }
  return parts.length === 0 ? null : parts.join('; ');
}

/** The lines naming what dies and what is left alone (pure). */
function describeTeardown(
  verb: TeardownVerb,
  projectId: string,
  inv: Inventory,
  storeDirs: readonly string[],
): { doomed: string[]; notes: string[] } {
  const doomed: string[] = [];
  const notes: string[] = [];
  for (const e of inv.engines) {
    // A stopped box, or a helper a killed byre left in its network: nothing else removes them.
    for (const c of e.stopped) doomed.push(`${e.engineName} stopped container ${c.slice(0, 12)}`);
    for (const v of e.volumes.doomed) doomed.push(`${e.engineName} volume ${v}`);
    for (const i of e.images) doomed.push(`${e.engineName} image ${i}`);
  }
  for (const dir of storeDirs) doomed.push(`store ${dir}`);
  const machine = [...new Set(inv.engines.flatMap((e) => e.volumes.machine))].sort();
  if (machine.length > 0) {
    notes.push(`left alone (machine-scoped, shared by every project): ${machine.join(', ')}`);
  }
  for (const e of inv.engines) {
    for (const a of e.volumes.ambiguous) {
      notes.push(
        `left alone: ${e.engineName} volume ${a.name} (unlabelled; it may belong to project ${a.maybe})`,
      );
    }
  }
  if (doomed.length === 0) notes.push(`${verb}: nothing of project ${projectId} to remove`);
  return { doomed, notes };
}

export async function teardown(req: TeardownRequest): Promise<TeardownOutcome> {
  const scan = await censusSessions(req.pool, { projectId: req.projectId }, pidAlive, process.pid);
  const live = scan.boxes[0];
  if (live !== undefined) {
    const short = live.id.slice(0, 12);
    // A refusal (exit 3, adr/0023): nothing was touched, and it succeeds once the session ends.
    throw new RefusedError(
      `a session of project ${req.projectId} is live (${live.engineName} ${short})`,
      {
        rule: `${req.verb}.session-live`,
        remedy: `end it first (${live.engineName} stop ${short}), then run byre ${req.verb} again`,
      },
    );
  }
  const inv = await takeInventory(req.pool, req.projectId, { images: req.images });
  const { doomed, notes } = describeTeardown(req.verb, req.projectId, inv, req.storeDirs);
  const unreached = inv.unreached;
  if (doomed.length > 0) {
    say(req.stderr, `${req.verb} removes, for project ${req.projectId}:`);
    for (const line of doomed) req.stderr.write(`  ${escapeTerminal(line)}\n`);
    const volumes = [...new Set(inv.engines.flatMap((e) => e.volumes.doomed))];
    const warning = stateVolumeWarning(volumes, req.volumeRoles ?? null);
    if (warning !== null) say(req.stderr, warning);
  }
  for (const n of notes) say(req.stderr, n);
  if (unreached.length > 0) {
    say(req.stderr, `could not check: ${describeUnreached(unreached)}`);
  }
  if (inv.denied.length > 0) {
    say(
      req.stderr,
      `left unchecked, as this user may not use it: ${describeUnreached(inv.denied)}`,
    );
  }
  const outcome: TeardownOutcome = { removed: [], failures: [], unreached };
  if (doomed.length === 0) return outcome;
  if (
    !req.yes &&
    !(await req.confirm(`${req.verb === 'reset' ? 'Wipe' : 'Remove'} all of the above?`))
  ) {
    throw new ByreError(`${req.verb} cancelled; nothing was removed`, {
      rule: `${req.verb}.cancelled`,
    });
  }
  for (const e of inv.engines) {
    const failed = await removeInventory(e);
    outcome.failures.push(...failed);
    const failedWhat = new Set(failed.map((f) => f.what));
    for (const c of e.stopped)
      if (!failedWhat.has(`container ${c.slice(0, 12)}`))
        outcome.removed.push(`${e.engineName} stopped container ${c.slice(0, 12)}`);
    for (const v of e.volumes.doomed)
      if (!failedWhat.has(`volume ${v}`)) outcome.removed.push(`${e.engineName} volume ${v}`);
    for (const i of e.images)
      if (!failedWhat.has(`image ${i}`)) outcome.removed.push(`${e.engineName} image ${i}`);
  }
  for (const dir of req.storeDirs) {
    try {
      await removeTree(dir);
      outcome.removed.push(`store ${dir}`);
    } catch (error) {
      outcome.failures.push({
        where: 'store',
        what: dir,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return outcome;
}

/** The confirmation: a heading, then each removed item on its own line (as listed before the question). */
export function confirmRemoved(stderr: Writer, heading: string, removed: readonly string[]): void {
  if (removed.length === 0) return;
  say(stderr, heading);
  for (const line of removed) stderr.write(`  ${escapeTerminal(line)}\n`);
}

/** Turns an incomplete outcome into the exit-1 error; silent when everything went. */
export function throwIfIncomplete(
  verb: TeardownVerb,
  projectId: string,
  out: TeardownOutcome,
): void {
  const parts: string[] = [];
  if (out.failures.length > 0) {
    const failed = out.failures.map((f) => `${f.where} ${f.what} (${f.message})`);
    parts.push(`could not remove ${failed.join('; ')}`);
  }
  if (out.unreached.length > 0) {
    parts.push(
      `could not reach ${describeUnreached(out.unreached)}; volumes byre-${projectId}-* and images byre-${projectId}-u*-g* may remain there`,
    );
  }
  if (parts.length === 0) return;
  const what = verb === 'reset' ? 'volumes were NOT all wiped' : 'was NOT completely removed';
  throw new ByreError(`project ${projectId} ${what}: ${parts.join('; ')}`, {
    rule: `${verb}.incomplete`,
    remedy: `fix the engine or object named above, then run byre ${verb} again`,
  });
}
