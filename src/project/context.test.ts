// resolveProjectContext's identity rules (adr/0047): a directory byre
// launched before keeps the identity its records say, and a worktree
// structure a box could have built is refused, for every verb.

import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { FORGE_WORKTREE } from '../../test/support/forge.js';
import { putFile, useTempDir } from '../../test/support/temp.js';

import type { ByreError } from '../errors.js';
import { resolveProjectContext } from './context.js';
import { projectIdFor } from './identity.js';
import { recordIdentity, recordedIdentities } from './identity-record.js';
import { worktreeRecordPath } from './store-layout.js';

let root: string;
let home: string;

useTempDir('context', (tmp) => {
  root = tmp;
  home = path.join(tmp, 'home');
});

const env = (): Record<string, string> => ({ BYRE_HOME: home });

function mk(rel: string): string {
  const p = path.join(root, rel);
  mkdirSync(p, { recursive: true });
  return p;
}

/** A main checkout `main` (a .git dir) and, when `wt` is given, a linked worktree of it in git's shape. */
function repo(main: string, wt?: string): { main: string; wt: string | null } {
  const m = mk(main);
  mkdirSync(path.join(m, '.git'), { recursive: true });
  if (wt === undefined) return { main: m, wt: null };
  const w = mk(wt);
  const name = path.basename(w);
  mkdirSync(path.join(m, '.git/worktrees', name), { recursive: true });
  putFile(root, `${wt}/.git`, `gitdir: ${m}/.git/worktrees/${name}\n`);
  putFile(root, `${main}/.git/worktrees/${name}/commondir`, '../..\n');
  putFile(root, `${main}/.git/worktrees/${name}/gitdir`, `${w}/.git\n`);
  return { main: m, wt: w };
}

/** What develop records when it launches in `dir`. */
async function launched(dir: string): Promise<void> {
  const ctx = await resolveProjectContext(dir, env());
  await recordIdentity(home, ctx);
}

async function refusal(dir: string): Promise<ByreError> {
  return (await resolveProjectContext(dir, env()).then(
    () => {
      throw new Error(`${dir} resolved`);
    },
    (e: unknown) => e,
  )) as ByreError;
}

describe('a directory byre launched before keeps its identity', () => {
  it('a directory never launched resolves as git says, recording nothing', async () => {
    const { wt } = repo('m', 'w');
    const ctx = await resolveProjectContext(wt ?? '', env());
    expect(ctx).toMatchObject({ isLinkedWorktree: true, identityChange: null });
    expect(recordedIdentities(home, wt ?? '')).toEqual([]);
  });

  it('a launched project and a launched worktree resolve again unchanged', async () => {
    const { main, wt } = repo('m', 'w');
    await launched(main);
    await launched(wt ?? '');
    expect(recordedIdentities(home, wt ?? '')).toEqual([
      {
        projectId: projectIdFor(main),
        as: 'worktree',
        file: worktreeRecordPath(home, projectIdFor(wt ?? '')),
      },
    ]);
    await expect(resolveProjectContext(main, env())).resolves.toMatchObject({
      identityChange: null,
    });
    await expect(resolveProjectContext(wt ?? '', env())).resolves.toMatchObject({
      projectId: projectIdFor(main),
      identityChange: null,
    });
  });

  it('a launched project that now reads as a worktree of another repository is refused', async () => {
    const d = mk('d');
    mkdirSync(path.join(d, '.git'));
    await launched(d);
    // The user (or a box with a second writable tree) makes d a worktree of m.
    const { main } = repo('m');
    execFileSync('rm', ['-r', path.join(d, '.git')]);
    mkdirSync(path.join(main, '.git/worktrees/d'), { recursive: true });
    writeFileSync(path.join(d, '.git'), `gitdir: ${main}/.git/worktrees/d\n`);
    writeFileSync(path.join(main, '.git/worktrees/d/commondir'), '../..\n');
    writeFileSync(path.join(main, '.git/worktrees/d/gitdir'), `${d}/.git\n`);
    const err = await refusal(d);
    expect(err).toMatchObject({ rule: 'project.identity-changed', exitCode: 3 });
    expect(err.message).toContain(`was launched as its own project ${projectIdFor(d)}`);
    expect(err.message).toContain(`a linked worktree of ${main} (project ${projectIdFor(main)})`);
    expect(err.remedy).toContain(`byre rehome ${projectIdFor(d)}`);
    // The verbs that show or settle it see the change instead.
    const ctx = await resolveProjectContext(d, env(), { identityChange: 'report' });
    expect(ctx.identityChange?.recorded).toMatchObject({
      projectId: projectIdFor(d),
      as: 'project',
    });
    expect(ctx.projectId).toBe(projectIdFor(main));
  });

  it('a launched worktree that now reads as its own project is refused', async () => {
    const { main, wt } = repo('m', 'w');
    await launched(wt ?? '');
    execFileSync('rm', [path.join(wt ?? '', '.git')]);
    mkdirSync(path.join(wt ?? '', '.git'));
    const err = await refusal(wt ?? '');
    expect(err.rule).toBe('project.identity-changed');
    expect(err.message).toContain(
      `a linked worktree of project ${projectIdFor(main)} (${main}), but git's files now make it its own project ${projectIdFor(wt ?? '')}`,
    );
    expect(err.remedy).toContain(`run \`byre rehome ${projectIdFor(main)}\` here`);
  });

  it('a launched worktree whose main checkout moved names the rehome in the new main checkout', async () => {
    const { main, wt } = repo('m', 'w');
    await launched(main);
    await launched(wt ?? '');
    const moved = path.join(root, 'm2');
    renameSync(main, moved);
    writeFileSync(path.join(wt ?? '', '.git'), `gitdir: ${moved}/.git/worktrees/w\n`);
    const err = await refusal(wt ?? '');
    expect(err.rule).toBe('project.identity-changed');
    expect(err.remedy).toContain(
      `if the main checkout ${main} moved to ${moved}, run \`byre rehome ${projectIdFor(main)}\` in ${moved}`,
    );
  });

  it('an unreadable worktree record is refused, never guessed', async () => {
    const { wt } = repo('m', 'w');
    await launched(wt ?? '');
    writeFileSync(worktreeRecordPath(home, projectIdFor(wt ?? '')), 'garbage');
    const err = await refusal(wt ?? '');
    expect(err.rule).toBe('project.identity-changed');
    expect(err.remedy).toContain(`remove ${worktreeRecordPath(home, projectIdFor(wt ?? ''))}`);
  });
});

describe('a forged worktree structure is refused before any identity is taken', () => {
  it('the issue’s attack on a launched project: worktree.forged, not a new identity', async () => {
    const d = mk('p');
    mkdirSync(path.join(d, '.git'));
    await launched(d);
    execFileSync('sh', ['-c', FORGE_WORKTREE], { cwd: d });
    for (const mode of ['refuse', 'report'] as const) {
      await expect(resolveProjectContext(d, env(), { identityChange: mode })).rejects.toMatchObject(
        { rule: 'worktree.forged', exitCode: 3 },
      );
    }
  });

  it('the page that shows it (status) sees the directory as its launched project, with the refusal', async () => {
    const d = mk('p');
    mkdirSync(path.join(d, '.git'));
    await launched(d);
    execFileSync('sh', ['-c', FORGE_WORKTREE], { cwd: d });
    const ctx = await resolveProjectContext(d, env(), {
      identityChange: 'report',
      forged: 'report',
    });
    expect(ctx).toMatchObject({
      projectId: projectIdFor(d),
      isLinkedWorktree: false,
      identityChange: null,
      forged: { rule: 'worktree.forged' },
    });
  });

  it('a structure inside a directory byre launched in (the box there wrote both halves)', async () => {
    const t = mk('t');
    await launched(t);
    const { wt } = repo('t/b', 't/a');
    await expect(resolveProjectContext(wt ?? '', env())).rejects.toMatchObject({
      rule: 'worktree.forged',
    });
  });

  it('a worktree inside its own launched main checkout is git’s ordinary layout', async () => {
    const { main, wt } = repo('r', 'r/wt');
    await launched(main);
    await expect(resolveProjectContext(wt ?? '', env())).resolves.toMatchObject({
      projectId: projectIdFor(main),
      isLinkedWorktree: true,
    });
  });
});
