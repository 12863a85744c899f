// What byre tells the engine, as a launch record: built from the same
// RunParams the create argv comes from, so the record cannot drift from the
// box it describes. Pure; develop writes it, status diffs against it.

import type { EffectiveConfig, VolumeSpec } from '../config/types.js';
import { expandHost, runEnv, type RunParams } from './run-argv.js';
import { WORKSPACE } from './box-layout.js';
import {
  envKeysOf,
  launchTimestamp,
  type LaunchBind,
  type LaunchRecord,
  type LaunchVolume,
} from './launch-record.js';
import type { ResolvedSkill } from '../skills/types.js';
import { volumeEngineName } from './names.js';
import { egressText } from './allowlist.js';

export interface RecordInput {
  params: RunParams;
  config: EffectiveConfig;
  skills: readonly ResolvedSkill[];
  hostUid: number;
  version: string;
  now: Date;
  image: { digest: string; digestError?: string; wiring?: string };
}

function binds(params: RunParams): LaunchBind[] {
  const out: LaunchBind[] = [{ host: params.workspaceDir, target: WORKSPACE, mode: 'rw' }];
  for (const b of [...params.configMounts, ...params.skillMounts, ...params.extraBinds]) {
    if (b.disabled === true) continue;
    out.push({ host: expandHost(b.host, params.home), target: b.target, mode: b.mode });
  }
  return out;
}

function volumes(input: RecordInput): LaunchVolume[] {
  const decls: VolumeSpec[] = [
    ...input.config.volumes.map((v) => v.value),
    ...input.skills.flatMap((s) => s.volumes),
  ];
  return decls.map((v) => ({
    name: volumeEngineName(input.params.projectId, input.hostUid, v),
    target: v.target,
    decl: v.name,
    role: v.role,
    scope: v.scope,
    sharing: v.sharing,
  }));
}

export function launchRecordFor(input: RecordInput): LaunchRecord {
  const { params, config, skills } = input;
  const posture = skills.find((s) => s.runtime.networkPosture !== null);
  return {
    record: 1,
    byre: input.version,
    created: launchTimestamp(input.now),
    project: params.projectId,
    workdir: params.worktreeId,
    engine: params.engine,
    envKeys: envKeysOf(Object.fromEntries(runEnv(params))),
    credentialKeys: [...(params.credentialKeys ?? [])].sort(),
    runArgs: [...params.skillRunArgs, ...params.projectRunArgs],
    image: {
      tag: params.image,
      digest: input.image.digest,
      ...(input.image.digestError === undefined ? {} : { digestError: input.image.digestError }),
      base: config.base.value,
      ...(input.image.wiring === undefined ? {} : { wiring: input.image.wiring }),
    },
    network: {
      posture: posture?.runtime.networkPosture ?? 'open',
      postureSkill: posture?.id ?? '',
      egress: params.egress === undefined ? [] : params.egress.split(' ').filter((e) => e !== ''),
      egressDeny: config.egressClosed.map((c) => egressText(c.value)),
      reservedEnv: skills.flatMap((s) =>
        Object.keys(s.runtime.env)
          .filter((k) => k.startsWith('BYRE_'))
          .sort()
          .map((key) => ({ skill: s.id, key })),
      ),
      projectRunArgs: config.runArgs.length > 0,
      rawBuild: config.dockerfilePre.length + config.dockerfilePost.length > 0,
    },
    binds: binds(params),
    ports: params.ports.map((p) => ({
      interface: p.interface,
      host: p.host === 0 ? p.container : p.host,
      container: p.container,
    })),
    volumes: volumes(input),
    skills: skills.map((s) => ({ name: s.id, provenance: s.provenance })),
  };
}
