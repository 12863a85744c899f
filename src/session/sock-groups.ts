// The sock_groups probe: a skill that mounts a host socket (docker-host's
// /var/run/docker.sock) names it in sock_groups, and develop asks the ENGINE
// which group owns it (a helper runs `stat -c %g` on the bind in the box's
// own image), so dev joins that group with --group-add. The engine's view is
// the one that counts: under Docker Desktop or a VM the host file's group is
// not the group the box sees (adr/0021).

import { randomBytes } from 'node:crypto';
import { ByreError, EngineError } from '../errors.js';
import {
  BIND_PROOF_EXIT,
  bindProofEnvArgs,
  provenScript,
  type ProvenBind,
} from '../gen/bind-proof.js';
import {
  bindProofRefusal,
  provenBinds,
  type BindPins,
  type SourcedBind,
} from '../containment/bind-pins.js';
import { DROP_PRIVILEGES, helperUsernsArgs, NEVER_PULL } from '../engine/argv.js';
import type { SessionRunner } from '../engine/engine.js';
import { helperName } from '../gen/names.js';
import { expandHost } from '../gen/run-argv.js';
import { normalizeTarget } from '../config/grammar.js';
import type { ResolvedSkill } from '../skills/types.js';

/** The group id the kernel shows for an id not mapped into a user namespace. */
const OVERFLOW_GID = 65534;

/** The reference bounds the probe at 5 minutes. */
const SOCK_PROBE_TIMEOUT_MS = 300_000;

interface SockProbe {
  skill: string;
  /** Host side of the bind (already expanded). */
  host: string;
  /** The socket's path in the box. */
  target: string;
}

/** Every sock_groups path of the enabled skills, with the bind that brings it in. Pure. */
export function sockProbes(skills: readonly ResolvedSkill[], home: string): SockProbe[] {
  return skills.flatMap((skill) =>
    skill.runtime.sockGroups.flatMap((sock) => {
      const mount = skill.runtime.mounts.find(
        (m) => normalizeTarget(m.target) === normalizeTarget(sock),
      );
      // The manifest rules require the mount; a skill without one has nothing to probe.
      if (mount === undefined) return [];
      return [{ skill: skill.id, host: expandHost(mount.host, home), target: mount.target }];
    }),
  );
}

/**
 * `run --rm --name … --user 0:0 --entrypoint stat --mount … <image> -c %g <target>`;
 * with a proof (adr/0045), `sh` proves the bind first, then runs that stat. Pure.
 */
function sockProbeArgv(
  probe: SockProbe,
  image: string,
  keepId: boolean,
  name: string,
  proof: readonly ProvenBind[] | null = null,
): string[] {
  const head = [
    'run',
    '--rm',
    NEVER_PULL,
    '--name',
    name,
    '--user',
    '0:0',
    ...helperUsernsArgs(keepId),
    // `stat` of a bind needs no capability (adr/0050).
    '--network',
    'none',
    ...DROP_PRIVILEGES,
  ];
  const mount = ['--mount', `type=bind,source=${probe.host},target=${probe.target}`];
  if (proof === null) {
    return [...head, '--entrypoint', 'stat', ...mount, image, '-c', '%g', probe.target];
  }
  return [
    ...head,
    '--entrypoint',
    'sh',
    ...bindProofEnvArgs(proof),
    ...mount,
    image,
    '-c',
    provenScript('exec stat -c %g "$1"', proof),
    'byre-sock-probe',
    probe.target,
  ];
}

function probeBind(probe: SockProbe): SourcedBind {
  return {
    source: probe.host,
    target: probe.target,
    label: `the socket ${probe.host} -> ${probe.target}`,
  };
}

/** The gid `stat -c %g` printed, or null when the answer is not one number. Pure. */
function parseGid(stdout: string): number | null {
  const text = stdout.trim();
  if (!/^[0-9]{1,10}$/.test(text)) return null;
  const gid = Number(text);
  return gid <= 0xffffffff ? gid : null;
}

interface SockGroups {
  /** Sorted, unique; never the overflow gid. */
  gids: number[];
  /** A socket whose group the box cannot join, said plainly. */
  warnings: string[];
}

/**
 * Asks the engine for each socket's group. A probe that fails fails the
 * launch: the socket is a declared grant, and a box that cannot use it
 * should say so before it starts, not when the agent tries.
 */
export async function probeSockGroups(
  engine: SessionRunner,
  probes: readonly SockProbe[],
  image: string,
  keepId: boolean,
  pins: BindPins | null = null,
): Promise<SockGroups> {
  const gids = new Set<number>();
  const warnings: string[] = [];
  for (const probe of probes) {
    const name = helperName('sockprobe', randomBytes(8).toString('hex'));
    const proof = pins === null ? null : provenBinds([probeBind(probe)], pins);
    let stdout: string;
    try {
      ({ stdout } = await engine.run(sockProbeArgv(probe, image, keepId, name, proof), {
        timeoutMs: SOCK_PROBE_TIMEOUT_MS,
      }));
    } catch (error) {
      await engine.remove(name).catch(() => false);
      if (
        proof !== null &&
        error instanceof EngineError &&
        error.engineExitCode === BIND_PROOF_EXIT
      ) {
        throw bindProofRefusal(`the ${probe.skill} socket probe`, [probeBind(probe)], proof);
      }
      throw new ByreError(
        `${probe.skill} mounts ${probe.host} at ${probe.target}, and probing its group failed`,
        {
          rule: 'develop.sock-probe-failed',
          remedy: `check that ${probe.host} exists and the service behind it runs, or disable ${probe.skill}`,
          cause: error,
        },
      );
    }
    const gid = parseGid(stdout);
    if (gid === null) {
      throw new ByreError(
        `probing the group of ${probe.target} (${probe.skill}) gave no group id`,
        { rule: 'develop.sock-probe-failed', remedy: 'run byre rebuild, then try again' },
      );
    }
    if (gid === OVERFLOW_GID) {
      warnings.push(
        `${probe.target} (${probe.skill}): its group is not mapped into this engine's user namespace, so dev cannot join it and may not be able to use the socket`,
      );
    } else {
      gids.add(gid);
    }
  }
  return { gids: [...gids].sort((a, b) => a - b), warnings };
}
