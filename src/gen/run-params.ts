// Assembles the engine-facing RunParams for one box from the resolved config,
// the enabled skills and what detection learned about the engine. Pure: the
// same inputs give develop and `byre dockerrun` the same argv.

import type { EffectiveConfig, VolumeSpec } from '../config/types.js';
import { deliveredCredentialRows } from '../config/credential-rows.js';
import { bakedIds, imageTag, volumeEngineName } from './names.js';
import type { RunBind, RunLabels, RunParams, RunVolume } from './run-argv.js';
import type { EngineFacts } from '../engine/types.js';
import type { ResolvedSkill } from '../skills/types.js';
import { postureFacts, type PostureFacts } from './posture.js';

export interface BoxIdentity {
  projectId: string;
  worktreeId: string;
  worktreeDir: string;
  /** A linked worktree's git paths as git recorded them (null otherwise). */
  gitPaths: { commonGitDir: string; worktreeDir: string } | null;
}

export interface RunParamsInput {
  box: BoxIdentity;
  config: EffectiveConfig;
  skills: readonly ResolvedSkill[];
  engine: Pick<EngineFacts, 'name' | 'keepId'>;
  hostUid: number;
  hostGid: number;
  /** The user's home, for `~` in bind sources. */
  home: string;
  /** Delivered env_from_host values. */
  hostEnv: Readonly<Record<string, string>>;
  labels: RunLabels;
}

function skillEnv(skills: readonly ResolvedSkill[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const s of skills) Object.assign(env, s.runtime.env);
  return env;
}

/** Git inside the box follows the recorded paths, so each is bound at exactly that path. */
export function worktreeBinds(box: Pick<BoxIdentity, 'gitPaths'>): RunBind[] {
  if (box.gitPaths === null) return [];
  const { commonGitDir, worktreeDir } = box.gitPaths;
  return [
    { host: commonGitDir, target: commonGitDir, mode: 'rw' },
    { host: worktreeDir, target: worktreeDir, mode: 'rw' },
  ];
}

function assembleRunParams(input: RunParamsInput): RunParams {
  const { box, config, skills, engine } = input;
  const ids = bakedIds(engine.keepId, input.hostUid, input.hostGid);
  const credentialKeys = deliveredCredentialRows(config).map((r) => r.key);
  const vol = (v: VolumeSpec): RunVolume => ({
    name: volumeEngineName(box.projectId, input.hostUid, v),
    target: v.target,
  });
  return {
    engine: engine.name,
    worktreeId: box.worktreeId,
    projectId: box.projectId,
    uid: ids.uid,
    gid: ids.gid,
    skillEnv: skillEnv(skills),
    hostEnv: input.hostEnv,
    workspaceDir: box.worktreeDir,
    home: input.home,
    configMounts: config.mounts.map((m) => m.value),
    skillMounts: skills.flatMap((s) => s.runtime.mounts),
    extraBinds: worktreeBinds(box),
    configVolumes: config.volumes.map((v) => vol(v.value)),
    skillVolumes: skills.flatMap((s) => s.volumes.map(vol)),
    ports: config.ports.map((p) => p.value),
    caps: skills.flatMap((s) => s.runtime.caps),
    groupAdd: [],
    keepId: engine.keepId,
    skillRunArgs: skills.flatMap((s) => s.runtime.runArgs),
    projectRunArgs: config.runArgs.map((a) => a.value),
    labels: input.labels,
    image: imageTag(box.projectId, ids.uid, ids.gid),
    ...(credentialKeys.length === 0 ? {} : { credentialKeys }),
  };
}

/**
 * RunParams as develop launches them: assembleRunParams plus the enforced
 * allowlist (BYRE_EGRESS) under an allowlist posture. dockerrun, status's
 * next-launch record and develop all build their params here.
 */
export function launchRunParams(
  input: RunParamsInput,
  /** postureFacts of the same config and skills, when the caller has them already. */
  posture: Pick<PostureFacts, 'allowlist'> = postureFacts(input.config, input.skills),
): RunParams {
  const params = assembleRunParams(input);
  return posture.allowlist === null ? params : { ...params, egress: posture.allowlist };
}
