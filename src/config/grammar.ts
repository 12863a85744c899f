// The config vocabulary shared by every rule and by the skills code: name
// grammars, reserved names and the path predicates. Pure; the only owner of
// these patterns, so a rule, a manifest check and a writer agree on a name.

export const OCI_REF = /^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/;
export const APT_NAME = /^[A-Za-z0-9@][A-Za-z0-9@/._+:=~^-]*$/;
export const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const GIT_CONFIG_KEY = /^[A-Za-z0-9][A-Za-z0-9.-]*$/;
export const LAYER_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const VOLUME_NAME = /^[A-Za-z0-9_.-]+$/;
export const WIRING_NAME = /^[a-z0-9-]{1,64}$/;
export const PACKAGE_REF = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/;
/**
 * The id a NEW local package may take (`skill init`, `skill fork`): lower
 * case, no dots, each part at most 64. Older ids that PACKAGE_REF allows
 * (upper case, dots) still load; they are only refused as new names.
 */
export const NEW_PACKAGE_ID = /^[a-z0-9][a-z0-9_-]{0,63}(\/[a-z0-9][a-z0-9_-]{0,63})?$/;
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

/** A bundled name byre no longer ships: what became of it and where its package lives now. */
export interface RetiredBundled {
  /** What happened to it, as the reference's tombstone says it. */
  fate: string;
  /** The id its package is installed under now. */
  successor: string;
  /** The manifest URI and digest the reference's tombstone pins for that package. */
  uri: string;
  digest: string;
}

const PJL_SKILLS = 'https://raw.githubusercontent.com/pjlsergeant/pjlsergeant-byre-skills';
const DEVLOG: Omit<RetiredBundled, 'fate'> = {
  successor: 'pjlsergeant/devlog',
  uri: `${PJL_SKILLS}/v1.0.0/skills/devlog/skill.toml`,
  digest: 'sha256:9ecb65b18386ceea0dc54b7bb040b42e29a9872ab8fed4f9b1f86d5562926c12',
};

/**
 * The tombstones: bundled names byre no longer ships, each with the pinned
 * install of the package it became (the reference's table, byte for byte).
 * They stay reserved as package ids, and a config that still names one gets
 * the install as its remedy, never "not available". `devloop` was devlog's
 * name before a rename. Named layers are another namespace: these names are
 * legal there (adr/0059).
 */
export const RETIRED_BUNDLED: Readonly<Record<string, RetiredBundled>> = {
  codereview: {
    fate: 'moved out of byre',
    successor: 'pjlsergeant/codereview',
    uri: `${PJL_SKILLS}/v1.0.2/skills/codereview/skill.toml`,
    digest: 'sha256:3d0bf433dfab52ad947e125987d50b44aa47000414bbe14023bbcf80277ade86',
  },
  devlog: { fate: 'moved out of byre', ...DEVLOG },
  devloop: { fate: 'renamed to devlog, then moved out of byre', ...DEVLOG },
};

export const NONE = 'none';

/** C0, DEL and C1 (U+0080–U+009F): no config string byre passes on may carry one. */
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** The same, for prose: newline and tab are text there. */
export const CONTROL_EXCEPT_NL_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * What an `[env]` value cannot hold, or null. It is baked as a Dockerfile ENV
 * line (gen/quote.ts's dockerfileQuote), which carries every other character
 * byte for byte: a line feed would end the instruction, and no environment
 * holds a NUL.
 */
export function unbakeableEnvValue(value: string): 'a line feed' | 'a NUL' | null {
  if (value.includes('\n')) return 'a line feed';
  if (value.includes('\0')) return 'a NUL';
  return null;
}

/** `~`, `~/…` or an absolute path: how host-side paths are written. */
export function isHostPath(path: string): boolean {
  return path === '~' || path.startsWith('~/') || path.startsWith('/');
}

/**
 * A host path as the engine gets it: `~` / `~/…` against `home`, `.` and
 * `..` applied, no trailing slash. Null when it is not absolute even then.
 */
export function expandHostPath(host: string, home: string): string | null {
  let p = host;
  if (p === '~') p = home;
  else if (p.startsWith('~/')) p = `${home}/${p.slice(2)}`;
  if (!p.startsWith('/')) return null;
  const parts: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** An absolute path (in the box or on the host): starts with `/`. */
export function isAbsolute(path: string): boolean {
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

/** A contained relative path that names the directory itself (`.`, `./`, `x/..`). Pure. */
export function namesWholeDirectory(path: string): boolean {
  if (!isContainedRelative(path)) return false;
  let depth = 0;
  for (const part of path.split('/')) {
    if (part === '..') depth--;
    else if (part !== '.' && part !== '') depth++;
  }
  return depth === 0;
}

/** Strip trailing slashes so `/a/` and `/a` name the same target. */
export function normalizeTarget(target: string): string {
  const trimmed = target.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}
