// The resolved shape of the config cascade. Raw file shapes live in schema.ts
// (everything optional, strict); this file owns what the rest of byre reads:
// merged, defaulted, and every value carrying the layer that set it.

/** Which tier of the cascade a layer sits in, lowest first. */
export type LayerKind = 'core' | 'default' | 'template' | 'layer' | 'project';

/** Identifies one layer of the cascade, for attribution and for errors. */
export interface LayerRef {
  kind: LayerKind;
  /** `core`, `default`, the template id (`byre/node`, `mytpl`), the layer name, or `project`. */
  name: string;
  /** The file it came from; null for the built-in core layer and bundled templates. */
  path: string | null;
}

/** How byre names a layer when it attributes something to it: `project`, `layer work`, `template byre/node`. */
export function layerLabel(ref: LayerRef): string {
  switch (ref.kind) {
    case 'template':
      return `template ${ref.name}`;
    case 'layer':
      return `layer ${ref.name}`;
    default:
      return ref.kind;
  }
}

/** A value and the layer that set it. */
export interface Sourced<T> {
  value: T;
  from: LayerRef;
}

export type EngineChoice = 'auto' | 'docker' | 'podman';

export interface MountSpec {
  /** `~/…` or absolute, as written (expansion happens at launch). */
  host: string;
  target: string;
  mode: 'ro' | 'rw';
  disabled: boolean;
}

export interface PortSpec {
  container: number;
  /** 0 mirrors the container port. */
  host: number;
  /** Canonical IPv4; default 127.0.0.1. */
  interface: string;
}

type VolumeSeed = { host: string } | { literal: string; path: string };

export interface VolumeSpec {
  name: string;
  role: 'cache' | 'state';
  target: string;
  scope: 'project' | 'machine';
  sharing: 'shared' | 'exclusive';
  seed?: VolumeSeed;
}

/** host[:port]; hosts are lowercased, IPv6 kept bracketed and canonical. */
export interface EgressEntry {
  host: string;
  /** null only on a closure: a portless closure closes every port. */
  port: number | null;
}

export interface McpSpec {
  name: string;
  command?: string[];
  url?: string;
  env: string[];
  egress: string[];
  headers: Record<string, string>;
}

export interface ClaudeSkillSpec {
  name: string;
  path: string;
}

export type ContextSpec = { name: string; text: string } | { name: string; file: string };

export interface SourceHint {
  uri: string;
  digest?: string;
}

/** A `[credentials]` table as written: the public recipient and the passphrase-sealed identity. */
export interface CredentialTable {
  /** `age1…`: rows are sealed to it, no passphrase needed. */
  recipient: string;
  /** Base64 of an age file whose only stanza is scrypt and whose plaintext is `AGE-SECRET-KEY-1…`. */
  identity: string;
}

/** How the edge presents a value: its own header, `Authorization: Bearer`, or Basic with a user. */
export type Presentation =
  { kind: 'header'; name: string } | { kind: 'bearer' } | { kind: 'basic'; user: string };

/** A host the edge answers for: a DNS name and the TLS port (443 unless written). */
export interface InjectHost {
  name: string;
  port: number;
}

export interface InjectRule {
  hosts: InjectHost[];
  presentation: Presentation;
}

/** One credential the edge presents (adr/0070), with the file whose row (and rules) won. */
export interface Injection {
  key: string;
  rules: InjectRule[];
  from: LayerRef;
}

interface OnboardingDefaults {
  sharedAuth: Record<string, string>;
  skipQuestions: boolean;
}

/** The merged cascade: core ⊕ default ⊕ template ⊕ chain(root…parent) ⊕ project. */
export interface EffectiveConfig {
  /** The layers that took part, lowest first. */
  layers: LayerRef[];
  engine: Sourced<EngineChoice>;
  /** Resolved template id; null when none applies ("none" resolves to null). */
  template: Sourced<string> | null;
  /** Resolved agent skill name; null when none ("none" resolves to null). */
  agent: Sourced<string> | null;
  base: Sourced<string>;
  /** Tri-state: null means unset anywhere. */
  seedPrefs: Sourced<boolean> | null;
  worktreeBase: Sourced<string> | null;
  /** Named layers applied, root first (names only). */
  extendsChain: string[];
  sources: Record<string, Sourced<SourceHint>>;
  apt: Sourced<string>[];
  env: Record<string, Sourced<string>>;
  /** KEY -> source (`git:…`, `env:…`, `tz:`, `encrypted:…`, `encrypted-file:…`, `injected:…`, or "" for disabled). */
  envFromHost: Record<string, Sourced<string>>;
  /**
   * Each file's own [credentials] identity, lowest layer first. Not merged:
   * a credential row is opened only by the identity of the file it sits in.
   */
  credentials: Sourced<CredentialTable>[];
  /**
   * The credentials injected at the edge (adr/0070), sorted by key: the
   * env_from_host keys whose winning row is `injected:` (no `[env]` key of
   * the name wins), each with the rules of the file that row sits in.
   */
  injections: Injection[];
  /** project-relative src -> absolute dest. */
  files: Record<string, Sourced<string>>;
  skills: Sourced<string>[];
  mounts: Sourced<MountSpec>[];
  ports: Sourced<PortSpec>[];
  volumes: Sourced<VolumeSpec>[];
  egress: Sourced<EgressEntry>[];
  /** `!host[:port]` closures that survived the merge; applied last, skills included. */
  egressClosed: Sourced<EgressEntry>[];
  egressOffered: Sourced<EgressEntry>[];
  mcp: Sourced<McpSpec>[];
  mcpClosed: Sourced<string>[];
  claudeSkills: Sourced<ClaudeSkillSpec>[];
  claudeSkillsClosed: Sourced<string>[];
  context: Sourced<ContextSpec>[];
  dockerfilePre: Sourced<string>[];
  dockerfilePost: Sourced<string>[];
  runArgs: Sourced<string>[];
  /** Picker-owned onboarding answers; never part of the box. */
  defaults: OnboardingDefaults;
}

export const DEFAULT_BASE = 'debian:bookworm';
