// What one project's box was launched with write access to stays a
// box-writable tree for every project, and after its config drops it
// (adr/0046): develop records it in the store, and another project's load
// and host tool pinning decline what it reaches. The fake engine stands in
// for the engine; the store, the links and the tools are real files.

import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeEngine, FAKE_FACTS } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { storeWritableTrees, treeRoots } from '../containment/writable-trees.js';
import { DEFAULT_BASE } from '../config/types.js';
import { resolveHostTool } from '../engine/host-tools.js';
import { ByreError } from '../errors.js';
import { failureReport } from '../output/render-error.js';
import { resolveProjectContext } from '../project/context.js';
import { projectIdFor } from '../project/identity.js';
import { storePaths } from '../project/store-layout.js';
import { developCommand } from './develop.js';
import { loadBox, projectDeclinedRoots } from './load.js';

/** What main prints for a failure: the rendered error, or the crash banner. */
function printed(error: unknown): string {
  const { text } = failureReport(error);
  if (text === null) throw new Error('failureReport printed nothing');
  return text;
}

const tmp = useTempDir('launched-trees');

interface World {
  store: string;
  user: string;
  /** Project A's read-write mount, `~/shared`. */
  shared: string;
  a: string;
  b: string;
  io(cwd: string, env?: Record<string, string>): FakeIo;
  config(project: string, text: string): void;
}

function world(): World {
  const root = tmp.path;
  const store = path.join(root, 'store');
  const user = path.join(root, 'user');
  const shared = path.join(user, 'shared');
  const a = path.join(root, 'a');
  const b = path.join(root, 'b');
  for (const d of [shared, a, b, path.join(user, '.ssh')]) mkdirSync(d, { recursive: true });
  return {
    store,
    user,
    shared,
    a,
    b,
    io: (cwd, env = {}) =>
      fakeIo({ cwd, env: { BYRE_HOME: store, HOME: user, PATH: '/usr/bin:/bin', ...env } }),
    config(project, text) {
      const dir = path.join(storePaths(store).projects, projectIdFor(project));
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'byre.config'), text);
    },
  };
}

async function developIn(w: World, project: string): Promise<void> {
  const engine = new FakeEngine();
  engine.images.set(DEFAULT_BASE, { id: 'sha256:base', labels: {} });
  await developCommand(
    w.io(project),
    {},
    {
      detect: async () => FAKE_FACTS,
      createEngine: () => engine,
      pool: { members: [{ name: engine.facts.name, state: 'ok', engine }] },
      clock: () => new Date('2026-12-02T08:00:00Z'),
      pidAlive: () => false,
    },
  );
  expect(engine.callsTo('create')).toHaveLength(1);
}

async function loadError(w: World, project: string): Promise<ByreError | null> {
  return loadBox(w.io(project)).then(
    () => null,
    (e: unknown) => {
      if (e instanceof ByreError) return e;
      throw e;
    },
  );
}

const SHARED_RW = '[[mounts]]\nhost = "~/shared"\ntarget = "/shared"\nmode = "rw"\n';

describe("another project's box's read-write mount is a box-writable tree (adr/0046)", () => {
  it("project B's mount through a link planted in A's read-write mount is refused at load, naming the link and both declarations", async () => {
    const w = world();
    w.config(w.a, SHARED_RW);
    await developIn(w, w.a);
    // In A's box: ln -s ~/.ssh /shared/keys
    symlinkSync(path.join(w.user, '.ssh'), path.join(w.shared, 'keys'));
    w.config(w.b, '[[mounts]]\nhost = "~/shared/keys"\ntarget = "/keys"\n');
    const error = await loadError(w, w.b);
    expect(error?.rule).toBe('containment.link-in-box-tree');
    const text = printed(error as ByreError);
    expect(text).toMatch(/byre\.config:2:1 \(key mounts\[0\]\.host\): the mount ~\/shared\/keys/);
    expect(text).toContain(
      `through the link ${path.join(w.shared, 'keys')} -> "${path.join(w.user, '.ssh')}"`,
    );
    expect(text).toContain(`the read-write mount ~/shared -> /shared of a box of ${w.a}`);
  });

  it('a grant the config dropped stays a tree: A itself refuses the link after the mount is gone from its config', async () => {
    const w = world();
    w.config(w.a, SHARED_RW);
    await developIn(w, w.a);
    w.config(w.a, '[[mounts]]\nhost = "~/shared/keys"\ntarget = "/keys"\n');
    symlinkSync(path.join(w.user, '.ssh'), path.join(w.shared, 'keys'));
    expect((await loadError(w, w.a))?.rule).toBe('containment.link-in-box-tree');
  });

  it("a docker on PATH inside A's read-write mount is declined when B looks for it, and deliver's store-level view declines it too", async () => {
    const w = world();
    w.config(w.a, SHARED_RW);
    await developIn(w, w.a);
    writeFileSync(path.join(w.shared, 'docker'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const io = w.io(w.b, { PATH: `${w.shared}:/usr/bin:/bin` });
    const ctx = await resolveProjectContext(w.b, io.env);
    const declined = {
      kind: 'declined',
      tool: 'docker',
      path: path.join(w.shared, 'docker'),
      root: w.shared,
    };
    const declinedRoots = projectDeclinedRoots(io, ctx);
    expect(resolveHostTool('docker', { declinedRoots, env: io.env })).toEqual(declined);
    const storeRoots = treeRoots(storeWritableTrees(w.store));
    expect(resolveHostTool('docker', { declinedRoots: storeRoots, env: io.env })).toEqual(declined);
  });

  it('the record is the store’s, never the project’s: develop writes it at the store root', async () => {
    const w = world();
    w.config(w.a, SHARED_RW);
    await developIn(w, w.a);
    const record = readFileSync(storePaths(w.store).launchedTrees, 'utf8');
    expect(record).toContain(JSON.stringify(w.shared));
    expect(record).toContain(JSON.stringify(w.a));
  });
});
