// `byre ejectfirewall`: print the firewall's outside-the-box step as a
// standalone script. An error when no network-posture skill is enabled.

import type { Io } from '../io.js';
import { ByreError } from '../errors.js';
import { bakedIds, imageTag } from '../gen/names.js';
import { ejectedInjectionLines } from '../credentials/injection-plan.js';
import { ejectFirewallScript } from '../network/eject.js';
import { helperEnv, postureFacts } from '../gen/posture.js';
import { loadBox } from './load.js';
import { withDefaults, type CommandDeps } from './deps.js';
import { projectEngineFacts } from './project-engine.js';

export async function ejectfirewallCommand(io: Io, deps: CommandDeps = {}): Promise<void> {
  const { ctx, config, skills, trees } = await loadBox(io);
  const posture = postureFacts(config, skills);
  if (posture.hook === null || posture.skill === null) {
    throw new ByreError(
      'no network-posture skill is enabled for this project, so there is no firewall to eject',
      {
        rule: 'ejectfirewall.no-posture',
        remedy: 'enable byre/firewall (deny-by-default) or byre/firewall-open in the config first',
      },
    );
  }
  const detect = withDefaults(deps).detect;
  const engine = await projectEngineFacts(detect, ctx, { config, trees }, io.env);
  const ids = bakedIds(engine.keepId, io.uid, io.gid);
  io.stdout.write(
    ejectFirewallScript({
      engine: engine.name,
      image: imageTag(ctx.projectId, ids.uid, ids.gid),
      hook: posture.hook,
      posture: posture.posture,
      skillId: posture.skill.id,
      projectId: ctx.projectId,
      env: helperEnv({}, posture, ids.uid, io.env['BYRE_WALL_UPSTREAM']),
      joinUserns: engine.keepId,
    }),
  );
  // Nor does the ejected wall carry the edge (adr/0070): say so where the script is read.
  for (const line of ejectedInjectionLines(config.injections)) io.stdout.write(`${line}\n`);
}
