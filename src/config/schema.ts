// The RAW shape of a config-family file (default.config, template.config,
// layer.config, byre.config): every key optional, unknown keys refused. Shape
// only; value rules (regexes, ranges, cross-field checks) live in rules/. The
// shapes are data (shape.ts); the zod schema that locates a shape error is
// built from them only when a file does not conform (adr/0041).

import {
  BOOLEAN,
  INTEGER,
  list,
  map,
  oneOf,
  STRING,
  STRING_LIST,
  STRING_MAP,
  table,
  type ShapeValue,
} from './shape.js';
import { INJECT_SHAPE } from './inject-shape.js';

const SOURCE_SHAPE = table({ uri: STRING, digest: STRING });

/** `["claude"]` (legacy yes-list) or `{ claude = "claude-shared-auth" }`. */
const SHARED_AUTH_SHAPE = oneOf(STRING_LIST, STRING_MAP);

const DEFAULTS_SHAPE = table({ shared_auth: SHARED_AUTH_SHAPE, skip_questions: BOOLEAN });

const MOUNT_SHAPE = table({ host: STRING, target: STRING, mode: STRING, disabled: BOOLEAN });

const PORT_SHAPE = table({
  container: INTEGER,
  host: INTEGER,
  interface: STRING,
  remove: BOOLEAN,
});

const VOLUME_SEED_SHAPE = table({ host: STRING, literal: STRING, path: STRING });

export const VOLUME_SHAPE = table({
  name: STRING,
  role: STRING,
  target: STRING,
  scope: STRING,
  sharing: STRING,
  seed: VOLUME_SEED_SHAPE,
});

export const MCP_SHAPE = table({
  name: STRING,
  command: STRING_LIST,
  url: STRING,
  env: STRING_LIST,
  egress: STRING_LIST,
  headers: STRING_MAP,
});

const CLAUDE_SKILL_SHAPE = table({ name: STRING, path: STRING });

const CONTEXT_SHAPE = table({ name: STRING, text: STRING, file: STRING });

/** A file's own credential identity (adr/0012); `byre credential` writes it. */
const CREDENTIALS_SHAPE = table({ recipient: STRING, identity: STRING });

export const LAYER_SHAPE = table({
  engine: STRING,
  template: STRING,
  agent: STRING,
  base: STRING,
  extends: STRING,
  seed_prefs: BOOLEAN,
  worktree_base: STRING,
  defaults: DEFAULTS_SHAPE,
  /** Legacy spelling of `[defaults] shared_auth`; read, migrated on the next write. */
  shared_auth: SHARED_AUTH_SHAPE,
  sources: map(SOURCE_SHAPE),
  apt: STRING_LIST,
  env: STRING_MAP,
  env_from_host: STRING_MAP,
  credentials: CREDENTIALS_SHAPE,
  /** `[[inject.KEY]]`: for which hosts, and how, the edge presents an injected row (adr/0070). */
  inject: INJECT_SHAPE,
  files: STRING_MAP,
  skills: STRING_LIST,
  mounts: list(MOUNT_SHAPE),
  ports: list(PORT_SHAPE),
  volumes: list(VOLUME_SHAPE),
  egress: STRING_LIST,
  egress_offered: STRING_LIST,
  mcp: list(MCP_SHAPE),
  claude_skills: list(CLAUDE_SKILL_SHAPE),
  context: list(CONTEXT_SHAPE),
  dockerfile_pre: STRING_LIST,
  dockerfile_post: STRING_LIST,
  run_args: STRING_LIST,
});

export type RawLayer = ShapeValue<typeof LAYER_SHAPE>;
export type RawMount = ShapeValue<typeof MOUNT_SHAPE>;
export type RawPort = ShapeValue<typeof PORT_SHAPE>;
export type RawVolume = ShapeValue<typeof VOLUME_SHAPE>;
export type RawMcp = ShapeValue<typeof MCP_SHAPE>;
export type RawClaudeSkill = ShapeValue<typeof CLAUDE_SKILL_SHAPE>;
export type RawContext = ShapeValue<typeof CONTEXT_SHAPE>;
export type RawSharedAuth = ShapeValue<typeof SHARED_AUTH_SHAPE>;

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
