// Pure parsers for what the engine CLI prints (JSON labels and env, ps and
// inspect rows, image lists). A malformed answer throws a TypeError: the
// engine said something byre does not understand, which is a bug to see.

import type {
  ContainerFacts,
  EngineName,
  ImageRef,
  LabelledContainer,
  LabelledObjectFacts,
  StorageInfo,
} from './types.js';

export function parseStringRecord(text: string, what: string): Record<string, string> {
  return stringRecordOf(JSON.parse(text.trim() === '' ? 'null' : text), what);
}

/** A JSON value read as a label map (null is empty); anything else throws. */
export function stringRecordOf(value: unknown, what: string): Record<string, string> {
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new TypeError(`${what}: expected a JSON object`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new TypeError(`${what}: value of ${k} is not a string`);
    out[k] = v;
  }
  return out;
}

/** `["K=V", …]` → record; a later duplicate wins, as in the process env. */
export function parseEnvList(text: string): Record<string, string> {
  return envOf(JSON.parse(text.trim() === '' ? 'null' : text));
}

/** A JSON value read as a `K=V` list (null is empty); non-strings and malformed items are skipped. */
export function envOf(value: unknown): Record<string, string> {
  if (value === null) return {};
  if (!Array.isArray(value)) throw new TypeError('container env: expected a JSON array');
  const out: Record<string, string> = {};
  for (const item of value) {
    if (typeof item !== 'string') continue;
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

/** psLabels rows: `[id, value…]` per line, values in `keys` order; "" is an absent label. */
export function parseLabelRows(text: string, keys: readonly string[]): LabelledContainer[] {
  return lines(text).map((line) => {
    const value: unknown = JSON.parse(line);
    if (
      !Array.isArray(value) ||
      value.length !== keys.length + 1 ||
      !value.every((v) => typeof v === 'string')
    ) {
      throw new TypeError(`ps: expected [id, ${keys.join(', ')}]`);
    }
    const [id, ...values] = value as string[];
    return labelRow(id ?? '', values, keys);
  });
}

/** One psLabels row: `values` in `keys` order, "" an absent label. */
export function labelRow(
  id: string,
  values: readonly string[],
  keys: readonly string[],
): LabelledContainer {
  const labels: Record<string, string> = {};
  keys.forEach((k, i) => {
    const v = values[i] ?? '';
    if (v !== '') labels[k] = v;
  });
  return { id, labels };
}

/** `container inspect` lines in CONTAINER_FACTS_FORMAT → facts; a malformed line throws. */
export function parseContainerFacts(text: string): ContainerFacts[] {
  return lines(text).map((line) => {
    const value: unknown = JSON.parse(line);
    if (
      !Array.isArray(value) ||
      value.length !== 4 ||
      typeof value[0] !== 'string' ||
      typeof value[1] !== 'boolean'
    ) {
      throw new TypeError('container inspect: expected [id, running, labels, env]');
    }
    const [id, running, labels, env] = value as [string, boolean, unknown, unknown];
    return {
      id,
      running,
      labels: stringRecordOf(labels, `labels of ${id}`),
      env: envOf(env),
    };
  });
}

/** `images --format '{{.ID}} {{.Repository}}:{{.Tag}}'` rows; `<none>:<none>` is dangling. */
export function parseImageList(text: string): ImageRef[] {
  return lines(text).flatMap((line) => {
    const space = line.indexOf(' ');
    if (space <= 0) return [];
    const ref = line.slice(space + 1).trim();
    const dangling = ref === '' || ref === '<none>:<none>' || ref.startsWith('<none>:');
    return [{ id: normalizeImageId(line.slice(0, space)), ref: dangling ? null : ref }];
  });
}

/** Podman prints the bare hex; Docker prefixes `sha256:`. */
export function normalizeImageId(raw: string): string {
  const id = raw.trim();
  return /^[0-9a-f]{64}$/.test(id) ? `sha256:${id}` : id;
}

export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** `[name-or-id, labels]` lines (VOLUME_FACTS_FORMAT, IMAGE_FACTS_FORMAT); a malformed line throws. */
export function parseLabelledObjects(
  text: string,
  what: 'volume' | 'image',
): LabelledObjectFacts[] {
  return lines(text).map((line) => {
    const value: unknown = JSON.parse(line);
    if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string') {
      throw new TypeError(`${what} inspect: expected [id, labels]`);
    }
    const id = what === 'image' ? normalizeImageId(value[0]) : value[0];
    return { id, labels: stringRecordOf(value[1] as unknown, `labels of ${what} ${id}`) };
  });
}

/** storageInfoArgv's answer: docker `[root, os]`, podman `[graphRoot, serviceIsRemote]`. */
export function parseStorageInfo(engine: EngineName, text: string): StorageInfo {
  const value: unknown = JSON.parse(text.trim());
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string') {
    throw new TypeError(`${engine} info: expected [root, …]`);
  }
  const remote =
    engine === 'docker'
      ? typeof value[1] === 'string' && /docker desktop/i.test(value[1])
      : value[1] === true;
  return { root: value[0], remote };
}
