// The split of a build plan between the base image's context and the
// wiring's, and the two digests (adr/0073).

import { describe, expect, it } from 'vitest';

import { fakeConfig } from '../../test/support/config.js';
import { planBuild } from '../gen/plan.js';
import { plannedContextFiles } from './context-digest.js';
import { baseDigest, boxDigest, splitPlan } from './image-parts.js';

const scope = { engine: 'docker', uid: 1, gid: 1 };

describe('splitPlan', () => {
  const plan = planBuild(fakeConfig(), [], '/nowhere');
  const parts = splitPlan(plan);

  it('puts every wiring file in the wiring part and nothing else there', () => {
    const paths = (p: typeof parts.base) => p.entries.map((e) => e.path);
    expect(paths(parts.wiring).length).toBeGreaterThan(0);
    expect(paths(parts.wiring).every((p) => p.startsWith('wiring/'))).toBe(true);
    expect(paths(parts.base).some((p) => p === 'wiring' || p.startsWith('wiring/'))).toBe(false);
    expect([...paths(parts.base), ...paths(parts.wiring)].sort()).toEqual(
      plan.entries.map((e) => e.path).sort(),
    );
    expect(parts.wiring.dirs).toContain('wiring');
  });

  it('a wiring change moves the box digest only; another base id moves both', () => {
    const base = plannedContextFiles(parts.base) ?? [];
    const wiring = plannedContextFiles(parts.wiring) ?? [];
    const rewired = wiring.map((f) => (f.path === 'wiring/mcp.json' ? { ...f, sha256: 'x' } : f));
    expect(baseDigest(base, 'sha256:from', scope)).toBe(baseDigest(base, 'sha256:from', scope));
    expect(boxDigest(rewired, 'sha256:b', scope)).not.toBe(boxDigest(wiring, 'sha256:b', scope));
    expect(boxDigest(wiring, 'sha256:c', scope)).not.toBe(boxDigest(wiring, 'sha256:b', scope));
    expect(baseDigest(base, 'sha256:other', scope)).not.toBe(
      baseDigest(base, 'sha256:from', scope),
    );
  });
});
