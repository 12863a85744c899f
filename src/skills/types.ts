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
  /** [agent.prefs]: host files seeded into the state volume on first run. */
  prefs?: { from: string; files: string[] };
}

/** One file of a skill-contributed Claude Skill, relative to the Claude Skill's root. */
export interface ClaudeSkillFile {
  rel: string;
  content: Uint8Array;
  /** Staged 0755 rather than 0644 (a script the skill tells claude to run). */
  executable?: boolean;
}

/** Package facts that are not contributions: pairing, docs, where it came from. */
interface SkillMeta {
  /** The agent this skill pairs with (no vouch). */
  companionFor: string | null;
  /** The agent whose shared-auth onboarding offer this skill vouches for. */
  sharedAuthFor: string | null;
  /** NAME -> one-line guidance for env the skill reads. */
  envDocs: Record<string, string>;
  /** `sha256:…` for an installed snapshot; null otherwise. */
  digest: string | null;
  /** Host directory or snapshot the package was loaded from; null for bundled. */
  dir: string | null;
}

/** A skill's [runtime] contributions: what the box gets at create time. */
export interface SkillRuntime {
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
}

export interface ResolvedSkill {
  /** Canonical id: `byre/claude`, `owner/name`, or a local bare name. */
  id: string;
  provenance: Provenance;
  version: string;
  description: string;
  build: {
    apt: string[];
    /** The node major the skill needs, installed once in a hoisted layer (adr/0062). */
    node: number | null;
    dockerfile: string[];
    files: SkillFile[];
  };
  runtime: SkillRuntime;
  agent: SkillAgent | null;
  volumes: VolumeSpec[];
  mcp: McpSpec[];
  /**
   * Skill-declared Claude Skills. `path` is the package-relative source as a
   * build-context path (`skills/<id>/<from>`); the bytes are in claudeSkillFiles.
   */
  claudeSkills: ClaudeSkillSpec[];
  /** Claude Skill name -> its files (set by the catalog; absent in hand-built fixtures). */
  claudeSkillFiles?: Record<string, ClaudeSkillFile[]>;
  /** Prose appended to the agent's instructions. */
  context: string | null;
  meta?: SkillMeta;
}
