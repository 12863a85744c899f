// The engine contract against the fake engine: the same cases the engine
// tier runs against docker, podman and rootless podman. The fake's boxes run
// byre's box scripts through its interpreter, not answers set per case; and
// the contract must reach every method of Engine.

import { describe, expect, it } from 'vitest';
import { engineContract } from '../../test/support/engine-contract.js';
import { FakeEngine, type EngineMethod } from '../../test/support/fake-engine.js';

/** Every Engine method: the compiler refuses this table when one is added or removed. */
const METHODS: Record<EngineMethod, true> = {
  build: true,
  imageId: true,
  imageExists: true,
  imageLabels: true,
  imageInfo: true,
  imageInfoAll: true,
  removeImage: true,
  imageList: true,
  inspectImages: true,
  storageInfo: true,
  registryHas: true,
  create: true,
  startAttached: true,
  run: true,
  runStream: true,
  ps: true,
  psLabels: true,
  inspectLabels: true,
  inspectEnv: true,
  inspectContainers: true,
  networkMode: true,
  stop: true,
  remove: true,
  volumeExists: true,
  volumeCreate: true,
  volumeRemove: true,
  volumeList: true,
  inspectVolumes: true,
  exec: true,
  execAttached: true,
  execStream: true,
  logs: true,
};

for (const name of ['docker', 'podman'] as const) {
  const engine = new FakeEngine({ name });
  engine.images.set('debian:bookworm-slim', { id: 'sha256:slim', labels: {} });
  // A detached box's log is not interpreted: the fake says what the contract's box prints.
  engine.onRunDetached = (argv) =>
    argv.includes('sh') ? { stdout: 'one\ntwo\nthree\n', stderr: 'err\n' } : null;
  engineContract(`fake ${name}`, async () => ({
    engine,
    image: 'debian:bookworm-slim',
    cleanup: async () => undefined,
  }));
  describe(`engine contract coverage: fake ${name}`, () => {
    it('the contract called every Engine method', () => {
      const called = new Set(engine.calls.map((c) => c.method));
      expect(Object.keys(METHODS).filter((m) => !called.has(m as EngineMethod))).toEqual([]);
    });
  });
}
