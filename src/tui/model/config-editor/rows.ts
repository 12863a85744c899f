// The editor's decision for every config key: which section shows it, under
// what label, and which kind of row edits it (what a key means comes from
// the key registry, config/keys.ts). The table is a total record over the
// registry's keys, so a key added to the vocabulary without a row here does
// not compile (and rows.test.ts fails on a key with no reachable row).

import { checkPlacement } from '../../../config/rules/index.js';
import { configKey, type ConfigKey } from '../../../config/keys.js';

export type { ConfigKey };

/** The files the editor edits: the project's byre.config, default.config, a named layer. */
export type EditorFileKind = 'project' | 'default' | 'layer';

type SectionId =
  'grants' | 'build' | 'extends' | 'advanced' | 'favourites' | 'worktrees' | 'defaults';

export const EDITOR_SECTION_TITLES: Readonly<Record<SectionId, string>> = {
  grants: 'GRANTS — what this box can reach',
  build: 'BUILD — how the box is made',
  extends: 'EXTENDS',
  advanced: 'ADVANCED',
  favourites: 'ONBOARDING FAVOURITES',
  worktrees: 'WORKTREES',
  defaults: 'DEFAULTS',
};

/** Section order per editor; the global editor adds the picker-owned sections. */
export function sectionsFor(kind: EditorFileKind): SectionId[] {
  const common: SectionId[] = ['grants', 'build', 'extends', 'advanced'];
  return kind === 'default' ? [...common, 'favourites', 'worktrees', 'defaults'] : common;
}

/** How a key's rows behave; each has one builder in items.ts. */
export type RowEditor =
  | 'mounts'
  | 'ports'
  | 'egress'
  | 'offered'
  | 'env'
  | 'host-env'
  | 'base'
  | 'template'
  | 'agent'
  | 'engine'
  | 'seed-prefs'
  | 'apt'
  | 'skills'
  | 'files'
  | 'sources'
  | 'mcp'
  | 'claude-skills'
  | 'context'
  | 'extends'
  | 'lines'
  | 'volumes'
  | 'worktree-base'
  | 'defaults'
  | 'legacy-shared-auth'
  | 'credentials'
  | 'inject';

interface RowPlan {
  label: string;
  /** Where the project and layer editors show it. */
  section: SectionId;
  /** Where the global editor shows it, when that differs. */
  globalSection?: SectionId;
  editor: RowEditor;
}

export const EDITOR_ROWS: Readonly<Record<ConfigKey, RowPlan>> = {
  mounts: {
    label: 'Mounts',
    section: 'grants',
    editor: 'mounts',
  },
  ports: {
    label: 'Ports',
    section: 'grants',
    editor: 'ports',
  },
  egress: {
    label: 'Egress',
    section: 'grants',
    editor: 'egress',
  },
  egress_offered: {
    label: 'Offered doors',
    section: 'grants',
    editor: 'offered',
  },
  env: {
    label: 'Env',
    section: 'grants',
    editor: 'env',
  },
  env_from_host: {
    label: 'Host env',
    section: 'grants',
    editor: 'host-env',
  },
  credentials: {
    label: 'Credentials',
    section: 'grants',
    editor: 'credentials',
  },
  inject: {
    label: 'Injected',
    section: 'grants',
    editor: 'inject',
  },
  base: {
    label: 'Base',
    section: 'build',
    editor: 'base',
  },
  template: {
    label: 'Template',
    section: 'build',
    globalSection: 'favourites',
    editor: 'template',
  },
  agent: {
    label: 'Agent',
    section: 'build',
    globalSection: 'favourites',
    editor: 'agent',
  },
  engine: {
    label: 'Engine',
    section: 'build',
    editor: 'engine',
  },
  seed_prefs: {
    label: 'Seed prefs',
    section: 'build',
    editor: 'seed-prefs',
  },
  apt: {
    label: 'Packages',
    section: 'build',
    editor: 'apt',
  },
  skills: {
    label: 'Skills',
    section: 'build',
    editor: 'skills',
  },
  files: {
    label: 'Files',
    section: 'build',
    editor: 'files',
  },
  sources: {
    label: 'Sources',
    section: 'build',
    editor: 'sources',
  },
  mcp: {
    label: 'MCP servers',
    section: 'build',
    editor: 'mcp',
  },
  claude_skills: {
    label: 'Claude Skills',
    section: 'build',
    editor: 'claude-skills',
  },
  context: {
    label: 'Instructions',
    section: 'build',
    editor: 'context',
  },
  extends: {
    label: 'Extends',
    section: 'extends',
    editor: 'extends',
  },
  dockerfile_pre: {
    label: 'Dockerfile (pre)',
    section: 'advanced',
    editor: 'lines',
  },
  dockerfile_post: {
    label: 'Dockerfile (post)',
    section: 'advanced',
    editor: 'lines',
  },
  run_args: {
    label: 'Run args',
    section: 'advanced',
    editor: 'lines',
  },
  volumes: {
    label: 'Volumes',
    section: 'advanced',
    editor: 'volumes',
  },
  worktree_base: {
    label: 'Worktree base',
    section: 'advanced',
    globalSection: 'worktrees',
    editor: 'worktree-base',
  },
  defaults: {
    label: 'Defaults',
    section: 'advanced',
    globalSection: 'defaults',
    editor: 'defaults',
  },
  shared_auth: {
    label: 'Shared auth (legacy)',
    section: 'advanced',
    globalSection: 'defaults',
    editor: 'legacy-shared-auth',
  },
};

export function sectionOf(key: ConfigKey, kind: EditorFileKind): SectionId {
  const plan = EDITOR_ROWS[key];
  return kind === 'default' ? (plan.globalSection ?? plan.section) : plan.section;
}

/** Why `kind`'s file may not carry `key`; null when it may. */
export function bannedHere(key: ConfigKey, kind: EditorFileKind): string | null {
  const ban = checkPlacement([key], kind)[0];
  return ban === undefined ? null : ban.message;
}

/** Every key, in the editor's order. */
export const EDITOR_KEYS = Object.keys(EDITOR_ROWS) as ConfigKey[];

/** One line for the help screen: the registry's summary of the key. */
export function keyHelp(key: ConfigKey): string {
  return `${EDITOR_ROWS[key].label}: ${configKey(key).summary}`;
}
