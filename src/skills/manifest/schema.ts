// The shape of a package manifest: skill.toml's raw shape (strict, so an
// unknown key is located, not ignored; config/shape.ts), the typed
// SkillManifest it becomes, and the limits the rules check. Pure.

import type { ConfigIssue } from '../../errors.js';
import { MCP_SHAPE, VOLUME_SHAPE } from '../../config/schema.js';
import {
  BOOLEAN,
  INTEGER,
  list,
  STRING,
  STRING_LIST,
  STRING_MAP,
  table,
  type ShapeValue,
} from '../../config/shape.js';
import type { McpSpec, VolumeSpec } from '../../config/types.js';
import type { SkillRuntime } from '../types.js';

export type PackageKind = 'skill' | 'template';

/** The file a package's manifest lives in, by kind. */
export const MANIFEST_FILE: Record<PackageKind, string> = {
  skill: 'skill.toml',
  template: 'template.config',
};

export const PACKAGE_API = 1;
export const MAX_CONTEXT_BYTES = 1024 * 1024;
export const MAX_CONTAINMENT_CHARS = 300;
export const NETWORK_POSTURE = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const SHA256_HEX = /^[0-9a-f]{64}$/;
/** `[build] node`: a node major, as byre-ensure-node takes it (adr/0062). */
export const NODE_MAJOR = { min: 1, max: 999 } as const;

/** One payload file of an installed or packed package. */
export interface PackageFileEntry {
  /** Where to fetch it, relative to the manifest (URL or path). */
  src: string;
  /** Package-relative path in the snapshot. */
  dest: string;
  sha256: string;
  executable: boolean;
}

export interface PackageMeta {
  id: string | null;
  version: string | null;
  kind: PackageKind | null;
  packageApi: number | null;
  requiresByre: string | null;
  description: string | null;
  files: PackageFileEntry[] | null;
}

export interface SkillManifest {
  package: PackageMeta | null;
  description: string | null;
  companionFor: string | null;
  sharedAuthFor: string | null;
  build: {
    apt: string[];
    /** `[build] node`: the node major the image needs, hoisted (adr/0062). */
    node: number | null;
    dockerfile: string[];
    /** package-relative src ("." = the whole package) -> absolute dest in the image. */
    files: Record<string, string>;
  };
  runtime: SkillRuntime & { envDocs: Record<string, string> };
  agent: {
    command: string;
    state: string | null;
    context: boolean;
    mcp: boolean;
    claudeSkills: boolean;
    prefs: { from: string; files: string[] } | null;
  } | null;
  mcp: McpSpec[];
  claudeSkills: { name: string; from: string }[];
  volumes: VolumeSpec[];
  context: { text: string } | { file: string } | null;
}

export interface ManifestResult<T> {
  value: T | null;
  issues: ConfigIssue[];
}

const PACKAGE_FILE_SHAPE = table({
  src: STRING,
  dest: STRING,
  sha256: STRING,
  executable: BOOLEAN,
});

export const PACKAGE_SHAPE = table({
  id: STRING,
  version: STRING,
  kind: STRING,
  package_api: INTEGER,
  requires_byre: STRING,
  description: STRING,
  files: list(PACKAGE_FILE_SHAPE),
});

const SKILL_MOUNT_SHAPE = table({ host: STRING, target: STRING, mode: STRING });

export const SKILL_SHAPE = table({
  package: PACKAGE_SHAPE,
  description: STRING,
  companion_for: STRING,
  shared_auth_for: STRING,
  build: table({ apt: STRING_LIST, node: INTEGER, dockerfile: STRING_LIST, files: STRING_MAP }),
  runtime: table({
    env: STRING_MAP,
    env_docs: STRING_MAP,
    run_args: STRING_LIST,
    caps: STRING_LIST,
    mounts: list(SKILL_MOUNT_SHAPE),
    network_posture: STRING,
    netns_init: STRING,
    egress: STRING_LIST,
    egress_offered: STRING_LIST,
    sock_groups: STRING_LIST,
    containment: STRING,
  }),
  agent: table({
    command: STRING,
    state: STRING,
    context: STRING,
    mcp: STRING,
    claude_skills: STRING,
    /** Retired: accepted and ignored. */
    context_target: STRING,
    prefs: table({ from: STRING, files: STRING_LIST }),
  }),
  mcp: list(MCP_SHAPE),
  claude_skills: list(table({ name: STRING, from: STRING })),
  volumes: list(VOLUME_SHAPE),
  context: table({ text: STRING, file: STRING }),
});

export type RawSkill = ShapeValue<typeof SKILL_SHAPE>;
export type RawPackage = ShapeValue<typeof PACKAGE_SHAPE>;

/**
 * Keys an older skill.toml had and this format removed, by table (`""` is
 * the top level): refused with what replaced them, never as "unknown".
 * `[agent] context_target` is the retired key that is still accepted and
 * ignored (the schema carries it). See adr/0020.
 */
export const REMOVED_SKILL_KEYS: Readonly<
  Record<string, Readonly<Record<string, { message: string; fix: string }>>>
> = {
  '': {
    npm_global: {
      message: 'npm_global was removed: byre no longer installs npm packages itself',
      fix: 'install in a raw build line: [build] dockerfile = ["RUN npm install -g <package>"]',
    },
  },
  build: {
    npm_global: {
      message: '[build] npm_global was removed: byre no longer installs npm packages itself',
      fix: 'install in a raw build line: [build] dockerfile = ["RUN npm install -g <package>"]',
    },
  },
};
