// A directory whose project id the store records for another directory:
// `byre shell`, `byre deliver` and `byre grab` from it all refuse with exit 3
// (adr/0023) instead of reaching the other directory's box.

import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import { fakeIo } from '../../test/support/io.js';
import { makeTempDir, removeTempDir } from '../../test/support/temp.js';
import { deliverCommand } from '../commands/deliver.js';
import { grabCommand } from '../commands/grab.js';
import { shellCommand } from '../commands/shell.js';
import type { CommandDeps } from '../commands/deps.js';
import { ByreError } from '../errors.js';
import { projectIdFor } from '../project/identity.js';
import { recordProjectPath } from '../project/store.js';
import { pickTarget } from './select.js';

const root = makeTempDir('select');
afterAll(() => removeTempDir(root));

/** A project directory with a box running under its id, and a store that may name another owner. */
async function world(
  name: string,
  owner: 'here' | 'elsewhere' | 'nobody',
): Promise<{ engine: FakeEngine; deps: CommandDeps; io: ReturnType<typeof fakeIo> }> {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'note.txt'), 'hi\n');
  const canonical = realpathSync(dir);
  const id = projectIdFor(canonical);
  const home = path.join(root, `${name}-home`);
  if (owner !== 'nobody')
    await recordProjectPath(home, id, owner === 'here' ? canonical : path.join(root, 'other'));
  const engine = new FakeEngine();
  engine.addContainer({
    name: `byre-${id}`,
    labels: { 'byre.project': id, 'byre.workdir': id, 'byre.uid': '1000', 'byre.gid': '1000' },
    env: { BYRE_UID: '1000', BYRE_GID: '1000' },
  });
  const deps: CommandDeps = { pool: { members: [{ name: 'docker', state: 'ok', engine }] } };
  return { engine, deps, io: fakeIo({ cwd: canonical, env: { BYRE_HOME: home } }) };
}

const verbs = {
  shell: (w: Awaited<ReturnType<typeof world>>) => shellCommand(w.io, {}, w.deps),
  deliver: (w: Awaited<ReturnType<typeof world>>) =>
    deliverCommand(w.io, [path.join(w.io.cwd, 'note.txt')], { clip: false }, w.deps),
  grab: (w: Awaited<ReturnType<typeof world>>) =>
    grabCommand(w.io, '/workspace/x', path.join(w.io.cwd, 'got'), {}, w.deps),
} as const;

describe('an id another directory owns: shell, deliver and grab refuse alike', () => {
  it.each(Object.keys(verbs) as (keyof typeof verbs)[])(
    '%s refuses with project.id-collision (exit 3) and never touches the box',
    async (verb) => {
      const w = await world(`${verb}-taken`, 'elsewhere');
      await expect(verbs[verb](w)).rejects.toMatchObject({
        rule: 'project.id-collision',
        exitCode: 3,
        message: expect.stringContaining(path.join(root, 'other')),
      });
      const touched = w.engine.calls.filter((c) =>
        ['exec', 'execAttached', 'execStream', 'inspectEnv'].some((m) => c.method.startsWith(m)),
      );
      expect(touched).toEqual([]);
    },
  );

  it.each([['here'], ['nobody']] as const)(
    'deliver and grab pass the id check when the store says %s owns it',
    async (owner) => {
      for (const verb of ['deliver', 'grab'] as const) {
        const w = await world(`${verb}-${owner}`, owner);
        // The fake box cannot run the transfer script; reaching it is the point.
        const failure = await verbs[verb](w).then(
          () => null,
          (e: unknown) => e,
        );
        expect(failure).not.toMatchObject({ rule: 'project.id-collision' });
        expect(w.engine.calls.some((c) => c.method.startsWith('exec'))).toBe(true);
      }
    },
  );

  it('--box names the box explicitly: deliver does not consult the store', async () => {
    const w = await world('deliver-flag', 'elsewhere');
    const box = [...w.engine.containers.values()][0];
    const failure = await deliverCommand(
      w.io,
      [path.join(w.io.cwd, 'note.txt')],
      { clip: false, box: box?.id.slice(0, 12) ?? '' },
      w.deps,
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).not.toMatchObject({ rule: 'project.id-collision' });
    expect(w.engine.calls.some((c) => c.method.startsWith('exec'))).toBe(true);
  });
});

describe('boxes of another uid: named only where they change the choice', () => {
  const HIDDEN = 'box of another uid hidden';
  const foreignBox = (engine: FakeEngine): void =>
    void engine.addContainer({
      name: 'byre-theirs',
      labels: {
        'byre.project': 'theirs-999999',
        'byre.workdir': 'theirs-999999',
        'byre.uid': '1001',
        'byre.gid': '1001',
      },
      env: {},
    });

  it.each(['deliver', 'grab'] as const)(
    '%s into this directory’s own box says nothing of them',
    async (verb) => {
      const w = await world(`${verb}-mine`, 'here');
      foreignBox(w.engine);
      await verbs[verb](w).catch(() => undefined);
      expect(w.engine.calls.some((c) => c.method.startsWith('exec'))).toBe(true);
      expect(w.io.err).not.toContain(HIDDEN);
    },
  );

  it.each(['deliver', 'grab'] as const)(
    '%s with no box of its own is told one was hidden',
    async (verb) => {
      const w = await world(`${verb}-none`, 'here');
      for (const id of [...w.engine.containers.keys()]) w.engine.containers.delete(id);
      foreignBox(w.engine);
      await expect(verbs[verb](w)).rejects.toMatchObject({ rule: 'transfer.no-box' });
      expect(w.io.err).toContain(`byre: 1 ${HIDDEN} (--skip-uid-check shows them)`);
    },
  );
});

describe('pickTarget: the box of cwd or its nearest ancestor', () => {
  /** The box pickTarget takes from `cwd` among boxes of these directories' ids; its directory, or the refusal's rule. */
  async function picked(cwd: string, dirs: string[]): Promise<string> {
    const boxes = dirs.map((d, i) => ({
      id: `${i}`.repeat(12),
      engine: 'docker' as const,
      projectId: projectIdFor(d),
      workdirId: projectIdFor(d),
      foreign: false,
    }));
    const other = { ...boxes[0]!, id: 'f'.repeat(12), workdirId: 'other-123456' };
    const chosen = await pickTarget(
      fakeIo({ cwd }),
      { boxes: [...boxes, other], partial: false },
      { stdinBusy: false, interactive: false },
    ).catch((e: unknown) => e);
    if (chosen instanceof ByreError) return chosen.rule;
    return dirs[boxes.findIndex((b) => b.id === (chosen as { id: string }).id)] ?? 'other';
  }

  it('takes cwd first, then each parent, nearest first', async () => {
    const dir = path.join(root, 'near', 'a', 'b');
    mkdirSync(dir, { recursive: true });
    const a = realpathSync(path.dirname(dir));
    const b = realpathSync(dir);
    expect(await picked(dir, [a, b])).toBe(b);
    expect(await picked(dir, [path.dirname(a), a])).toBe(a);
  });

  it('by the canonical path: through a link, and from a directory not made yet', async () => {
    const dir = path.join(root, 'canon', 'a');
    mkdirSync(dir, { recursive: true });
    symlinkSync(path.join(root, 'canon'), path.join(root, 'canon-link'));
    const a = realpathSync(dir);
    expect(await picked(path.join(root, 'canon-link', 'a'), [a])).toBe(a);
    expect(await picked(path.join(a, 'not-yet'), [a])).toBe(a);
  });

  it('never by the root directory’s id', async () => {
    const dir = path.join(root, 'rootless', 'a');
    mkdirSync(dir, { recursive: true });
    expect(await picked(dir, ['/'])).toBe('transfer.ambiguous');
  });
});
