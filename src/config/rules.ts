// Value rules for one parsed layer: each is a named, pure function from the
// raw layer to findings (rule id, key path, message, fix). parse.ts attaches
// file positions; nothing here reads files or knows about other layers.

import { isCanonicalIPv4 } from './address.js';
import { parseEgressEntry } from './egress.js';
import type { PathSegment } from './locate.js';
import type {
  RawClaudeSkill,
  RawContext,
  RawLayer,
  RawMcp,
  RawMount,
  RawPort,
  RawVolume,
} from './schema.js';
import type { LayerKind } from './types.js';
import { credentialKindOf } from '../credentials/row.js';
import { checkCredentialRows, checkCredentialsTable } from './rules/credentials.js';

export interface Finding {
  rule: string;
  path: PathSegment[];
  message: string;
  fix?: string;
}

export type LayerRule = (layer: RawLayer) => Finding[];

function finding(rule: string, path: PathSegment[], message: string, fix?: string): Finding {
  return fix === undefined ? { rule, path, message } : { rule, path, message, fix };
}

const q = (value: string): string => JSON.stringify(value);

// ---------------------------------------------------------------- grammar

export const OCI_REF = /^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/;
export const APT_NAME = /^[A-Za-z0-9@][A-Za-z0-9@/._+:=~^-]*$/;
export const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const GIT_CONFIG_KEY = /^[A-Za-z0-9][A-Za-z0-9.-]*$/;
export const LAYER_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const VOLUME_NAME = /^[A-Za-z0-9_.-]+$/;
export const WIRING_NAME = /^[a-z0-9-]{1,64}$/;
export const CONTEXT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const PACKAGE_REF = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/;
export const DIGEST = /^sha256:[0-9a-f]{64}$/;
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Bundled package names: reserved so a layer can never shadow one by name. */
export const BUNDLED_NAMES: readonly string[] = [
  'go',
  'node',
  'python',
  'claude',
  'codex',
  'gemini',
  'grok',
  'opencode',
  'firewall',
  'firewall-open',
  'docker-host',
  'claude-shared-auth',
  'codex-shared-auth',
  'gemini-shared-auth',
  'grok-shared-auth',
  'opencode-shared-auth',
];

export const NONE = 'none';
export const CONTEXT_WARN_BYTES = 100 * 1024;

const CONTROL = /[\u0000-\u001f\u007f]/;
const CONTROL_EXCEPT_NL_TAB = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** `~`, `~/…` or an absolute path: how host-side paths are written. */
export function isHostPath(path: string): boolean {
  return path === '~' || path.startsWith('~/') || path.startsWith('/');
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/');
}

/** A relative path that stays inside its root once `.` and `..` are applied. */
export function isContainedRelative(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.startsWith('~') || path.includes('\0')) {
    return false;
  }
  let depth = 0;
  for (const part of path.split('/')) {
    if (part === '..') depth--;
    else if (part !== '.' && part !== '') depth++;
    if (depth < 0) return false;
  }
  return true;
}

/** Strip trailing slashes so `/a/` and `/a` name the same target. */
export function normalizeTarget(target: string): string {
  const trimmed = target.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

function missing(path: PathSegment[], key: string, what: string): Finding {
  return finding('config.missing-key', [...path, key], `${what} needs ${key}`, `add ${key} = …`);
}

function removalExtras(
  path: PathSegment[],
  entry: Record<string, unknown>,
  identity: string,
  what: string,
  alsoAllowed: readonly string[] = [],
): Finding[] {
  return Object.keys(entry)
    .filter((key) => key !== identity && !alsoAllowed.includes(key) && entry[key] !== undefined)
    .map((key) =>
      finding(
        'config.removal-extra-keys',
        [...path, key],
        `a ${what} removal marker may set only ${identity}; ${key} has no meaning here`,
        `delete ${key}: a removal marker only names what it removes`,
      ),
    );
}

// ---------------------------------------------------------------- placement

interface Ban {
  key: string;
  kinds: readonly LayerKind[];
  why: string;
  fix: string;
}

const BANS: readonly Ban[] = [
  {
    key: 'template',
    kinds: ['layer'],
    why: 'shape selection belongs to the project config, not a shared layer',
    fix: 'remove template here and set it in the project config',
  },
  {
    key: 'template',
    kinds: ['template'],
    why: 'a template cannot select another template',
    fix: 'remove template from template.config',
  },
  {
    key: 'agent',
    kinds: ['template'],
    why: 'composition belongs in a preset or the project config, not a template',
    fix: 'remove agent from template.config',
  },
  {
    key: 'skills',
    kinds: ['template'],
    why: 'composition belongs in a preset or the project config, not a template',
    fix: 'remove skills from template.config',
  },
  {
    key: 'sources',
    kinds: ['template'],
    why: 'composition belongs in a preset or the project config, not a template',
    fix: 'remove [sources] from template.config',
  },
  {
    key: 'extends',
    kinds: ['template'],
    why: 'templates do not chain; named layers sit between the template and the project',
    fix: 'remove extends from template.config',
  },
  {
    key: 'credentials',
    kinds: ['template'],
    why: 'a template is a package others install; credentials belong to a file you own',
    fix: 'remove [credentials] and its encrypted rows; add them with byre credential add (--global, --layer or the project)',
  },
  {
    key: 'extends',
    kinds: ['default'],
    why: 'default.config is the baseline of every box and cannot extend a layer',
    fix: 'remove extends from default.config, or set it in a project config',
  },
];

const KIND_FILE: Record<LayerKind, string> = {
  core: 'the core layer',
  default: 'default.config',
  template: 'template.config',
  layer: 'a layer file',
  project: 'the project config',
};

/** Keys that a file kind may not carry, whatever their value. */
export function checkPlacement(keys: readonly string[], kind: LayerKind): Finding[] {
  return BANS.filter((ban) => ban.kinds.includes(kind) && keys.includes(ban.key)).map((ban) =>
    finding(
      'config.key-banned-here',
      [ban.key],
      `${ban.key} is not allowed in ${KIND_FILE[kind]}: ${ban.why}`,
      ban.fix,
    ),
  );
}

// ---------------------------------------------------------------- scalars

export function checkEngine(layer: RawLayer): Finding[] {
  const engine = layer.engine;
  if (engine === undefined || ['', 'auto', 'docker', 'podman'].includes(engine)) return [];
  return [
    finding(
      'config.engine-invalid',
      ['engine'],
      `engine ${q(engine)} invalid (want auto|docker|podman)`,
      'set engine = "auto", "docker" or "podman"',
    ),
  ];
}

export function checkBase(layer: RawLayer): Finding[] {
  const base = layer.base;
  if (base === undefined || base === '' || OCI_REF.test(base)) return [];
  return [
    finding(
      'config.base-invalid',
      ['base'],
      `base ${q(base)} is not an image reference`,
      'write an image reference such as "debian:bookworm" or "node:22"',
    ),
  ];
}

export function checkTemplateName(layer: RawLayer): Finding[] {
  const name = layer.template;
  if (name === undefined || name === '' || name === NONE || PACKAGE_REF.test(name)) return [];
  return [
    finding(
      'config.template-name-invalid',
      ['template'],
      `template ${q(name)} is not a template name`,
      'write a bare name ("node"), an owner/name id, byre/<name> for a bundled one, or "none"',
    ),
  ];
}

export function checkAgentName(layer: RawLayer): Finding[] {
  const name = layer.agent;
  if (name === undefined || name === '' || name === NONE || PACKAGE_REF.test(name)) return [];
  return [
    finding(
      'config.agent-invalid',
      ['agent'],
      `agent ${q(name)} is not a skill name`,
      'name an agent skill such as "claude", or "none"',
    ),
  ];
}

/** Why a layer name is refused, or null when it is fine. */
export function layerNameProblem(name: string): string | null {
  if (!LAYER_NAME.test(name)) {
    return 'a layer name is lowercase letters, digits and "-", starts with a letter or digit, and is at most 64 characters';
  }
  if (name === NONE) return '"none" is reserved';
  if (BUNDLED_NAMES.includes(name)) return `${q(name)} is reserved for a bundled package`;
  return null;
}

export function checkExtends(layer: RawLayer): Finding[] {
  const name = layer.extends;
  if (name === undefined) return [];
  const problem = layerNameProblem(name);
  if (problem === null) return [];
  return [
    finding(
      'config.layer-name-invalid',
      ['extends'],
      `extends ${q(name)}: ${problem}`,
      'name a layer under <BYRE_HOME>/layers/, or remove extends',
    ),
  ];
}

export function checkWorktreeBase(layer: RawLayer): Finding[] {
  const base = layer.worktree_base;
  if (base === undefined || base === '' || base === 'sibling') return [];
  if (isHostPath(base) && !base.includes(',') && !CONTROL.test(base)) return [];
  return [
    finding(
      'config.worktree-base-invalid',
      ['worktree_base'],
      `worktree_base ${q(base)} invalid`,
      'use "", "sibling", or a ~/… or absolute path without commas',
    ),
  ];
}

// ---------------------------------------------------------------- tables and lists

export function checkSources(layer: RawLayer): Finding[] {
  const out: Finding[] = [];
  for (const [id, source] of Object.entries(layer.sources ?? {})) {
    const path: PathSegment[] = ['sources', id];
    if (source.uri === undefined) out.push(missing(path, 'uri', `source ${q(id)}`));
    else if (source.uri === '' || /[\s]/.test(source.uri) || CONTROL.test(source.uri)) {
      out.push(
        finding(
          'config.source-uri-invalid',
          [...path, 'uri'],
          `source ${q(id)}: uri must be non-empty with no whitespace or control characters`,
          'write the manifest URL exactly, e.g. "https://example.com/skill.toml"',
        ),
      );
    }
    if (source.digest !== undefined && !DIGEST.test(source.digest)) {
      out.push(
        finding(
          'config.source-digest-invalid',
          [...path, 'digest'],
          `source ${q(id)}: digest ${q(source.digest)} is not sha256: plus 64 lowercase hex digits`,
          'copy the digest byre printed at install, or remove it',
        ),
      );
    }
  }
  return out;
}

export function checkApt(layer: RawLayer): Finding[] {
  return (layer.apt ?? []).flatMap((entry, i) => {
    const name = entry.startsWith('!') ? entry.slice(1) : entry;
    if (APT_NAME.test(name)) return [];
    return [
      finding(
        'config.apt-invalid',
        ['apt', i],
        `apt package ${q(entry)}: not a valid package name`,
        'write a Debian package name such as "build-essential" (prefix "!" to remove one)',
      ),
    ];
  });
}

export function checkSkills(layer: RawLayer): Finding[] {
  return (layer.skills ?? []).flatMap((entry, i) => {
    if (entry !== '' && entry !== '!' && !/\s/.test(entry)) return [];
    return [
      finding(
        'config.skill-invalid',
        ['skills', i],
        `skill ${q(entry)} names no package`,
        'write a skill name such as "firewall" or "owner/name" (prefix "!" to remove one)',
      ),
    ];
  });
}

function envKeyFindings(key: string, path: PathSegment[], table: string): Finding[] {
  if (!ENV_KEY.test(key)) {
    return [
      finding(
        'config.env-key-invalid',
        path,
        `${table} key ${q(key)}: not a valid variable name`,
        'use letters, digits and "_", not starting with a digit',
      ),
    ];
  }
  if (key.startsWith('BYRE_')) {
    return [
      finding(
        'config.env-reserved',
        path,
        `${table} key ${key}: the BYRE_ namespace is byre's runtime vocabulary and cannot be set from config`,
        `if you really mean to override it, pass it raw: run_args = ["-e", "${key}=<value>"]`,
      ),
    ];
  }
  return [];
}

export function checkEnv(layer: RawLayer): Finding[] {
  return Object.keys(layer.env ?? {}).flatMap((key) => envKeyFindings(key, ['env', key], 'env'));
}

const ENV_SOURCES_HINT =
  'supported sources are "git:<key>", "env:<HOST_VAR>", "tz:", "" (disabled) and the encrypted rows `byre credential add` writes; a literal value belongs in [env]';

/** Why an env_from_host source is refused (rule and message), or null. */
function envSourceProblem(source: string): { rule: string; message: string } | null {
  if (source === '' || source === 'tz:') return null;
  if (source.startsWith('git:')) {
    return GIT_CONFIG_KEY.test(source.slice(4))
      ? null
      : {
          rule: 'config.env-source-invalid',
          message: 'git: needs a git config key such as user.name',
        };
  }
  if (source.startsWith('env:')) {
    return ENV_KEY.test(source.slice(4))
      ? null
      : { rule: 'config.env-source-invalid', message: 'env: needs a host variable name' };
  }
  if (source.startsWith('tz:')) {
    return { rule: 'config.env-source-invalid', message: 'tz: takes no argument' };
  }
  // Encrypted rows have their own rules (rules/credentials.ts).
  if (credentialKindOf(source) !== null) return null;
  return { rule: 'config.env-source-invalid', message: 'unknown source' };
}

export function checkEnvFromHost(layer: RawLayer): Finding[] {
  return Object.entries(layer.env_from_host ?? {}).flatMap(([key, source]) => {
    const path: PathSegment[] = ['env_from_host', key];
    const keyFindings = envKeyFindings(key, path, 'env_from_host');
    const problem = envSourceProblem(source);
    if (problem === null) return keyFindings;
    return [
      ...keyFindings,
      finding(
        problem.rule,
        path,
        `env_from_host ${key} = ${q(source)}: ${problem.message}`,
        ENV_SOURCES_HINT,
      ),
    ];
  });
}

export function checkFiles(layer: RawLayer): Finding[] {
  return Object.entries(layer.files ?? {}).flatMap(([src, dest]) => {
    const path: PathSegment[] = ['files', src];
    const out: Finding[] = [];
    if (!isContainedRelative(src)) {
      out.push(
        finding(
          'config.files-src-invalid',
          path,
          `files source ${q(src)} must be a path inside the project`,
          'write a project-relative path such as "./seed/config.json" (no absolute path, no ".." escape)',
        ),
      );
    }
    if (!isAbsolute(dest) || CONTROL.test(dest)) {
      out.push(
        finding(
          'config.files-dest-not-absolute',
          path,
          `files destination ${q(dest)} must be an absolute path in the box`,
          'write the destination as an absolute path such as "/opt/seed"',
        ),
      );
    }
    return out;
  });
}

// ---------------------------------------------------------------- mounts, ports, volumes

function checkMount(mount: RawMount, i: number): Finding[] {
  const path: PathSegment[] = ['mounts', i];
  const target = mount.target;
  if (target?.startsWith('!')) {
    const out = removalExtras(path, mount, 'target', 'mount');
    if (!isAbsolute(target.slice(1))) {
      out.push(
        finding(
          'config.mount-target-not-absolute',
          [...path, 'target'],
          `mount removal ${q(target)} must name an absolute target`,
          'write target = "!/path/in/box"',
        ),
      );
    }
    return out;
  }
  const out: Finding[] = [];
  if (mount.host === undefined) out.push(missing(path, 'host', 'a mount'));
  else if (!isHostPath(mount.host) || mount.host.includes(',') || CONTROL.test(mount.host)) {
    out.push(
      finding(
        'config.mount-host-invalid',
        [...path, 'host'],
        `mount host ${q(mount.host)} must be ~/… or an absolute path, with no comma`,
        'write host = "~/path" or host = "/absolute/path"',
      ),
    );
  }
  if (target === undefined) out.push(missing(path, 'target', 'a mount'));
  else if (!isAbsolute(target)) {
    out.push(
      finding(
        'config.mount-target-not-absolute',
        [...path, 'target'],
        `mount target ${q(target)} must be an absolute path in the box`,
        'write target = "/path/in/box"',
      ),
    );
  } else if (target.includes(',') || CONTROL.test(target)) {
    out.push(
      finding(
        'config.mount-target-invalid',
        [...path, 'target'],
        `mount target ${q(target)} must not contain a comma or control characters`,
        'rename the target path',
      ),
    );
  }
  if (mount.mode !== undefined && mount.mode !== 'ro' && mount.mode !== 'rw') {
    out.push(
      finding(
        'config.mount-mode-invalid',
        [...path, 'mode'],
        `mount mode ${q(mount.mode)} invalid (want ro|rw)`,
        'set mode = "ro" (the default) or "rw"',
      ),
    );
  }
  return out;
}

export function checkMounts(layer: RawLayer): Finding[] {
  return (layer.mounts ?? []).flatMap(checkMount);
}

export const DEFAULT_INTERFACE = '127.0.0.1';
const ANY_INTERFACE = '0.0.0.0';

function portRange(value: number, min: number, path: PathSegment[], what: string): Finding[] {
  if (value >= min && value <= 65535) return [];
  return [
    finding(
      'config.port-range',
      path,
      `${what} ${value} out of range (${min}-65535)`,
      min === 0 ? 'use 1-65535, or 0 to mirror the container port' : 'use a port from 1 to 65535',
    ),
  ];
}

function checkPort(port: RawPort, i: number): Finding[] {
  const path: PathSegment[] = ['ports', i];
  const out: Finding[] = [];
  if (port.container === undefined) out.push(missing(path, 'container', 'a port'));
  else out.push(...portRange(port.container, 1, [...path, 'container'], 'container port'));
  if (port.remove === true) {
    return [...out, ...removalExtras(path, port, 'container', 'port', ['remove'])];
  }
  if (port.host !== undefined) out.push(...portRange(port.host, 0, [...path, 'host'], 'host port'));
  if (port.interface !== undefined && !isCanonicalIPv4(port.interface)) {
    out.push(
      finding(
        'config.port-interface-invalid',
        [...path, 'interface'],
        `port interface ${q(port.interface)} must be a canonical IPv4 address`,
        'write it as four plain decimals, e.g. "127.0.0.1" or "0.0.0.0"',
      ),
    );
  }
  return out;
}

export function checkPorts(layer: RawLayer): Finding[] {
  return (layer.ports ?? []).flatMap(checkPort);
}

export interface PortBinding {
  container: number;
  host: number;
  interface: string;
}

/** Pairs of binding indexes that collide on one host port. */
export function portCollisions(bindings: readonly PortBinding[]): [number, number][] {
  const pairs: [number, number][] = [];
  const hostPort = (b: PortBinding): number => (b.host === 0 ? b.container : b.host);
  for (let a = 0; a < bindings.length; a++) {
    for (let b = a + 1; b < bindings.length; b++) {
      const x = bindings[a];
      const y = bindings[b];
      if (!x || !y || hostPort(x) !== hostPort(y)) continue;
      if (
        x.interface === y.interface ||
        x.interface === ANY_INTERFACE ||
        y.interface === ANY_INTERFACE
      ) {
        pairs.push([a, b]);
      }
    }
  }
  return pairs;
}

export function portCollisionMessage(binding: PortBinding): string {
  const host = binding.host === 0 ? binding.container : binding.host;
  return `port ${binding.container}: host port ${host} on ${binding.interface} is already bound by another port entry`;
}

export const PORT_COLLISION_FIX =
  'give one of them a different host port; 0.0.0.0 already covers every interface';

export function checkPortCollisions(layer: RawLayer): Finding[] {
  const indexed = (layer.ports ?? [])
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => p.remove !== true && p.container !== undefined);
  const bindings = indexed.map(({ p }) => ({
    container: p.container ?? 0,
    host: p.host ?? 0,
    interface: p.interface ?? DEFAULT_INTERFACE,
  }));
  return portCollisions(bindings).map(([, b]) => {
    const entry = indexed[b];
    const binding = bindings[b];
    return finding(
      'config.port-collision',
      ['ports', entry?.i ?? 0],
      binding ? portCollisionMessage(binding) : 'port collision',
      PORT_COLLISION_FIX,
    );
  });
}

function checkSeed(volume: RawVolume, path: PathSegment[]): Finding[] {
  const seed = volume.seed;
  if (seed === undefined) return [];
  const seedPath = [...path, 'seed'];
  if (volume.scope === 'machine') {
    return [
      finding(
        'config.volume-seed-on-machine',
        seedPath,
        `volume ${q(volume.name ?? '')}: a machine-scoped volume cannot be seeded`,
        'remove [seed], or make the volume scope = "project"',
      ),
    ];
  }
  if (volume.role !== 'state') {
    return [
      finding(
        'config.volume-seed-not-state',
        seedPath,
        `volume ${q(volume.name ?? '')}: only state volumes can be seeded`,
        'remove [seed], or set role = "state"',
      ),
    ];
  }
  const invalid = (message: string, key?: string): Finding[] => [
    finding(
      'config.volume-seed-invalid',
      key === undefined ? seedPath : [...seedPath, key],
      `volume ${q(volume.name ?? '')}: ${message}`,
      'seed with host = "~/dir", or literal = "…" plus a relative path = "file"',
    ),
  ];
  if ((seed.host === undefined) === (seed.literal === undefined)) {
    return invalid('a seed sets exactly one of host and literal');
  }
  if (seed.host !== undefined) {
    if (seed.path !== undefined) return invalid('path goes with literal, not host', 'path');
    return isHostPath(seed.host) ? [] : invalid('seed host must be ~/… or absolute', 'host');
  }
  if (seed.path === undefined || !isContainedRelative(seed.path)) {
    return invalid('a literal seed needs a relative path inside the volume', 'path');
  }
  return [];
}

function enumFinding(
  rule: string,
  path: PathSegment[],
  what: string,
  value: string,
  allowed: readonly string[],
): Finding[] {
  if (allowed.includes(value)) return [];
  return [
    finding(
      rule,
      path,
      `${what} ${q(value)} invalid (want ${allowed.join('|')})`,
      `set one of: ${allowed.join(', ')}`,
    ),
  ];
}

function checkVolume(volume: RawVolume, i: number): Finding[] {
  const path: PathSegment[] = ['volumes', i];
  const name = volume.name;
  if (name === undefined) return [missing(path, 'name', 'a volume')];
  if (name.startsWith('!')) {
    const out = removalExtras(path, volume, 'name', 'volume');
    return VOLUME_NAME.test(name.slice(1)) ? out : [...out, volumeNameFinding(path, name)];
  }
  const out: Finding[] = [];
  if (!VOLUME_NAME.test(name)) out.push(volumeNameFinding(path, name));
  if (volume.role === undefined) out.push(missing(path, 'role', `volume ${q(name)}`));
  else
    out.push(
      ...enumFinding('config.volume-role-invalid', [...path, 'role'], 'volume role', volume.role, [
        'cache',
        'state',
      ]),
    );
  if (volume.target === undefined) out.push(missing(path, 'target', `volume ${q(name)}`));
  else if (
    !isAbsolute(volume.target) ||
    volume.target.includes(',') ||
    CONTROL.test(volume.target)
  ) {
    out.push(
      finding(
        'config.volume-target-not-absolute',
        [...path, 'target'],
        `volume ${q(name)}: target ${q(volume.target)} must be an absolute path with no comma`,
        'write target = "/path/in/box"',
      ),
    );
  }
  if (volume.scope !== undefined) {
    out.push(
      ...enumFinding(
        'config.volume-scope-invalid',
        [...path, 'scope'],
        'volume scope',
        volume.scope,
        ['project', 'machine'],
      ),
    );
  }
  if (volume.sharing !== undefined) {
    out.push(
      ...enumFinding(
        'config.volume-sharing-invalid',
        [...path, 'sharing'],
        'volume sharing',
        volume.sharing,
        ['shared', 'exclusive'],
      ),
    );
  }
  if (volume.scope === 'machine' && volume.sharing === 'exclusive') {
    out.push(
      finding(
        'config.volume-exclusive-on-machine',
        [...path, 'sharing'],
        `volume ${q(name)}: a machine-scoped volume cannot be exclusive`,
        'use sharing = "shared", or scope = "project"',
      ),
    );
  }
  out.push(...checkSeed(volume, path));
  return out;
}

function volumeNameFinding(path: PathSegment[], name: string): Finding {
  return finding(
    'config.volume-name-invalid',
    [...path, 'name'],
    `volume name ${q(name)} invalid`,
    'use letters, digits, ".", "_" and "-"',
  );
}

export function checkVolumes(layer: RawLayer): Finding[] {
  const out = (layer.volumes ?? []).flatMap(checkVolume);
  const seen = new Set<string>();
  (layer.volumes ?? []).forEach((volume, i) => {
    const name = volume.name;
    if (name === undefined || name.startsWith('!')) return;
    if (seen.has(name)) {
      out.push(
        finding(
          'config.volume-duplicate',
          ['volumes', i, 'name'],
          `volume ${q(name)} is declared twice in this file`,
          'keep one declaration',
        ),
      );
    }
    seen.add(name);
  });
  return out;
}

export interface TargetClaim {
  kind: 'mount' | 'volume';
  label: string;
  target: string;
}

/** Pairs of claim indexes that bind the same path in the box. */
export function targetCollisions(claims: readonly TargetClaim[]): [number, number][] {
  const first = new Map<string, number>();
  const pairs: [number, number][] = [];
  claims.forEach((claim, i) => {
    const key = normalizeTarget(claim.target);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, i);
    else pairs.push([earlier, i]);
  });
  return pairs;
}

export function targetCollisionMessage(a: TargetClaim, b: TargetClaim): string {
  return `${b.label} and ${a.label} both bind ${normalizeTarget(b.target)}`;
}

export const TARGET_COLLISION_FIX = 'give one of them a different target, or remove it';

export function checkTargetCollisions(layer: RawLayer): Finding[] {
  const claims: { claim: TargetClaim; path: PathSegment[] }[] = [];
  (layer.mounts ?? []).forEach((m, i) => {
    if (m.target === undefined || m.target.startsWith('!') || m.disabled === true) return;
    claims.push({
      claim: { kind: 'mount', label: `mount ${q(m.target)}`, target: m.target },
      path: ['mounts', i, 'target'],
    });
  });
  (layer.volumes ?? []).forEach((v, i) => {
    if (v.target === undefined || v.name?.startsWith('!') === true) return;
    claims.push({
      claim: { kind: 'volume', label: `volume ${q(v.name ?? '')}`, target: v.target },
      path: ['volumes', i, 'target'],
    });
  });
  return targetCollisions(claims.map((c) => c.claim)).map(([a, b]) => {
    const first = claims[a];
    const second = claims[b];
    return finding(
      'config.target-collision',
      second?.path ?? [],
      first && second ? targetCollisionMessage(first.claim, second.claim) : 'target collision',
      TARGET_COLLISION_FIX,
    );
  });
}

// ---------------------------------------------------------------- egress

function egressFindings(
  entries: readonly string[],
  path: PathSegment[],
  allowClosures: boolean,
): Finding[] {
  return entries.flatMap((entry, i) => {
    const parsed = parseEgressEntry(entry);
    if (!parsed.ok)
      return [finding('config.egress-invalid', [...path, i], parsed.message, parsed.fix)];
    if (parsed.closure && !allowClosures) {
      return [
        finding(
          'config.egress-invalid',
          [...path, i],
          `egress ${q(entry)}: a closure has no meaning here`,
          'close hosts in the top-level egress list instead',
        ),
      ];
    }
    return [];
  });
}

export function checkEgress(layer: RawLayer): Finding[] {
  return [
    ...egressFindings(layer.egress ?? [], ['egress'], true),
    ...egressFindings(layer.egress_offered ?? [], ['egress_offered'], true),
  ];
}

// ---------------------------------------------------------------- mcp, claude skills, context

function wiringNameFindings(
  name: string,
  path: PathSegment[],
  what: string,
  rule: string,
): Finding[] {
  const bare = name.startsWith('!') ? name.slice(1) : name;
  if (WIRING_NAME.test(bare)) return [];
  return [
    finding(
      rule,
      [...path, 'name'],
      `${what} name ${q(name)} invalid`,
      'use lowercase letters, digits and "-", at most 64 characters',
    ),
  ];
}

function duplicateNames(
  entries: readonly { name?: string | undefined }[],
  list: string,
  what: string,
  rule: string,
): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  entries.forEach((entry, i) => {
    const name = entry.name;
    if (name === undefined) return;
    if (seen.has(name)) {
      out.push(
        finding(
          rule,
          [list, i, 'name'],
          `${what} ${q(name)} is declared twice in this file`,
          'keep one declaration',
        ),
      );
    }
    seen.add(name);
  });
  return out;
}

function checkMcpUrl(url: string, path: PathSegment[], name: string): Finding[] {
  const bad = (why: string): Finding[] => [
    finding(
      'config.mcp-url-invalid',
      [...path, 'url'],
      `mcp ${q(name)}: url ${q(url)} ${why}`,
      'write an http:// or https:// URL',
    ),
  ];
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1];
  const port =
    authority === undefined
      ? undefined
      : /:([0-9]*)$/.exec(authority.replace(/^\[[^\]]*\]/, ''))?.[1];
  if (port !== undefined && (port === '' || Number(port) < 1 || Number(port) > 65535)) {
    return bad('has a port outside 1-65535');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return bad('is not a URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return bad('must be http or https');
  if (parsed.hostname === '') return bad('has no host');
  return [];
}

function checkMcpEntry(mcp: RawMcp, i: number): Finding[] {
  const path: PathSegment[] = ['mcp', i];
  if (mcp.name === undefined) return [missing(path, 'name', 'an [[mcp]] entry')];
  const name = mcp.name;
  const out = wiringNameFindings(name, path, 'mcp', 'config.mcp-name-invalid');
  if (name.startsWith('!')) return [...out, ...removalExtras(path, mcp, 'name', 'mcp')];
  const hasCommand = mcp.command !== undefined;
  const hasUrl = mcp.url !== undefined;
  if (hasCommand && hasUrl) {
    out.push(
      finding(
        'config.mcp-command-and-url',
        path,
        `mcp ${q(name)} has both command and url`,
        'keep command for a local server or url for a remote one',
      ),
    );
  } else if (!hasUrl && (mcp.command ?? []).length === 0) {
    out.push(
      finding(
        'config.mcp-needs-command-or-url',
        path,
        `mcp ${q(name)} needs a command (argv list) or a url`,
        'add command = ["server", "stdio"] or url = "https://…"',
      ),
    );
  }
  if (mcp.url !== undefined) out.push(...checkMcpUrl(mcp.url, path, name));
  (mcp.env ?? []).forEach((envName, j) => {
    if (ENV_KEY.test(envName)) return;
    out.push(
      finding(
        'config.mcp-env-invalid',
        [...path, 'env', j],
        `mcp ${q(name)}: env entry ${q(envName)} is not a variable name`,
        'list variable NAMES the server reads (values come from [env] or env_from_host)',
      ),
    );
  });
  out.push(...egressFindings(mcp.egress ?? [], [...path, 'egress'], false));
  out.push(...checkMcpHeaders(mcp, path, name, hasCommand));
  return out;
}

function checkMcpHeaders(
  mcp: RawMcp,
  path: PathSegment[],
  name: string,
  local: boolean,
): Finding[] {
  const headers = Object.keys(mcp.headers ?? {});
  if (headers.length === 0) return [];
  if (local) {
    return [
      finding(
        'config.mcp-headers-local',
        [...path, 'headers'],
        `mcp ${q(name)}: headers apply only to a remote (url) server`,
        'remove headers, or use url',
      ),
    ];
  }
  const seen = new Set<string>();
  return headers.flatMap((header) => {
    const out: Finding[] = [];
    if (!HEADER_NAME.test(header)) {
      out.push(
        finding(
          'config.mcp-header-invalid',
          [...path, 'headers', header],
          `mcp ${q(name)}: header name ${q(header)} invalid`,
          'use an HTTP header token such as "Authorization"',
        ),
      );
    }
    const folded = header.toLowerCase();
    if (seen.has(folded)) {
      out.push(
        finding(
          'config.mcp-header-duplicate',
          [...path, 'headers', header],
          `mcp ${q(name)}: header ${q(header)} repeats another header (names are case-insensitive)`,
          'keep one spelling',
        ),
      );
    }
    seen.add(folded);
    return out;
  });
}

export function checkMcp(layer: RawLayer): Finding[] {
  const entries = layer.mcp ?? [];
  return [
    ...entries.flatMap(checkMcpEntry),
    ...duplicateNames(entries, 'mcp', 'mcp', 'config.mcp-duplicate'),
  ];
}

function checkClaudeSkill(skill: RawClaudeSkill, i: number): Finding[] {
  const path: PathSegment[] = ['claude_skills', i];
  if (skill.name === undefined) return [missing(path, 'name', 'a [[claude_skills]] entry')];
  const out = wiringNameFindings(
    skill.name,
    path,
    'claude skill',
    'config.claude-skill-name-invalid',
  );
  if (skill.name.startsWith('!'))
    return [...out, ...removalExtras(path, skill, 'name', 'claude skill')];
  if (skill.path === undefined) out.push(missing(path, 'path', `claude skill ${q(skill.name)}`));
  else if (!isHostPath(skill.path) || CONTROL.test(skill.path)) {
    out.push(
      finding(
        'config.claude-skill-path-invalid',
        [...path, 'path'],
        `claude skill ${q(skill.name)}: path ${q(skill.path)} must be ~/… or absolute`,
        'point path at the host directory whose root holds SKILL.md',
      ),
    );
  }
  return out;
}

export function checkClaudeSkills(layer: RawLayer): Finding[] {
  const entries = layer.claude_skills ?? [];
  return [
    ...entries.flatMap(checkClaudeSkill),
    ...duplicateNames(entries, 'claude_skills', 'claude skill', 'config.claude-skill-duplicate'),
  ];
}

function checkContextEntry(context: RawContext, i: number): Finding[] {
  const path: PathSegment[] = ['context', i];
  if (context.name === undefined) return [missing(path, 'name', 'a [[context]] entry')];
  const name = context.name;
  const bare = name.startsWith('!') ? name.slice(1) : name;
  const out: Finding[] = [];
  if (!CONTEXT_NAME.test(bare)) {
    out.push(
      finding(
        'config.context-name-invalid',
        [...path, 'name'],
        `context name ${q(name)} invalid`,
        'use letters, digits, ".", "_" and "-", at most 64 characters',
      ),
    );
  }
  if (name.startsWith('!')) return [...out, ...removalExtras(path, context, 'name', 'context')];
  if ((context.text === undefined) === (context.file === undefined)) {
    out.push(
      finding(
        'config.context-text-or-file',
        path,
        `context ${q(name)} needs exactly one of text and file`,
        'write the prose inline as text = "…", or point file = "~/notes/agent.md" at it',
      ),
    );
  }
  if (context.text !== undefined && CONTROL_EXCEPT_NL_TAB.test(context.text)) {
    out.push(
      finding(
        'config.context-control-chars',
        [...path, 'text'],
        `context ${q(name)}: text contains control characters other than newline and tab`,
        'remove the control characters',
      ),
    );
  }
  if (context.file !== undefined && (!isHostPath(context.file) || CONTROL.test(context.file))) {
    out.push(
      finding(
        'config.context-file-invalid',
        [...path, 'file'],
        `context ${q(name)}: file ${q(context.file)} must be ~/… or absolute`,
        'write file = "~/notes/agent.md"',
      ),
    );
  }
  return out;
}

export function checkContext(layer: RawLayer): Finding[] {
  const entries = layer.context ?? [];
  return [
    ...entries.flatMap(checkContextEntry),
    ...duplicateNames(entries, 'context', 'context', 'config.context-duplicate'),
  ];
}

/** Every value rule, in the order issues are reported. */
export const LAYER_RULES: readonly LayerRule[] = [
  checkEngine,
  checkTemplateName,
  checkAgentName,
  checkBase,
  checkExtends,
  checkWorktreeBase,
  checkSources,
  checkApt,
  checkEnv,
  checkEnvFromHost,
  checkCredentialsTable,
  checkCredentialRows,
  checkFiles,
  checkSkills,
  checkMounts,
  checkPorts,
  checkPortCollisions,
  checkVolumes,
  checkTargetCollisions,
  checkEgress,
  checkMcp,
  checkClaudeSkills,
  checkContext,
];

// ---------------------------------------------------------------- warnings

export function warnUnsupportedBase(layer: RawLayer): Finding[] {
  const base = layer.base;
  if (base === undefined || !/(^|[/:])(alpine|scratch|distroless)/.test(base)) return [];
  return [
    finding(
      'config.base-unsupported',
      ['base'],
      `base ${q(base)} is outside the Debian family byre and its skills assume (apt, a POSIX shell)`,
      'expect skills to fail to build; a Debian-derived base such as debian:bookworm is supported',
    ),
  ];
}

export function warnLargeContext(layer: RawLayer): Finding[] {
  return (layer.context ?? []).flatMap((context, i) => {
    const size = context.text === undefined ? 0 : new TextEncoder().encode(context.text).length;
    if (size < CONTEXT_WARN_BYTES) return [];
    return [
      finding(
        'config.context-large',
        ['context', i, 'text'],
        `context ${q(context.name ?? '')} is ${Math.round(size / 1024)} KiB; every session pays for it in the agent's context window`,
        'trim it, or move the bulk into a file the agent can read on demand',
      ),
    ];
  });
}

export const LAYER_WARNINGS: readonly LayerRule[] = [warnUnsupportedBase, warnLargeContext];
