// Builders for unit tests that need a resolved config or skill: the real
// merge of no layers with its provenance pointed at one project layer, and a
// ResolvedSkill with every field at its empty default.

import { mergeLayers } from '../../src/config/merge.js';
import type { EffectiveConfig, LayerRef, Sourced } from '../../src/config/types.js';
import type { ResolvedSkill } from '../../src/skills/types.js';

export const PROJECT_LAYER: LayerRef = {
  kind: 'project',
  name: 'project',
  path: '/home/u/.byre/projects/demo-app-123abc/byre.config',
};

export function sourced<T>(value: T, from: LayerRef = PROJECT_LAYER): Sourced<T> {
  return { value, from };
}

/** A merged config as if one project layer had set `base = "node:22"` and nothing else. */
export function fakeConfig(overrides: Partial<EffectiveConfig> = {}): EffectiveConfig {
  return {
    ...mergeLayers([]),
    layers: [PROJECT_LAYER],
    engine: sourced('auto'),
    base: sourced('node:22'),
    ...overrides,
  };
}

export function fakeSkill(
  id: string,
  provenance: ResolvedSkill['provenance'],
  overrides: Partial<Omit<ResolvedSkill, 'id' | 'provenance'>> = {},
): ResolvedSkill {
  return {
    id,
    provenance,
    version: '1.0.0',
    description: `${id} (test skill)`,
    build: { apt: [], node: null, dockerfile: [], files: [] },
    runtime: {
      env: {},
      runArgs: [],
      caps: [],
      mounts: [],
      networkPosture: null,
      netnsInit: null,
      egress: [],
      egressOffered: [],
      sockGroups: [],
      containment: null,
    },
    agent: null,
    volumes: [],
    mcp: [],
    claudeSkills: [],
    context: null,
    ...overrides,
  };
}

export function text(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}
