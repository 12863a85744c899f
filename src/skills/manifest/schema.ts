// The shape of a package manifest: skill.toml's raw zod schema (strict, so
// an unknown key is located, not ignored), the typed SkillManifest it becomes,
// and the limits the rules check. Pure.

import '../../zod.js';
import { z } from 'zod';
import type { ConfigIssue } from '../../errors.js';
import { rawMcpSchema, rawVolumeSchema } from '../../config/schema.js';
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

const str = z.string();
const strList = z.array(z.string());
const strMap = z.record(z.string(), z.string());

const packageFileSchema = z.strictObject({
  src: str.optional(),
  dest: str.optional(),
  sha256: str.optional(),
  executable: z.boolean().optional(),
});

export const rawPackageSchema = z.strictObject({
  id: str.optional(),
  version: str.optional(),
  kind: str.optional(),
  package_api: z.number().int().optional(),
  requires_byre: str.optional(),
  description: str.optional(),
  files: z.array(packageFileSchema).optional(),
});

const skillMountSchema = z.strictObject({
  host: str.optional(),
  target: str.optional(),
  mode: str.optional(),
});

export const rawSkillSchema = z.strictObject({
  package: rawPackageSchema.optional(),
  description: str.optional(),
  companion_for: str.optional(),
  shared_auth_for: str.optional(),
  build: z
    .strictObject({
      apt: strList.optional(),
      dockerfile: strList.optional(),
      files: strMap.optional(),
    })
    .optional(),
  runtime: z
    .strictObject({
      env: strMap.optional(),
      env_docs: strMap.optional(),
      run_args: strList.optional(),
      caps: strList.optional(),
      mounts: z.array(skillMountSchema).optional(),
      network_posture: str.optional(),
      netns_init: str.optional(),
      egress: strList.optional(),
      egress_offered: strList.optional(),
      sock_groups: strList.optional(),
      containment: str.optional(),
    })
    .optional(),
  agent: z
    .strictObject({
      command: str.optional(),
      state: str.optional(),
      context: str.optional(),
      mcp: str.optional(),
      claude_skills: str.optional(),
      /** Retired: accepted and ignored. */
      context_target: str.optional(),
      prefs: z.strictObject({ from: str.optional(), files: strList.optional() }).optional(),
    })
    .optional(),
  mcp: z.array(rawMcpSchema).optional(),
  claude_skills: z.array(z.strictObject({ name: str.optional(), from: str.optional() })).optional(),
  volumes: z.array(rawVolumeSchema).optional(),
  context: z.strictObject({ text: str.optional(), file: str.optional() }).optional(),
});

export type RawSkill = z.infer<typeof rawSkillSchema>;
export type RawPackage = z.infer<typeof rawPackageSchema>;

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
