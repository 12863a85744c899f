// The located failure for a base image the engine could not fetch: which
// image, which config layer set it (file, line and key when it is a file),
// the engine's own reason, and how to build on an image already present
// with `base = …`. Only locateBase reads a file.

import { indexKeys, locateKey } from '../config/locate.js';
import type { LayerRef } from '../config/types.js';
import type { EngineName } from '../engine/types.js';
import { ByreError, type Location } from '../errors.js';
import { readRegularFile } from '../host/read-regular.js';

/** Config files are small; a larger one is not worth locating a key in. */
const LOCATE_CAP = 1024 * 1024;

function layerWords(from: LayerRef): string {
  switch (from.kind) {
    case 'project':
      return "this project's config";
    case 'default':
      return 'your default.config';
    case 'layer':
      return `layer ${from.name}`;
    case 'template':
      return `template ${from.name}`;
    case 'core':
      return "byre's built-in default";
  }
}

interface BaseFailure {
  base: string;
  engine: EngineName;
  /** The engine's reason, one line. */
  why: string;
  from: LayerRef;
  /** Where `base` sits in `from.path`, when found. */
  position?: { line: number; column: number };
  /** The project's config file, where a user sets their own base. */
  projectConfig: string;
}

export function baseImageError(f: BaseFailure, cause?: unknown): ByreError {
  const location: Location | undefined =
    f.from.path === null ? undefined : { file: f.from.path, ...(f.position ?? {}), key: 'base' };
  const edit =
    f.from.kind === 'project' || f.from.kind === 'default' || f.from.kind === 'layer'
      ? (f.from.path ?? f.projectConfig)
      : f.projectConfig;
  const why = f.why === '' ? '' : `: ${f.why}`;
  return new ByreError(
    `the base image ${f.base} is not on ${f.engine} and could not be pulled${why}`,
    {
      rule: 'build.base-unavailable',
      ...(location === undefined ? {} : { location }),
      details: [`base = "${f.base}" comes from ${layerWords(f.from)}`],
      remedy:
        `check the name; pull it where its registry is reachable (${f.engine} pull ${f.base}); ` +
        `or build on an image ${f.engine} already has (${f.engine} images lists them): ` +
        `base = "<image>" in ${edit}`,
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/** Where the `base` key sits in the layer's file; undefined when there is no file or no key. */
export function locateBase(from: LayerRef): { line: number; column: number } | undefined {
  if (from.path === null) return undefined;
  try {
    const read = readRegularFile(from.path, LOCATE_CAP);
    if (read.kind !== 'ok') return undefined;
    const at = locateKey(indexKeys(read.bytes.toString('utf8')), ['base']);
    return at === undefined ? undefined : { line: at.line, column: at.column };
  } catch {
    return undefined;
  }
}
