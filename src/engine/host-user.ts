// The root-host refusal and the rootless-Podman-too-old refusal, as pure
// checks that return data. Callers turn a refusal into RefusedError via
// `throwIfRefused`; nothing here reads the process or prints.

import { RefusedError } from '../errors.js';

type Env = Readonly<Record<string, string | undefined>>;

interface Refusal {
  rule: string;
  message: string;
  remedy: string;
}

export interface Warning {
  rule: string;
  message: string;
}

type HostCheck =
  { kind: 'ok' } | { kind: 'warn'; warning: Warning } | { kind: 'refuse'; refusal: Refusal };

const ALLOW_ROOT = 'BYRE_ALLOW_ROOT';
const ALLOW_ROOTLESS_PODMAN = 'BYRE_ALLOW_ROOTLESS_PODMAN';

/** Only the literal "1" opts in, so a stray empty or "0" never does. */
function optedIn(env: Env, key: string): boolean {
  return env[key] === '1';
}

/**
 * A root host user (uid 0 OR gid 0) would bake a root-owned dev user into the
 * image and make every file the box writes root's: refused unless opted in.
 */
export function checkHostUser(uid: number, gid: number, env: Env): HostCheck {
  if (uid !== 0 && gid !== 0) return { kind: 'ok' };
  const who = uid === 0 ? 'root (uid 0)' : 'a member of group root (gid 0)';
  if (optedIn(env, ALLOW_ROOT)) {
    return {
      kind: 'warn',
      warning: {
        rule: 'host.root-user',
        message: `running as ${who} because ${ALLOW_ROOT}=1; files the box writes will be owned by root`,
      },
    };
  }
  return {
    kind: 'refuse',
    refusal: {
      rule: 'host.root-user',
      message: `byre will not run as ${who}: the box would own your files as root`,
      remedy: `run byre as your normal user, or set ${ALLOW_ROOT}=1 to override`,
    },
  };
}

/** The first Podman with the explicit `keep-id:uid=,gid=` mapping form. */
const KEEP_ID_MIN: readonly [number, number] = [4, 3];

export interface Version {
  major: number;
  minor: number;
  patch: number;
}

function versionAtLeast(v: Version, min: readonly [number, number]): boolean {
  return v.major > min[0] || (v.major === min[0] && v.minor >= min[1]);
}

/**
 * Rootless Podman older than 4.3 cannot map the invoking user onto the baked
 * uid 1000, so ownership would be wrong: refused unless opted in (with the
 * warning kept). An unparseable version counts as too old.
 */
export function checkRootlessPodman(version: Version | null, env: Env): HostCheck {
  if (version !== null && versionAtLeast(version, KEEP_ID_MIN)) return { kind: 'ok' };
  const shown =
    version === null
      ? 'an unrecognised version'
      : `${version.major}.${version.minor}.${version.patch}`;
  if (optedIn(env, ALLOW_ROOTLESS_PODMAN)) {
    return {
      kind: 'warn',
      warning: {
        rule: 'engine.rootless-podman-old',
        message: `rootless Podman ${shown} predates keep-id mapping (4.3); continuing because ${ALLOW_ROOTLESS_PODMAN}=1, file ownership in the box may be wrong`,
      },
    };
  }
  return {
    kind: 'refuse',
    refusal: {
      rule: 'engine.rootless-podman-old',
      message: `rootless Podman ${shown} is older than 4.3 and cannot map your user onto the box user`,
      remedy: `upgrade Podman to 4.3 or later, use Docker (engine = "docker"), or set ${ALLOW_ROOTLESS_PODMAN}=1 to override`,
    },
  };
}

/** Throws the refusal as RefusedError; returns the warning (if any) for the caller to show. */
export function throwIfRefused(check: HostCheck): Warning | null {
  switch (check.kind) {
    case 'ok':
      return null;
    case 'warn':
      return check.warning;
    case 'refuse':
      throw new RefusedError(check.refusal.message, {
        rule: check.refusal.rule,
        remedy: check.refusal.remedy,
      });
  }
}
