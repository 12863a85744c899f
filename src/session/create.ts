// The create step: the socket groups probed in the image (a skill that
// mounts a host socket needs its gid), the mount points made in the project
// so the engine does not make them root-owned, then the box created (not
// started) from the sealed params.

import type { BindPins } from '../containment/bind-pins.js';
import type { PlannedVolume } from './volume-ops.js';
import { precreateMountPoints } from './mount-points.js';
import { probeSockGroups, sockProbes } from './sock-groups.js';
import { buildRunArgv, type RunParams } from '../gen/run-argv.js';
import { say } from '../output/notes.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { SessionContext } from './context.js';
import { warnSelfEdit } from './self-edit.js';

/** The gids of the host sockets the skills mount, probed in the image; after it exists, before the record. */
export async function socketGroups(
  s: Pick<SessionContext, 'io' | 'home' | 'engine'>,
  skills: readonly ResolvedSkill[],
  image: string,
  pins: BindPins | null,
): Promise<number[]> {
  const { engine } = s;
  const probed = await probeSockGroups(
    engine,
    sockProbes(skills, s.home),
    image,
    engine.facts.keepId,
    pins,
  );
  for (const w of probed.warnings) say(s.io.stderr, w, 'warning');
  return probed.gids;
}

/** Where the box mounts something inside the project: the volumes, then each enabled mount. */
function mountTargets(
  volumes: readonly PlannedVolume[],
  params: Pick<RunParams, 'configMounts' | 'skillMounts'>,
): string[] {
  return [
    ...volumes.map((v) => v.decl.target),
    ...[...params.configMounts, ...params.skillMounts]
      .filter((m) => m.disabled !== true)
      .map((m) => m.target),
  ];
}

/** Make the mount points, say self-edit is on, and create the box; its id. */
export async function createBox(
  s: Pick<SessionContext, 'io' | 'ctx' | 'engine' | 'selfEdit'>,
  params: RunParams,
  volumes: readonly PlannedVolume[],
): Promise<string> {
  const { io, ctx } = s;
  for (const skipped of await precreateMountPoints(
    ctx.worktreeDir,
    mountTargets(volumes, params),
  )) {
    say(
      io.stderr,
      `${skipped} is not a plain directory in the project; the engine decides what is mounted there`,
      'warning',
    );
  }
  if (s.selfEdit) warnSelfEdit(io, ctx);
  return s.engine.create(buildRunArgv(params, 'create', io.stdinIsTty));
}
