// `byre dockerrun`: print the exact engine run command develop would use for
// this directory, shell-quoted. Runs nothing in the engine beyond detection.

import type { Io } from '../cli/io.js';
import { assembleRunParams } from '../box/run-params.js';
import { detectEngine } from '../engine/detect.js';
import { createHostTools } from '../engine/host-tools.js';
import { buildRunArgv, shellQuote } from '../engine/run-argv.js';
import { deliveredHostEnv, resolveHostEnv } from '../hostenv/resolve.js';
import { hostReaders } from '../hostenv/readers.js';
import { postureFacts } from '../network/posture.js';
import { loadBox, userHome } from './load.js';

export async function dockerrunCommand(io: Io): Promise<void> {
  const { ctx, config, skills } = await loadBox(io);
  const engine = await detectEngine(config.engine.value, ctx.boxWritableRoots, io.env);
  const tools = createHostTools({ declinedRoots: ctx.boxWritableRoots, env: io.env });
  const git = tools.resolve('git');
  const hostEnv = resolveHostEnv(
    config.envFromHost,
    new Set(Object.keys(config.env)),
    hostReaders(io.env, git.kind === 'found' ? git.path : null),
  );
  const params = assembleRunParams({
    box: ctx,
    config,
    skills,
    engine,
    hostUid: io.uid,
    hostGid: io.gid,
    home: userHome(io),
    hostEnv: deliveredHostEnv(hostEnv),
    labels: { client: io.pid },
  });
  const posture = postureFacts(config, skills);
  if (posture.allowlist !== null) params.egress = posture.allowlist;
  if (posture.hook !== null) {
    io.stderr.write(
      `byre: note: ${posture.skill?.id ?? 'a posture skill'} is on: this box waits at its launch gate and fails closed after ~30 s unless \`byre ejectfirewall\`'s script walls it\n`,
    );
  }
  io.stdout.write(`${shellQuote([engine.name, ...buildRunArgv(params, 'run', io.stdinIsTty)])}\n`);
}
