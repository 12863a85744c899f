// The launch record's shape and its one byte layout: what byre told
// the engine when it created a box. Pure: renders, hashes and parses text; it
// never reads config, never touches the filesystem, and never holds env values.

import { createHash } from 'node:crypto';

import { parse, TomlDate } from 'smol-toml';
import '../zod.js';
import { z } from 'zod';

import type { EngineName } from '../engine/types.js';
import type { VolumeSpec } from '../config/types.js';
import type { Provenance } from '../skills/types.js';

/** The schema version this build writes and fully understands. */
const LAUNCH_RECORD_VERSION = 1;

/** The fixed comment every record opens with; part of the hashed bytes. */
const LAUNCH_RECORD_HEADER: readonly string[] = [
  '# byre launch record: what byre told the engine when it created one box.',
  '# The file is named by the sha256 of its own bytes, this header included,',
  '# and the box carries that name in its byre.launch label.',
  '# byre status re-hashes these bytes, so any edit to them is detectable.',
  '# Written by byre; do not edit.',
];

declare const envKeysBrand: unique symbol;

/**
 * Sorted env KEY names, never values. Only `envKeysOf` (and the parser) mint
 * one, so a `KEY=value` list cannot reach the record without a cast.
 */
type EnvKeys = readonly string[] & { readonly [envKeysBrand]: true };

export interface LaunchBind {
  host: string;
  target: string;
  mode: 'ro' | 'rw';
}

interface LaunchPort {
  interface: string;
  host: number;
  container: number;
}

export interface LaunchVolume {
  /** The engine's volume name (`byre-<project>-<decl>`, `byre-machine-u<uid>-<decl>`). */
  name: string;
  target: string;
  /** The name as declared in config or skill.toml. */
  decl: string;
  role: VolumeSpec['role'];
  scope: VolumeSpec['scope'];
  sharing: VolumeSpec['sharing'];
}

interface LaunchSkill {
  /** Canonical id: `byre/claude`, `owner/name`, or a local bare name. */
  name: string;
  provenance: Provenance;
}

/** One `reserved_env` entry, written as `"<skill> <KEY>"`. */
interface ReservedEnv {
  skill: string;
  key: string;
}

interface LaunchImage {
  tag: string;
  /** The engine's image `.Id`; empty when it could not be read. */
  digest: string;
  /** Why the digest is missing; omitted when it was read. */
  digestError?: string;
  /** The effective base image. */
  base: string;
  /**
   * The store directory the box's wiring is bound from, read-only (rootless
   * podman, adr/0075); omitted when the image carries the wiring.
   */
  wiring?: string;
}

interface LaunchNetwork {
  /** `open`, or the posture a skill declared (`deny-by-default`, `open-denylist`, …). */
  posture: string;
  /** The skill that set the posture; empty when open. */
  postureSkill: string;
  /** `host[:port]` after closures; written space-joined. */
  egress: readonly string[];
  egressDeny: readonly string[];
  reservedEnv: readonly ReservedEnv[];
  /** Project-layer run_args were present (raw runtime flags byre did not introspect). */
  projectRunArgs: boolean;
  /** Raw build lines were present. */
  rawBuild: boolean;
}

/** Every field, in the order it is written. TOML keys are the snake_case of these. */
export interface LaunchRecord {
  record: typeof LAUNCH_RECORD_VERSION;
  /** byre's version. */
  byre: string;
  /** UTC, truncated to seconds: `2026-01-02T03:04:05Z` (see `launchTimestamp`). */
  created: string;
  project: string;
  workdir: string;
  engine: EngineName;
  envKeys: EnvKeys;
  /**
   * Keys delivered over the credential channel (adr/0012), sorted; never
   * values. Written only when non-empty, so a record without credentials
   * keeps its earlier bytes.
   */
  credentialKeys?: readonly string[];
  /** Skill run_args then project run_args, verbatim. */
  runArgs: readonly string[];
  image: LaunchImage;
  network: LaunchNetwork;
  /** The workspace bind first. */
  binds: readonly LaunchBind[];
  ports: readonly LaunchPort[];
  volumes: readonly LaunchVolume[];
  skills: readonly LaunchSkill[];
}

type LaunchRecordParse =
  | { kind: 'ok'; record: LaunchRecord }
  /** `record` is newer than this build understands; nothing else was read. */
  | { kind: 'newer_schema'; version: number }
  | { kind: 'invalid'; rule: LaunchParseRule; message: string };

export type LaunchParseRule =
  'launch.not-utf8' | 'launch.toml-syntax' | 'launch.record-version' | 'launch.schema';

// ---------------------------------------------------------------------------
// Env keys

const ENV_KEY = /^[^=\0]+$/u;

/** Byte-wise (code point) order, so the sort agrees with any other implementation. */
function compareCodePoints(a: string, b: string): number {
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done === true || y.done === true) {
      return (x.done === true ? 0 : 1) - (y.done === true ? 0 : 1);
    }
    const d = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
}

function assertEnvKey(key: string): void {
  if (!ENV_KEY.test(key)) {
    throw new RangeError(
      `launch record env key must be a name without "=", got ${JSON.stringify(key)}`,
    );
  }
}

/**
 * The sorted keys of the box's `-e` set. Takes the whole map so callers never
 * strip values themselves; the values are not read.
 */
export function envKeysOf(
  env: ReadonlyMap<string, unknown> | Readonly<Record<string, unknown>>,
): EnvKeys {
  const keys =
    env instanceof Map ? [...(env as ReadonlyMap<string, unknown>).keys()] : Object.keys(env);
  keys.forEach(assertEnvKey);
  return [...new Set(keys)].sort(compareCodePoints) as unknown as EnvKeys;
}

/** `created`: UTC ISO-8601 truncated to whole seconds. */
export function launchTimestamp(now: Date): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

// ---------------------------------------------------------------------------
// Rendering

// Escaped beyond what TOML requires (C1 controls, line/paragraph separators,
// bidi controls, BOM) so a hostile path cannot reorder or hide text for a
// human reading the file; TOML's \u escape keeps those bytes round-tripping.
const NEEDS_U_ESCAPE =
  /^[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]$/u;

/** A TOML basic string for any well-formed JS string. Lone surrogates have no TOML form. */
function tomlString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      throw new RangeError(`launch record string holds a lone surrogate: ${JSON.stringify(value)}`);
    }
    switch (ch) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\r':
        out += '\\r';
        break;
      default:
        out += NEEDS_U_ESCAPE.test(ch)
          ? `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`
          : ch;
    }
  }
  return `${out}"`;
}

function tomlStringArray(values: readonly string[]): string {
  return `[${values.map(tomlString).join(', ')}]`;
}

function tomlPort(value: number, what: string): string {
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new RangeError(`launch record ${what} must be an integer port, got ${value}`);
  }
  return String(value);
}

function noSpace(value: string, what: string): string {
  if (value === '' || /\s/u.test(value)) {
    throw new RangeError(
      `launch record ${what} must be non-empty without whitespace, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * The record's exact bytes: the fixed header, then every field in reference
 * order. Deterministic by construction; it throws (a bug, not a user error) on
 * values the layout cannot carry faithfully.
 */
export function renderLaunchRecord(record: LaunchRecord): string {
  if (!TIMESTAMP.test(record.created)) {
    throw new RangeError(
      `launch record created must be UTC seconds, got ${JSON.stringify(record.created)}`,
    );
  }
  record.envKeys.forEach(assertEnvKey);
  const { image, network } = record;
  const lines: string[] = [...LAUNCH_RECORD_HEADER];
  const kv = (key: string, value: string): void => {
    lines.push(`${key} = ${value}`);
  };

  kv('record', String(LAUNCH_RECORD_VERSION));
  kv('byre', tomlString(record.byre));
  kv('created', record.created);
  kv('project', tomlString(record.project));
  kv('workdir', tomlString(record.workdir));
  kv('engine', tomlString(record.engine));
  kv('env_keys', tomlStringArray(record.envKeys));
  const credentialKeys = record.credentialKeys ?? [];
  if (credentialKeys.length > 0) {
    credentialKeys.forEach(assertEnvKey);
    kv('credential_keys', tomlStringArray(credentialKeys));
  }
  kv('run_args', tomlStringArray(record.runArgs));

  lines.push('', '[image]');
  kv('tag', tomlString(image.tag));
  kv('digest', tomlString(image.digest));
  if (image.digestError !== undefined) kv('digest_error', tomlString(image.digestError));
  kv('base', tomlString(image.base));
  if (image.wiring !== undefined) kv('wiring', tomlString(image.wiring));

  lines.push('', '[network]');
  kv('posture', tomlString(network.posture));
  kv('posture_skill', tomlString(network.postureSkill));
  kv('egress', tomlString(network.egress.map((e) => noSpace(e, 'egress entry')).join(' ')));
  kv('egress_deny', tomlStringArray(network.egressDeny));
  kv(
    'reserved_env',
    tomlStringArray(
      network.reservedEnv.map(
        (r) => `${noSpace(r.skill, 'reserved_env skill')} ${noSpace(r.key, 'reserved_env key')}`,
      ),
    ),
  );
  kv('project_run_args', String(network.projectRunArgs));
  kv('raw_build', String(network.rawBuild));

  for (const bind of record.binds) {
    lines.push('', '[[binds]]');
    kv('host', tomlString(bind.host));
    kv('target', tomlString(bind.target));
    kv('mode', tomlString(bind.mode));
  }
  for (const port of record.ports) {
    lines.push('', '[[ports]]');
    kv('interface', tomlString(port.interface));
    kv('host', tomlPort(port.host, 'ports.host'));
    kv('container', tomlPort(port.container, 'ports.container'));
  }
  for (const volume of record.volumes) {
    lines.push('', '[[volumes]]');
    kv('name', tomlString(volume.name));
    kv('target', tomlString(volume.target));
    kv('decl', tomlString(volume.decl));
    kv('role', tomlString(volume.role));
    kv('scope', tomlString(volume.scope));
    kv('sharing', tomlString(volume.sharing));
  }
  for (const skill of record.skills) {
    lines.push('', '[[skills]]');
    kv('name', tomlString(skill.name));
    kv('provenance', tomlString(skill.provenance));
  }
  return `${lines.join('\n')}\n`;
}

/** sha256 hex of the record's full bytes (header included): its file name and label. */
export function launchRecordHash(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

// ---------------------------------------------------------------------------
// Parsing

// Built on first use, not at load: only status and develop with a running
// box read a record, and zod's schemas cost milliseconds in the binary.
function buildSchema() {
  const port = z.number().int().min(0).max(65535);

  return z.strictObject({
    record: z.literal(LAUNCH_RECORD_VERSION),
    byre: z.string(),
    created: z.instanceof(Date),
    project: z.string(),
    workdir: z.string(),
    engine: z.enum(['docker', 'podman']),
    env_keys: z.array(z.string().regex(ENV_KEY)),
    credential_keys: z.array(z.string().regex(ENV_KEY)).default([]),
    run_args: z.array(z.string()),
    image: z.strictObject({
      tag: z.string(),
      digest: z.string(),
      digest_error: z.string().optional(),
      base: z.string(),
      wiring: z.string().optional(),
    }),
    network: z.strictObject({
      posture: z.string(),
      posture_skill: z.string(),
      egress: z.string(),
      egress_deny: z.array(z.string()),
      reserved_env: z.array(z.string().regex(/^\S+ \S+$/u)),
      project_run_args: z.boolean(),
      raw_build: z.boolean(),
    }),
    binds: z
      .array(z.strictObject({ host: z.string(), target: z.string(), mode: z.enum(['ro', 'rw']) }))
      .default([]),
    ports: z
      .array(z.strictObject({ interface: z.string(), host: port, container: port }))
      .default([]),
    volumes: z
      .array(
        z.strictObject({
          name: z.string(),
          target: z.string(),
          decl: z.string(),
          role: z.enum(['cache', 'state']),
          scope: z.enum(['project', 'machine']),
          sharing: z.enum(['shared', 'exclusive']),
        }),
      )
      .default([]),
    skills: z
      .array(
        z.strictObject({ name: z.string(), provenance: z.enum(['bundled', 'installed', 'local']) }),
      )
      .default([]),
  });
}

let built: ReturnType<typeof buildSchema> | null = null;
function schema(): ReturnType<typeof buildSchema> {
  built ??= buildSchema();
  return built;
}

function invalid(rule: LaunchParseRule, message: string): LaunchRecordParse {
  return { kind: 'invalid', rule, message };
}

/** The `created` datetime back in `launchTimestamp` form; null when it is not one. */
function createdText(value: Date): string | null {
  if (!(value instanceof TomlDate) || !value.isDateTime() || value.isLocal() || !value.isValid())
    return null;
  if (value.getUTCMilliseconds() !== 0) return null;
  return launchTimestamp(value);
}

/**
 * Parse a record's text (header and all). The version is checked before the
 * shape, so a newer record reports `newer_schema` whatever else it holds.
 */
export function parseLaunchRecord(text: string): LaunchRecordParse {
  let table: Record<string, unknown>;
  try {
    table = parse(text, { unsafeKeyBehaviour: 'throw', maxDepth: 4 });
  } catch (error) {
    return invalid('launch.toml-syntax', error instanceof Error ? error.message : String(error));
  }

  const version = table['record'];
  if (typeof version !== 'number' || !Number.isInteger(version)) {
    return invalid('launch.record-version', 'record must be an integer schema version');
  }
  if (version > LAUNCH_RECORD_VERSION) return { kind: 'newer_schema', version };
  if (version < LAUNCH_RECORD_VERSION) {
    return invalid('launch.record-version', `record = ${version} is not a schema version`);
  }

  const result = schema().safeParse(table);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue === undefined ? '' : `${issue.path.join('.')}: `;
    return invalid('launch.schema', `${where}${issue?.message ?? 'invalid launch record'}`);
  }
  const raw = result.data;
  const created = createdText(raw.created);
  if (created === null)
    return invalid('launch.schema', 'created: must be a UTC datetime in whole seconds');

  return {
    kind: 'ok',
    record: {
      record: LAUNCH_RECORD_VERSION,
      byre: raw.byre,
      created,
      project: raw.project,
      workdir: raw.workdir,
      engine: raw.engine,
      envKeys: raw.env_keys as unknown as EnvKeys,
      ...(raw.credential_keys.length === 0 ? {} : { credentialKeys: raw.credential_keys }),
      runArgs: raw.run_args,
      image: {
        tag: raw.image.tag,
        digest: raw.image.digest,
        ...(raw.image.digest_error === undefined ? {} : { digestError: raw.image.digest_error }),
        base: raw.image.base,
        ...(raw.image.wiring === undefined ? {} : { wiring: raw.image.wiring }),
      },
      network: {
        posture: raw.network.posture,
        postureSkill: raw.network.posture_skill,
        egress: raw.network.egress.split(' ').filter((entry) => entry !== ''),
        egressDeny: raw.network.egress_deny,
        reservedEnv: raw.network.reserved_env.map((entry) => {
          const space = entry.indexOf(' ');
          return { skill: entry.slice(0, space), key: entry.slice(space + 1) };
        }),
        projectRunArgs: raw.network.project_run_args,
        rawBuild: raw.network.raw_build,
      },
      binds: raw.binds,
      ports: raw.ports,
      volumes: raw.volumes,
      skills: raw.skills,
    },
  };
}
