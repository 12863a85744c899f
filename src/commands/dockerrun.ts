// `byre dockerrun`: print the exact engine run command develop would use for
// this directory, shell-quoted, less the byre.client label that names the byre
// process staying with a box, after one comment per credential injected at
// the edge (not carried). Runs nothing in the engine beyond detection;
// on rootless podman it stages the wiring the command binds (adr/0075).

import type { Io } from '../io.js';
import { checkContainment, containmentInput } from '../containment/check.js';
import { launchRunParams } from '../gen/run-params.js';
import { sockProbes } from '../session/sock-groups.js';
import { planPorts, portRefusal } from '../session/port-plan.js';
import { buildRunArgv } from '../gen/run-argv.js';
import { say } from '../output/notes.js';
import { ejectedInjectionLines } from '../credentials/injection-plan.js';
import { shellQuote } from '../output/shell-quote.js';
import { deliveredHostEnv } from '../hostenv/resolve.js';
import { postureFacts } from '../gen/posture.js';
import { storeTag } from '../project/store-layout.js';
import { containerName } from '../gen/names.js';
import { stageBoundWiring, wiringDeliveryNow } from '../session/bound-wiring.js';
import { splitPlan } from '../session/image-parts.js';
import { boxHostEnv, loadBox, planBox, userHome } from './load.js';
import { withDefaults, type CommandDeps } from './deps.js';
import { projectEngineFacts } from './project-engine.js';

export async function dockerrunCommand(io: Io, deps: CommandDeps = {}): Promise<void> {
  const loaded = await loadBox(io);
  const { ctx, config, skills, trees } = loaded;
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
    if (engine.name === 'podman') {
      // podman cannot remove a box another container joins: with --rm its
      // run would wait ~20 s after the box exits and leave it behind (adr/0063).
      params.removedBy = 'user';
      const box = containerName(ctx.worktreeId);
      say(
        io.stderr,
        `the command has no --rm: podman cannot remove a box the wall's helper joins; after the session run \`podman rm -f ${box}-wall; podman rm -f ${box}\``,
        'note',
      );
    }
  }
  for (const sock of sockProbes(skills, userHome(io))) {
    say(
      io.stderr,
      `${sock.skill} mounts ${sock.target}; byre develop probes its group in the built image and adds --group-add <gid>, which this command cannot: add it yourself (the gid \`stat -c %g ${sock.target}\` shows in the box)`,
      'note',
    );
  }
  if (wiringDeliveryNow(engine, io.env) === 'bound') {
    // The image holds no wiring on this engine (adr/0075): the command binds
    // the directory develop would, staged now, read-only.
    const plan = await planBox(io, loaded);
    const wiring = await stageBoundWiring(
      ctx.project.boundWiring,
      splitPlan(plan).wiring,
      ctx.projectRoot,
    );
    params.extraBinds = [...params.extraBinds, ...wiring.binds];
    say(
      io.stderr,
      `rootless podman binds the box's wiring (MCP servers, Claude Skills, agent context) read-only from ${wiring.dir}; byre develop proves each bind at start, this command cannot`,
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
  // The edge is not carried (adr/0070): one comment per injected key, and no
  // value for it in the command, not even the sentinel; the box skips the
  // edge gate develop's image bakes, which no edge would open (adr/0084).
  for (const line of ejectedInjectionLines(config.injections)) io.stdout.write(`${line}\n`);
  if (config.injections.length > 0) params.skipEdgeGate = true;
  io.stdout.write(`${shellQuote([engine.name, ...buildRunArgv(params, 'run', io.stdinIsTty)])}\n`);
}
