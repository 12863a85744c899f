// Rules for [env] and [env_from_host]: variable names, the reserved BYRE_
// namespace, and the host sources byre knows how to read.

import { isInjectedSource } from '../inject.js';
import { ENV_KEY, GIT_CONFIG_KEY, unbakeableEnvValue } from '../grammar.js';
import type { PathSegment } from '../locate.js';
import type { RawLayer } from '../schema.js';
import { credentialKindOf } from '../credential-rows.js';
import { finding, q, type Finding } from './finding.js';

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

/**
 * A value that cannot reach the box byte for byte is refused, never mangled.
 * `baked`: the value is an image ENV line (config `[env]`), where a line feed
 * cannot go either; a skill's runtime env travels as `-e` argv, which carries it.
 */
function envValueFindings(
  path: PathSegment[],
  key: string,
  value: string,
  baked: boolean,
): Finding[] {
  const problem = unbakeableEnvValue(value);
  if (problem === null || (problem === 'a line feed' && !baked)) return [];
  return [
    finding(
      'config.env-value-unbakeable',
      path,
      problem === 'a NUL'
        ? `env ${key}: the value holds a NUL, which no environment variable can carry`
        : `env ${key}: the value holds a line feed, which an image's ENV line cannot carry`,
      problem === 'a NUL'
        ? 'remove the NUL from the value'
        : `a multi-line value reaches the box at launch instead: env_from_host ${key} = "env:<HOST_VAR>", or run_args = ["-e", "${key}=<value>"]`,
    ),
  ];
}

export function checkEnv(
  layer: RawLayer,
  options: { baked: boolean } = { baked: true },
): Finding[] {
  return Object.entries(layer.env ?? {}).flatMap(([key, value]) => [
    ...envKeyFindings(key, ['env', key], 'env'),
    ...envValueFindings(['env', key], key, value, options.baked),
  ]);
}

const ENV_SOURCES_HINT =
  'supported sources are "git:<key>", "env:<HOST_VAR>", "tz:", "" (disabled) and the sealed rows `byre credential add` writes (encrypted:, encrypted-file:, injected:); a literal value belongs in [env]';

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
  // Sealed rows (encrypted, and injected at the edge) have their own rules (credentials.ts, inject.ts).
  if (credentialKindOf(source) !== null || isInjectedSource(source)) return null;
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
