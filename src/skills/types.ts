// What an enabled skill contributes, after its skill.toml was parsed and its
// payload located. The generator and the run-argv builder read only this; the
// package store (install, fork, pack) and the manifest parser produce it.

import type { ClaudeSkillSpec, McpSpec, MountSpec, VolumeSpec } from '../config/types.js';

export type Provenance = 'bundled' | 'installed' | 'local';

/** One payload file a skill copies into the image. */
export interface SkillFile {
  /** Path inside the build context, relative to its root (`skills/byre/claude/wrapper.sh`). */
  staged: string;
  /** Absolute destination in the image. */
  dest: string;
  executable: boolean;
  /** The bytes to stage; the generator never reads them, the stager writes them. */
  content: Uint8Array;
}

export interface SkillAgent {
  command: string;
  /** Name of this skill's state volume that holds the agent's login. */
  state: string | null;
  context: boolean;
  mcp: boolean;
  claudeSkills: boolean;
}

export interface ResolvedSkill {
  /** Canonical id: `byre/claude`, `owner/name`, or a local bare name. */
  id: string;
  provenance: Provenance;
  version: string;
  description: string;
  build: {
    apt: string[];
    dockerfile: string[];
    files: SkillFile[];
  };
  runtime: {
    env: Record<string, string>;
    runArgs: string[];
    caps: string[];
    mounts: MountSpec[];
    networkPosture: string | null;
    netnsInit: string | null;
    egress: string[];
    egressOffered: string[];
    sockGroups: string[];
    containment: string | null;
  };
  agent: SkillAgent | null;
  volumes: VolumeSpec[];
  mcp: McpSpec[];
  claudeSkills: ClaudeSkillSpec[];
  /** Prose appended to the agent's instructions. */
  context: string | null;
}
