// Clearing a machine-scoped volume's data (the config editor's Volume data
// row): any project's box may mount the volume, so it is deleted only when no
// running byre box on any engine mounts it, and on every engine that has it.
// A stopped box still holding it makes that engine refuse; the refusal is
// reported as it came.

import { LABEL } from '../gen/names.js';
import { isMachineVolume } from './project-objects.js';
import { askPool, failedAnswers, openAnswers, type EnginePool } from '../engine/pool.js';
import { describeUnchecked } from '../session/census.js';

interface ClearOutcome {
  ok: boolean;
  message: string;
}

export async function clearMachineVolume(pool: EnginePool, volume: string): Promise<ClearOutcome> {
  if (!isMachineVolume(volume)) {
    return { ok: false, message: `${volume} is not a machine-scoped volume; nothing cleared` };
  }
  const running = await askPool(pool, (e) =>
    e.ps({ labels: {}, hasLabels: [LABEL.project], all: false, volume }),
  );
  const open = openAnswers(running);
  if (open.length > 0) {
    return {
      ok: false,
      message: `${volume} kept: byre could not ask ${describeUnchecked(open)} whether a session runs`,
    };
  }
  const live = running.reduce((n, a) => n + (a.state === 'ok' ? a.value.length : 0), 0);
  if (live > 0) {
    return {
      ok: false,
      message: `${volume} kept: ${live} running byre box${live === 1 ? '' : 'es'} mount${live === 1 ? 's' : ''} it; end ${live === 1 ? 'that session' : 'those sessions'}, then clear it`,
    };
  }
  const removed = await askPool(pool, (e) => e.volumeRemove(volume));
  const gone = removed.flatMap((a) => (a.state === 'ok' && a.value ? [a.name] : []));
  const failed = failedAnswers(removed).filter((a) => a.state !== 'unreachable');
  if (failed.length > 0) {
    const done = gone.length > 0 ? `deleted on ${gone.join(' and ')}, but ` : '';
    return { ok: false, message: `${volume}: ${done}not cleared on ${describeUnchecked(failed)}` };
  }
  return {
    ok: true,
    message:
      gone.length === 0
        ? `${volume} holds no data on any engine; nothing to clear`
        : `${volume} cleared (deleted on ${gone.join(' and ')}); the next box starts it empty`,
  };
}
