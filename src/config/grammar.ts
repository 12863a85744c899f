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

export const CONTROL = /[\u0000-\u001f\u007f]/;
export const CONTROL_EXCEPT_NL_TAB = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** `~`, `~/…` or an absolute path: how host-side paths are written. */
export function isHostPath(path: string): boolean {
  return path === '~' || path.startsWith('~/') || path.startsWith('/');
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

/** Strip trailing slashes so `/a/` and `/a` name the same target. */
export function normalizeTarget(target: string): string {
  const trimmed = target.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}
