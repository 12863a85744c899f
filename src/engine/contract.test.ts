// The engine contract against the fake engine: the same cases the engine
// tier runs against docker, podman and rootless podman.

import { engineContract } from '../../test/support/engine-contract.js';
import { FakeEngine } from '../../test/support/fake-engine.js';

for (const name of ['docker', 'podman'] as const) {
  engineContract(`fake ${name}`, async () => {
    const engine = new FakeEngine({ name });
    engine.images.set('debian:bookworm-slim', { id: 'sha256:slim', labels: {} });
    // The fake runs no shell: it answers the contract's few commands as a box would.
    engine.onExec = (spec, input) =>
      spec.command[0] === 'cat'
        ? { exitCode: 0, stdout: input ?? '', stderr: '' }
        : { exitCode: 7, stdout: 'out\n', stderr: '' };
    engine.onRunDetached = (argv) =>
      argv.includes('sh') ? { stdout: 'one\ntwo\nthree\n', stderr: 'err\n' } : null;
    engine.onExecStream = (_spec, stdin) => ({ exitCode: 3, stdout: stdin, stderr: 'err\n' });
    return { engine, image: 'debian:bookworm-slim', cleanup: async () => undefined };
  });
}
