// The editor's decision for every config key: which section shows it, under
// what label, and which kind of row edits it. The table is a total record
// over the schema's keys, so a key added to the vocabulary without a row here
// does not compile (and rows.test.ts fails on a key with no reachable row).

import type { RawLayer } from '../../../config/schema.js';
import { checkPlacement } from '../../../config/rules/index.js';

/** Every top-level key a config-family file may carry. */
export type ConfigKey = keyof RawLayer & string;

/** The files the editor edits: the project's byre.config, default.config, a named layer. */
export type EditorFileKind = 'project' | 'default' | 'layer';

export type SectionId =
  'grants' | 'build' | 'extends' | 'advanced' | 'favourites' | 'worktrees' | 'defaults';

export const SECTION_TITLES: Readonly<Record<SectionId, string>> = {
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
  | 'legacy-shared-auth';

export interface RowPlan {
  label: string;
  /** Where the project and layer editors show it. */
  section: SectionId;
  /** Where the global editor shows it, when that differs. */
  globalSection?: SectionId;
  editor: RowEditor;
  /** One line for the help screen. */
  help: string;
}

export const EDITOR_ROWS: Readonly<Record<ConfigKey, RowPlan>> = {
  mounts: {
    label: 'Mounts',
    section: 'grants',
    editor: 'mounts',
    help: 'host directories bound into the box; ←→ switches one off without removing it',
  },
  ports: {
    label: 'Ports',
    section: 'grants',
    editor: 'ports',
    help: 'box ports published on the host (127.0.0.1 unless an interface is named)',
  },
  egress: {
    label: 'Egress',
    section: 'grants',
    editor: 'egress',
    help: 'hosts a firewall posture lets the box reach; x on an inherited one closes it (!host)',
  },
  egress_offered: {
    label: 'Offered doors',
    section: 'grants',
    editor: 'offered',
    help: 'closed doors skills and layers offer; ←→ opens one by writing it into egress',
  },
  env: {
    label: 'Env',
    section: 'grants',
    editor: 'env',
    help: 'literal variables baked into the image (not secrets: use host env)',
  },
  env_from_host: {
    label: 'Host env',
    section: 'grants',
    editor: 'host-env',
    help: 'values read from the host at each launch (git:, env:, tz:); x disables an inherited one',
  },
  base: {
    label: 'Base',
    section: 'build',
    editor: 'base',
    help: 'the base image (FROM)',
  },
  template: {
    label: 'Template',
    section: 'build',
    globalSection: 'favourites',
    editor: 'template',
    help: 'the template the box builds on; in default.config, the picker’s pre-selection',
  },
  agent: {
    label: 'Agent',
    section: 'build',
    globalSection: 'favourites',
    editor: 'agent',
    help: 'the agent the box launches; in default.config, the picker’s pre-selection',
  },
  engine: {
    label: 'Engine',
    section: 'build',
    editor: 'engine',
    help: 'auto, docker or podman',
  },
  seed_prefs: {
    label: 'Seed prefs',
    section: 'build',
    editor: 'seed-prefs',
    help: 'copy the agent’s curated preferences into a fresh state volume, once',
  },
  apt: {
    label: 'Packages',
    section: 'build',
    editor: 'apt',
    help: 'apt packages installed into the image; x on an inherited one writes !name',
  },
  skills: {
    label: 'Skills',
    section: 'build',
    editor: 'skills',
    help: 'enabled skills; x on an inherited one writes !name',
  },
  files: {
    label: 'Files',
    section: 'build',
    editor: 'files',
    help: 'project files copied into the image (src relative to the project, dest absolute)',
  },
  sources: {
    label: 'Sources',
    section: 'build',
    editor: 'sources',
    help: 'where a missing package can be installed from (printed as a hint, never fetched)',
  },
  mcp: {
    label: 'MCP servers',
    section: 'build',
    editor: 'mcp',
    help: 'MCP servers for the agent; x on an inherited or skill one closes it (!name)',
  },
  claude_skills: {
    label: 'Claude Skills',
    section: 'build',
    editor: 'claude-skills',
    help: 'Claude Skills (a directory with SKILL.md) baked into the image',
  },
  context: {
    label: 'Instructions',
    section: 'build',
    editor: 'context',
    help: 'standing instructions for the agent; ^e writes the prose in $EDITOR',
  },
  extends: {
    label: 'Extends',
    section: 'extends',
    editor: 'extends',
    help: 'the named layer this file builds on',
  },
  dockerfile_pre: {
    label: 'Dockerfile (pre)',
    section: 'advanced',
    editor: 'lines',
    help: 'raw build lines before byre’s core block; passed through, never parsed',
  },
  dockerfile_post: {
    label: 'Dockerfile (post)',
    section: 'advanced',
    editor: 'lines',
    help: 'raw build lines at the end of the image; passed through, never parsed',
  },
  run_args: {
    label: 'Run args',
    section: 'advanced',
    editor: 'lines',
    help: 'raw engine run arguments; passed through, never parsed',
  },
  volumes: {
    label: 'Volumes',
    section: 'advanced',
    editor: 'volumes',
    help: 'named volumes that outlive the box (caches, state)',
  },
  worktree_base: {
    label: 'Worktree base',
    section: 'advanced',
    globalSection: 'worktrees',
    editor: 'worktree-base',
    help: 'where byre worktree puts new worktrees: sibling, or a directory',
  },
  defaults: {
    label: 'Defaults',
    section: 'advanced',
    globalSection: 'defaults',
    editor: 'defaults',
    help: 'the first-run picker’s stored answers (shared auth, skip questions)',
  },
  shared_auth: {
    label: 'Shared auth (legacy)',
    section: 'advanced',
    globalSection: 'defaults',
    editor: 'legacy-shared-auth',
    help: 'the old spelling of [defaults] shared_auth; moved there on the next save',
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

/** Every key the schema knows, in the table's order. */
export const CONFIG_KEYS = Object.keys(EDITOR_ROWS) as ConfigKey[];
