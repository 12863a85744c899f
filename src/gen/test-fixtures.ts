// Builders for gen/ and project/ unit tests: a complete EffectiveConfig and
// ResolvedSkill with every field at its empty default. Test-only; production
// code must never import this module.

import type { EffectiveConfig, LayerRef, Sourced } from '../config/types.js';
import type { ResolvedSkill } from '../skills/types.js';

export const PROJECT_LAYER: LayerRef = {
  kind: 'project',
  name: 'project',
  path: '/home/u/.byre/projects/demo-app-123abc/byre.config',
};

export function sourced<T>(value: T, from: LayerRef = PROJECT_LAYER): Sourced<T> {
  return { value, from };
}

export function fakeConfig(overrides: Partial<EffectiveConfig> = {}): EffectiveConfig {
  return {
    layers: [PROJECT_LAYER],
    engine: sourced('auto'),
    template: null,
    agent: null,
    base: sourced('node:22'),
    seedPrefs: null,
    worktreeBase: null,
    extendsChain: [],
    sources: {},
    apt: [],
    env: {},
    envFromHost: {},
    credentials: [],
    files: {},
    skills: [],
    mounts: [],
    ports: [],
    volumes: [],
    egress: [],
    egressClosed: [],
    egressOffered: [],
    mcp: [],
    mcpClosed: [],
    claudeSkills: [],
    claudeSkillsClosed: [],
    context: [],
    dockerfilePre: [],
    dockerfilePost: [],
    runArgs: [],
    defaults: { sharedAuth: {}, skipQuestions: false },
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
    build: { apt: [], dockerfile: [], files: [] },
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
