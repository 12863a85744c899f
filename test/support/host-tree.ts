// The fake engine's virtual host made from a test's own temp tree, for tests
// whose command pins or reads back on the real host what a helper binds:
// loadHostTree copies a real directory into a FakeBoxFs with each object's
// device, inode and group (so a bind byre pinned proves as that object), and
// mirrorHostTree reloads it before each helper `run` and writes what the
// helper changed under it back to disk. The fake engine itself never touches
// disk; this touches only the directory a test names.

import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

import type { FakeBoxFs, FakeNode } from './fake-box.js';
import type { FakeEngine } from './fake-engine.js';

/** Replaces what `fs` holds at `root` with the real tree there (FIFOs and devices left out). */
export function loadHostTree(fs: FakeBoxFs, root: string): void {
  for (const at of fs.tree(root).reverse()) fs.nodes.delete(at);
  fs.mkdirp(path.dirname(root));
  const walk = (p: string): void => {
    let st;
    try {
      st = lstatSync(p, { bigint: true });
    } catch {
      return;
    }
    const facts = { dev: st.dev, ino: st.ino, gid: Number(st.gid) };
    if (st.isDirectory()) {
      fs.nodes.set(p, { kind: 'dir', ...facts });
      for (const name of readdirSync(p)) walk(path.join(p, name));
    } else if (st.isSymbolicLink())
      fs.nodes.set(p, { kind: 'link', target: readlinkSync(p), ...facts });
    else if (st.isSocket()) fs.nodes.set(p, { kind: 'socket', ...facts });
    else if (st.isFile()) fs.nodes.set(p, { kind: 'file', bytes: readFileSync(p), ...facts });
  };
  walk(root);
}

/** Writes to disk what changed under `root` since `before`: gone paths removed, new or replaced ones written. */
function writeBack(fs: FakeBoxFs, root: string, before: ReadonlyMap<string, FakeNode>): void {
  const after = new Map(fs.tree(root).map((p): [string, FakeNode | undefined] => [p, fs.lstat(p)]));
  for (const [p, node] of [...before].reverse()) {
    const now = after.get(p);
    if (now === undefined || now.kind !== node.kind) rmSync(p, { recursive: true, force: true });
  }
  for (const [p, node] of after) {
    if (node === undefined || before.get(p) === node) continue;
    if (node.kind === 'dir') mkdirSync(p, { recursive: true });
    else if (node.kind === 'file') writeFileSync(p, node.bytes);
    else if (node.kind === 'link') {
      rmSync(p, { force: true });
      symlinkSync(node.target, p);
    }
  }
}

/**
 * Keeps `engine.host` the real tree under `root` across each helper `run`:
 * loaded just before, and what the helper wrote through its binds under
 * `root` written back just after, so the command reads it as it would after
 * a real engine's helper.
 */
export function mirrorHostTree(engine: FakeEngine, root: string): void {
  const run = engine.run.bind(engine);
  engine.run = async (argv, options) => {
    loadHostTree(engine.host, root);
    const before = new Map(
      engine.host.tree(root).flatMap((p): [string, FakeNode][] => {
        const node = engine.host.lstat(p);
        return node === undefined ? [] : [[p, node]];
      }),
    );
    try {
      return await run(argv, options);
    } finally {
      writeBack(engine.host, root, before);
    }
  };
}
