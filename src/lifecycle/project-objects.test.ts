import { describe, expect, it } from 'vitest';
import { isMachineVolume, planProjectImages, planProjectVolumes } from './project-objects.js';

const ID = 'proj-a-1a2b3c';

/** The longer project id the volume plan says `name` may belong to; null when it says none. */
function longerProjectClaim(projectId: string, name: string): string | null {
  const { ambiguous } = planProjectVolumes(projectId, { byName: [name], byLabel: [], machine: [] });
  expect(ambiguous.length).toBeLessThanOrEqual(1);
  expect(ambiguous.every((a) => a.name === name)).toBe(true);
  return ambiguous[0]?.maybe ?? null;
}

/** Whether the image plan removes the unlabelled tag `ref` as this project's. */
function isProjectImageRef(projectId: string, ref: string): boolean {
  const planned = planProjectImages(projectId, [{ id: 'sha256:0', ref }], []);
  expect(planned.every((r) => r === ref)).toBe(true);
  return planned.length === 1;
}

describe('planProjectVolumes', () => {
  it('kills labelled and exact-prefix volumes, never machine ones', () => {
    const plan = planProjectVolumes(ID, {
      byName: [
        'byre-proj-a-1a2b3c-state',
        'byre-proj-a-1a2b3c-cache',
        'byre-proj-a-1a2b3cd-state',
        'xbyre-proj-a-1a2b3c-state',
      ],
      byLabel: ['byre-proj-a-1a2b3c-state'],
      machine: ['byre-machine-u1000-auth', 'byre-machine-notauid'],
    });
    expect(plan.doomed).toEqual(['byre-proj-a-1a2b3c-cache', 'byre-proj-a-1a2b3c-state']);
    expect(plan.machine).toEqual(['byre-machine-u1000-auth']);
    expect(plan.ambiguous).toEqual([]);
  });

  it('does not confuse proj-a-1a2b3c with a longer id proj-a-1a2b3c-x-…', () => {
    const plan = planProjectVolumes(ID, {
      byName: ['byre-proj-a-1a2b3c-x-ffffff-state', 'byre-proj-a-1a2b3c-x-state'],
      byLabel: [],
      machine: [],
    });
    expect(plan.doomed).toEqual(['byre-proj-a-1a2b3c-x-state']);
    expect(plan.ambiguous).toEqual([
      { name: 'byre-proj-a-1a2b3c-x-ffffff-state', maybe: 'proj-a-1a2b3c-x-ffffff' },
    ]);
  });

  it('trusts our label over the ambiguity', () => {
    const name = 'byre-proj-a-1a2b3c-x-ffffff-state';
    const plan = planProjectVolumes(ID, { byName: [name], byLabel: [name], machine: [] });
    expect(plan.doomed).toEqual([name]);
    expect(plan.ambiguous).toEqual([]);
  });

  it('never kills a machine-named volume even when labelled', () => {
    const plan = planProjectVolumes(ID, {
      byName: [],
      byLabel: ['byre-machine-u0-auth'],
      machine: [],
    });
    expect(plan.doomed).toEqual([]);
  });
});

describe('planProjectVolumes: a longer project id that may claim a volume', () => {
  it.each([
    ['byre-proj-a-1a2b3c-state', null],
    ['byre-proj-a-1a2b3c-abcdef-state', 'proj-a-1a2b3c-abcdef'],
    ['byre-proj-a-1a2b3c-x-y-012345-v', 'proj-a-1a2b3c-x-y-012345'],
    ['byre-proj-a-1a2b3c-abcdef', null],
    ['byre-other-1a2b3c-state', null],
  ])('%s → %s', (name, claim) => {
    expect(longerProjectClaim(ID, name)).toBe(claim);
  });
});

describe('isMachineVolume', () => {
  it.each([
    ['byre-machine-u1000-auth', true],
    ['byre-machine-u0-x', true],
    ['byre-machine-ux-auth', false],
    ['byre-proj-a-1a2b3c-machine', false],
  ])('%s → %s', (name, want) => {
    expect(isMachineVolume(name)).toBe(want);
  });
});

describe('images', () => {
  it.each([
    ['byre-proj-a-1a2b3c-u1000-g1000:latest', true],
    ['localhost/byre-proj-a-1a2b3c-u0-g0:latest', true],
    ['byre-proj-a-1a2b3c-u0-g0', true],
    ['byre-proj-a-1a2b3c-x-ffffff-u0-g0:latest', false],
    ['byre-proj-a-1a2b3c-u0-g0:other', false],
    ['byre-proj-a-1a2b3c-u0:latest', false],
    ['localhost/byre-proj-a-1a2b3c-u0-g0-base:latest', true],
    ['byre-proj-a-1a2b3c-u0-g0-based:latest', false],
    ['byre-proj-a-1a2b3c-x-ffffff-u0-g0-base:latest', false],
    // The edge's own image (adr/0077), exactly.
    ['localhost/byre-proj-a-1a2b3c-edge:latest', true],
    ['byre-proj-a-1a2b3c-edge', true],
    ['byre-proj-a-1a2b3c-x-ffffff-edge:latest', false],
    ['byre-proj-a-1a2b3c-edged:latest', false],
  ])('isProjectImageRef(%s) = %s', (ref, want) => {
    expect(isProjectImageRef(ID, ref)).toBe(want);
  });

  it('strips the registry and :latest', () => {
    expect(isProjectImageRef(ID, 'docker.io/library/byre-proj-a-1a2b3c-u0-g0:latest')).toBe(true);
  });

  it('plans tags by name and label, dangling labelled images by id', () => {
    const all = [
      { id: 'sha256:1', ref: 'byre-proj-a-1a2b3c-u0-g0:latest' },
      { id: 'sha256:2', ref: 'byre-proj-a-1a2b3c-x-ffffff-u0-g0:latest' },
      { id: 'sha256:3', ref: null },
      { id: 'sha256:4', ref: 'debian:bookworm' },
    ];
    const labelled = [
      { id: 'sha256:1', ref: 'byre-proj-a-1a2b3c-u0-g0:latest' },
      { id: 'sha256:3', ref: null },
    ];
    expect(planProjectImages(ID, all, labelled)).toEqual([
      'byre-proj-a-1a2b3c-u0-g0:latest',
      'sha256:3',
    ]);
  });

  // podman names them localhost/…-base:latest, which sorts before
  // localhost/…:latest; the box goes first, then the base under it (adr/0073).
  it('plans a base image, unlabelled or not, after the box images', () => {
    const box = 'localhost/byre-proj-a-1a2b3c-u0-g0:latest';
    const base = 'localhost/byre-proj-a-1a2b3c-u0-g0-base:latest';
    const all = [
      { id: 'sha256:5', ref: base },
      { id: 'sha256:6', ref: box },
    ];
    expect(planProjectImages(ID, all, [])).toEqual([box, base]);
  });
});
