// A change of identity never loosens the box (adr/0047): the question before
// a fresh config, over a real temp store and the bundled catalog.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import type { ByreError } from '../errors.js';
import { resolveProjectContext, type ProjectContext } from '../project/context.js';
import { projectIdFor } from '../project/identity.js';
import { guardFreshConfig } from './fresh-config.js';

let root: string;
let home: string;
let dir: string;
useTempDir('fresh-config', (tmp) => {
  root = tmp;
  home = path.join(tmp, 'home');
  dir = path.join(tmp, 'w');
  mkdirSync(dir);
});

/** `dir` was launched as a linked worktree of project `old` before worktree records existed. */
function launchedUnder(old: string, config: string | null): string {
  const id = projectIdFor(path.join(root, old));
  const store = path.join(home, 'projects', id);
  mkdirSync(store, { recursive: true });
  writeFileSync(path.join(store, 'path'), `${path.join(root, old)}\n`);
  writeFileSync(path.join(store, `engine.${projectIdFor(dir)}`), 'docker\n');
  if (config !== null) writeFileSync(path.join(store, 'byre.config'), config);
  return id;
}

async function context(): Promise<ProjectContext> {
  return resolveProjectContext(dir, { BYRE_HOME: home });
}

function asked(answer: boolean): { questions: string[]; confirm: (q: string) => Promise<boolean> } {
  const questions: string[] = [];
  return {
    questions,
    confirm: async (q) => {
      questions.push(q);
      return answer;
    },
  };
}

describe('guardFreshConfig', () => {
  it('without a terminal, refuses to drop a firewall and closures, naming them and the copy', async () => {
    const old = launchedUnder('m', 'skills = ["firewall"]\negress = ["!x.example"]\n');
    const ctx = await context();
    const err = (await guardFreshConfig(ctx, root, null).catch((e: unknown) => e)) as ByreError;
    expect(err).toMatchObject({ rule: 'project.fresh-config-unconfirmed', exitCode: 3 });
    expect(err.message).toContain(`${dir} was launched as project ${old}`);
    expect(err.message).toContain(
      'network deny-by-default (byre/firewall); egress closure !x.example',
    );
    expect(err.remedy).toContain(
      `cp ${path.join(home, 'projects', old, 'byre.config')} ${ctx.project.config}`,
    );
  });

  it('on a terminal, a yes lets it through and a no refuses', async () => {
    launchedUnder('m', 'skills = ["firewall-open"]\n');
    const ctx = await context();
    const yes = asked(true);
    await guardFreshConfig(ctx, root, yes.confirm);
    expect(yes.questions).toHaveLength(1);
    expect(yes.questions[0]).toContain('network open-denylist (byre/firewall-open)');
    expect(yes.questions[0]).toMatch(/Write it anyway\?$/);
    const no = asked(false);
    await expect(guardFreshConfig(ctx, root, no.confirm)).rejects.toMatchObject({
      rule: 'project.fresh-config-declined',
      exitCode: 3,
    });
  });

  it('a removal marker is a restriction too', async () => {
    launchedUnder('m', '[[ports]]\ncontainer = 3000\nremove = true\n');
    const err = (await guardFreshConfig(await context(), root, null).catch(
      (e: unknown) => e,
    )) as ByreError;
    expect(err.message).toContain('ports 3000 removed');
  });

  it('an old config that does not load counts as restricting', async () => {
    launchedUnder('m', 'skills = ["no-such-skill"]\n');
    await expect(guardFreshConfig(await context(), root, null)).rejects.toMatchObject({
      rule: 'project.fresh-config-unconfirmed',
    });
  });

  it.each([
    ['the old identity restricted nothing', 'agent = "none"\n', null],
    ['the old identity has no config of its own', null, null],
    ['the defaults restrict the same', 'skills = ["firewall"]\n', 'skills = ["firewall"]\n'],
  ])('asks nothing when %s', async (_what, old, defaults) => {
    launchedUnder('m', old);
    if (defaults !== null) writeFileSync(path.join(home, 'default.config'), defaults);
    const q = asked(false);
    await guardFreshConfig(await context(), root, q.confirm);
    expect(q.questions).toEqual([]);
  });

  it('asks nothing when this identity has its config already', async () => {
    launchedUnder('m', 'skills = ["firewall"]\n');
    const ctx = await context();
    mkdirSync(ctx.project.dir, { recursive: true });
    writeFileSync(ctx.project.config, 'agent = "none"\n');
    await guardFreshConfig(ctx, root, null);
  });
});
