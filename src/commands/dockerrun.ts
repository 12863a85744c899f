// `byre dockerrun`: print the exact engine run command develop would use for
// this directory, shell-quoted, less the byre.client label that names the byre
// process staying with a box. Runs nothing in the engine beyond detection.

import type { Io } from '../io.js';
import { checkContainment, containmentInput } from '../containment/check.js';
import { launchRunParams } from '../gen/run-params.js';
import { sockProbes } from '../session/sock-groups.js';
import { planPorts, portRefusal } from '../session/port-plan.js';
import { buildRunArgv } from '../gen/run-argv.js';
import { say } from '../output/notes.js';
import { shellQuote } from '../output/shell-quote.js';
import { deliveredHostEnv } from '../hostenv/resolve.js';
import { postureFacts } from '../gen/posture.js';
import { storeTag } from '../project/store-layout.js';
import { boxHostEnv, loadBox, userHome } from './load.js';
import { withDefaults, type CommandDeps } from './deps.js';
import { projectEngineFacts } from './project-engine.js';

export async function dockerrunCommand(io: Io, deps: CommandDeps = {}): Promise<void> {
  const { ctx, config, skills, trees } = await loadBox(io);
  await checkContainment(containmentInput(ctx, ctx.store.home, userHome(io), config, skills));
  const detect = withDefaults(deps).detect;
  const engine = await projectEngineFacts(detect, ctx, { config, trees }, io.env);
  const hostEnv = boxHostEnv(io, trees, config);
  const params = launchRunParams({
    box: ctx,
    config,
    skills,
    engine,
    hostUid: io.uid,
    hostGid: io.gid,
    home: userHome(io),
    hostEnv: deliveredHostEnv(hostEnv),
    // No byre.client: this byre exits once it prints, and is not the box's
    // client; status then says the box was started outside byre (adr/0024).
    labels: { store: storeTag(ctx.store.home) },
  });
  // A linked worktree publishes its own port block (adr/0034); the host
  // probe decides it here, without asking the engine about other boxes.
  const ports = await planPorts({
    ports: params.ports,
    linked: ctx.isLinkedWorktree,
    worktreeId: ctx.worktreeId,
    siblings: [],
  });
  if (ports.kind === 'ok') params.ports = ports.ports;
  else say(io.stderr, portRefusal(ports)?.message ?? '', 'note');
  const posture = postureFacts(config, skills);
  if (posture.hook !== null) {
    say(
      io.stderr,
      `${posture.skill?.id ?? 'a posture skill'} is on: this box waits at its launch gate and fails closed after ~30 s unless \`byre ejectfirewall\`'s script walls it`,
      'note',
    );
  }
  for (const sock of sockProbes(skills, userHome(io))) {
    say(
      io.stderr,
      `${sock.skill} mounts ${sock.target}; byre develop probes its group in the built image and adds --group-add <gid>, which this command cannot: add it yourself (the gid \`stat -c %g ${sock.target}\` shows in the box)`,
      'note',
    );
  }
  const credentials = params.credentialKeys ?? [];
  if (credentials.length > 0) {
    say(
      io.stderr,
      `credentials (${credentials.join(', ')}) are not carried: they need byre develop's passphrase and its credential channel, so this box waits at its credential gate and fails closed after ~30 s`,
      'note',
    );
  }
  io.stdout.write(`${shellQuote([engine.name, ...buildRunArgv(params, 'run', io.stdinIsTty)])}\n`);
}
