// The RAW shape of a config-family file (default.config, template.config,
// layer.config, byre.config): every key optional, unknown keys refused. Shape
// only; value rules (regexes, ranges, cross-field checks) live in rules/.

import '../zod.js';
import { z } from 'zod';

const str = z.string();
const strList = z.array(z.string());
const strMap = z.record(z.string(), z.string());
const int = z.number().int();

export const rawSourceSchema = z.strictObject({
  uri: str.optional(),
  digest: str.optional(),
});

/** `["claude"]` (legacy yes-list) or `{ claude = "claude-shared-auth" }`. */
export const rawSharedAuthSchema = z.union([strList, strMap]);

export const rawDefaultsSchema = z.strictObject({
  shared_auth: rawSharedAuthSchema.optional(),
  skip_questions: z.boolean().optional(),
});

export const rawMountSchema = z.strictObject({
  host: str.optional(),
  target: str.optional(),
  mode: str.optional(),
  disabled: z.boolean().optional(),
});

export const rawPortSchema = z.strictObject({
  container: int.optional(),
  host: int.optional(),
  interface: str.optional(),
  remove: z.boolean().optional(),
});

export const rawVolumeSeedSchema = z.strictObject({
  host: str.optional(),
  literal: str.optional(),
  path: str.optional(),
});

export const rawVolumeSchema = z.strictObject({
  name: str.optional(),
  role: str.optional(),
  target: str.optional(),
  scope: str.optional(),
  sharing: str.optional(),
  seed: rawVolumeSeedSchema.optional(),
});

export const rawMcpSchema = z.strictObject({
  name: str.optional(),
  command: strList.optional(),
  url: str.optional(),
  env: strList.optional(),
  egress: strList.optional(),
  headers: strMap.optional(),
});

export const rawClaudeSkillSchema = z.strictObject({
  name: str.optional(),
  path: str.optional(),
});

export const rawContextSchema = z.strictObject({
  name: str.optional(),
  text: str.optional(),
  file: str.optional(),
});

/** A file's own credential identity (adr/0012); `byre credential` writes it. */
export const rawCredentialsSchema = z.strictObject({
  recipient: str.optional(),
  identity: str.optional(),
});

export const rawLayerSchema = z.strictObject({
  engine: str.optional(),
  template: str.optional(),
  agent: str.optional(),
  base: str.optional(),
  extends: str.optional(),
  seed_prefs: z.boolean().optional(),
  worktree_base: str.optional(),
  defaults: rawDefaultsSchema.optional(),
  /** Legacy spelling of `[defaults] shared_auth`; read, migrated on the next write. */
  shared_auth: rawSharedAuthSchema.optional(),
  sources: z.record(z.string(), rawSourceSchema).optional(),
  apt: strList.optional(),
  env: strMap.optional(),
  env_from_host: strMap.optional(),
  credentials: rawCredentialsSchema.optional(),
  files: strMap.optional(),
  skills: strList.optional(),
  mounts: z.array(rawMountSchema).optional(),
  ports: z.array(rawPortSchema).optional(),
  volumes: z.array(rawVolumeSchema).optional(),
  egress: strList.optional(),
  egress_offered: strList.optional(),
  mcp: z.array(rawMcpSchema).optional(),
  claude_skills: z.array(rawClaudeSkillSchema).optional(),
  context: z.array(rawContextSchema).optional(),
  dockerfile_pre: strList.optional(),
  dockerfile_post: strList.optional(),
  run_args: strList.optional(),
});

export type RawLayer = z.infer<typeof rawLayerSchema>;
export type RawMount = z.infer<typeof rawMountSchema>;
export type RawPort = z.infer<typeof rawPortSchema>;
export type RawVolume = z.infer<typeof rawVolumeSchema>;
export type RawVolumeSeed = z.infer<typeof rawVolumeSeedSchema>;
export type RawMcp = z.infer<typeof rawMcpSchema>;
export type RawClaudeSkill = z.infer<typeof rawClaudeSkillSchema>;
export type RawContext = z.infer<typeof rawContextSchema>;
export type RawSource = z.infer<typeof rawSourceSchema>;
export type RawSharedAuth = z.infer<typeof rawSharedAuthSchema>;
export type RawCredentials = z.infer<typeof rawCredentialsSchema>;

/** Keys that were removed from the vocabulary: refused, with the replacement named. */
export const REMOVED_KEYS: Readonly<Record<string, { message: string; fix: string }>> = {
  npm_global: {
    message: 'npm_global was removed: byre no longer installs npm packages itself',
    fix: 'move the install into a raw build line: dockerfile_pre = ["RUN npm install -g <package>"]',
  },
};

/** Retired keys that old files may still carry: accepted and ignored. */
export const RETIRED_KEYS: readonly string[] = ['shared_auth_declined'];

/** The table a template.config carries for packaging; stripped before the body is parsed. */
export const TEMPLATE_PACKAGE_KEY = 'package';
