import { describe, expect, it } from 'vitest';
import {
  committedImages,
  fromImages,
  isBuildWorkingContainer,
  isStepLine,
  stepContainers,
} from './build-output.js';

// Recorded from docker 20.10's legacy builder and podman 4.3, interrupted at step 4.
const DOCKER = `Sending build context to Docker daemon  3.072kB
Step 1/6 : FROM debian:bookworm
 ---> fcec78cd917e
Step 2/6 : RUN echo one > /one
 ---> Running in 9dadbbf8f350
Removing intermediate container 9dadbbf8f350
 ---> fdd26f2be506
Step 3/6 : RUN echo two > /two
 ---> Using cache
 ---> 847ecf71c4cd
Step 4/6 : RUN echo three > /three
 ---> Running in 1241768070f4
Removing intermediate container 1241768070f4
 ---> 5214c2381581
Step 5/6 : RUN sleep 30
 ---> Running in 6353904be52b
`;

const PODMAN = `STEP 1/5: FROM debian:bookworm
STEP 2/5: RUN echo one > /one
--> b145fd8ee74
STEP 3/5: RUN echo two > /two
--> Using cache 9be51f43a500c1b2d6a0c3d6f63a8a0c8e4e7a2d0b1c2d3e4f5a6b7c8d9e0f1a
--> 9be51f43a50
STEP 4/5: RUN echo three > /three
--> 3bce534fee3
STEP 5/5: RUN sleep 30
`;

describe('committedImages', () => {
  it.each([
    [
      'docker: new steps only, never the base or a cached step',
      DOCKER,
      ['fdd26f2be506', '5214c2381581'],
    ],
    ['podman: the same', PODMAN, ['b145fd8ee74', '3bce534fee3']],
    ['no output', '', []],
    ['a FROM of an earlier stage id', 'Step 1/2 : FROM abc\n ---> 0123456789ab\n', []],
  ])('%s', (_what, output, want) => {
    expect(committedImages(output)).toEqual(want);
  });
});

describe('isBuildWorkingContainer', () => {
  const committed = ['b145fd8ee74', '3bce534fee3'];
  it.each([
    ['b145fd8ee740-working-container', true],
    ['3bce534fee30-working-container-2', true],
    ['debian-working-container', true],
    ['debian-working-container-3', true],
    ['ffffffffffff-working-container', false],
    ['node-working-container', false],
    ['my-box', false],
    ['byre-app-123456', false],
  ])('%s: %s', (name, want) => {
    expect(isBuildWorkingContainer(name, committed, ['docker.io/library/debian:bookworm'])).toBe(
      want,
    );
  });
});

describe('fromImages and isStepLine', () => {
  it('names the bases and keeps only the lines that matter', () => {
    expect(fromImages(DOCKER)).toEqual(['debian:bookworm']);
    expect(fromImages(PODMAN)).toEqual(['debian:bookworm']);
    const kept = DOCKER.split('\n').filter(isStepLine).join('\n');
    expect(committedImages(kept)).toEqual(committedImages(DOCKER));
    expect(isStepLine('Get:1 http://deb.debian.org/debian bookworm InRelease')).toBe(false);
  });
});

describe('stepContainers', () => {
  it('lists docker’s step containers, podman has none', () => {
    expect(stepContainers(DOCKER)).toEqual(['9dadbbf8f350', '1241768070f4', '6353904be52b']);
    expect(stepContainers(PODMAN)).toEqual([]);
  });
});
