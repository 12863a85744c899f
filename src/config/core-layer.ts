// The built-in core layer: the lowest tier of every cascade. It carries the
// defaults a box gets before any file speaks (git identity, TERM, TZ, engine
// auto, the Debian base). Data only; merge.ts gives it no special treatment.

import type { RawLayer } from './schema.js';
import { DEFAULT_BASE, type LayerRef } from './types.js';

export const CORE_REF: LayerRef = { kind: 'core', name: 'core', path: null };

const CORE_LAYER: RawLayer = {
  engine: 'auto',
  base: DEFAULT_BASE,
  env_from_host: {
    GIT_AUTHOR_NAME: 'git:user.name',
    GIT_COMMITTER_NAME: 'git:user.name',
    GIT_AUTHOR_EMAIL: 'git:user.email',
    GIT_COMMITTER_EMAIL: 'git:user.email',
    TERM: 'env:TERM',
    TZ: 'tz:',
  },
};

/** The core layer as a cascade input; a fresh copy so callers cannot mutate the shared one. */
export function coreLayer(): { ref: LayerRef; raw: RawLayer } {
  return { ref: CORE_REF, raw: structuredClone(CORE_LAYER) };
}
