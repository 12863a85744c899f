// Containment on real engines (issue 11's proof): a box cannot steer its
// next launch with a forged `.git`, nor with a whole forged worktree
// structure (adr/0047); byre's store is never mounted (develop refuses before
// creating anything), an interrupted rebuild leaves nothing behind, and mount
// points inside /workspace belong to the user. Boxes are shared between cases
// where a case does not need its own.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectIdFor } from '../../src/project/identity.js';
import { FORGE_WORKTREE } from '../support/forge.js';
import { flavorsUnderTest } from './engines.js';
import {
  engineCli,
  makeOwnedDir,
  runByre,
  testScope,
  waitFor,
  type ByreRun,
  type TestProject,
} from './harness.js';

const flavors = flavorsUnderTest();
const rootFlavors = flavors.filter((f) => f.user === null);
const userFlavors = flavors.filter((f) => f.user !== null);
/** docker, podman and rootless podman: docker as a user adds nothing to what a box can plant. */
const plantFlavors = flavors.filter((f) => f.user === null || f.engine === 'podman');
const scope = testScope();

function ok(r: ByreRun): ByreRun {
  if (r.status !== 0) throw new Error(`byre exited ${r.status}\n${r.stderr}`);
  return r;
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** Every container (podman's build containers too), image (intermediate too) and volume on the flavor. */
function everything(project: TestProject): string[] {
  const cli = (args: string[]) => lines(engineCli(project, args));
  const external = project.flavor.engine === 'podman' ? ['--external'] : [];
  return [
    ...cli(['ps', '-a', '-q', '--no-trunc', ...external]).map((c) => `container ${c}`),
    ...cli(['images', '-a', '-q', '--no-trunc']).map((i) => `image ${i}`),
    ...cli(['volume', 'ls', '-q']).map((v) => `volume ${v}`),
  ].sort();
}

/** Objects carrying a project id in a label or name. */
function objectsOf(project: TestProject, id: string): string[] {
  return lines(
    [
      engineCli(project, ['ps', '-a', '--format', '{{.Names}} {{.Labels}}']),
      engineCli(project, ['images', '--format', '{{.Repository}}']),
      engineCli(project, ['volume', 'ls', '-q']),
    ].join('\n'),
  ).filter((l) => l.includes(id));
}

function ids(user: string): { uid: number; gid: number } {
  const f = execFileSync('getent', ['passwd', user], { encoding: 'utf8' }).split(':');
  return { uid: Number(f[2]), gid: Number(f[3]) };
}

/** A real repository with a linked worktree, owned by the project's flavor. */
function otherRepository(project: TestProject): { repo: string; gitdir: string } {
  // Root's: byre only reads it, and git refuses a repository another user owns.
  const repo = path.join(project.root, 'other');
  mkdirSync(repo);
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], {
      stdio: 'ignore',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: project.root },
    });
  git('init', '-q');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'x');
  git('worktree', 'add', '-q', '--no-checkout', path.join(project.root, 'other-wt'));
  return { repo, gitdir: path.join(repo, '.git', 'worktrees', 'other-wt') };
}

describe.skipIf(userFlavors.length === 0).each(userFlavors)('containment on $label', (flavor) => {
  it('mount points in /workspace are the user’s; a forged .git is refused at the next develop', () => {
    const project = scope.project(flavor);
    project.writeConfig(
      [
        'template = "none"',
        'agent = "none"',
        '[[volumes]]',
        'name = "deps"',
        'role = "cache"',
        'target = "/workspace/node_modules"',
        '',
      ].join('\n'),
    );
    const other = otherRepository(project);
    const otherId = projectIdFor(other.repo);
    // The box writes a pointer naming the other repository's worktree, then exits.
    const first = runByre(project, ['develop'], {
      input: `printf 'gitdir: %s\\n' '${other.gitdir}' > /workspace/.git; exit 0\n`,
    });
    ok(first);
    const owner = statSync(path.join(project.dir, 'node_modules'));
    expect({ uid: owner.uid, gid: owner.gid }).toEqual(ids(flavor.user ?? ''));
    expect(readdirSync(path.join(project.dir))).toEqual(['.git', 'node_modules']);

    const second = runByre(project, ['develop'], { input: 'exit 0\n' });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain("names another repository's worktree");
    expect(existsSync(path.join(project.home, 'projects', otherId))).toBe(false);
    expect(objectsOf(project, otherId)).toEqual([]);

    // The project's own repository back, the box builds a whole structure
    // around it instead (adr/0047): every pointer agrees, the whole is refused.
    rmSync(path.join(project.dir, '.git'));
    makeOwnedDir(project, path.join(project.dir, '.git'));
    const forgedId = projectIdFor(path.join(project.dir, 'sub'));
    const forging = ok(
      runByre(project, ['develop'], { input: `${FORGE_WORKTREE} && echo FORGED\nexit 0\n` }),
    );
    expect(forging.stdout).toBe('FORGED\n');
    const third = runByre(project, ['develop'], { input: 'echo AGENT_RAN\n' });
    expect(third.stdout).toBe('');
    expect(third.status).toBe(3);
    expect(third.stderr).toContain(
      `${path.join(project.dir, 'sub/.git')} lies inside the worktree itself`,
    );
    expect(readdirSync(path.join(project.home, 'projects'))).toEqual([project.id]);
    expect(objectsOf(project, forgedId)).toEqual([]);
  });
});

describe.skipIf(rootFlavors.length === 0).each(rootFlavors)('containment on $label', (flavor) => {
  it('develop in a directory holding the store refuses before creating anything', () => {
    const project = scope.project(flavor);
    const store = path.join(project.dir, 'store');
    const before = everything(project);
    const r = runByre(project, ['develop'], { input: 'exit 0\n', env: { BYRE_HOME: store } });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain("contains byre's store");
    expect(existsSync(store)).toBe(false);
    expect(readdirSync(project.dir)).toEqual([]);
    expect(everything(project)).toEqual(before);
  });

  it('bakes Claude Skills; an interrupted rebuild leaves nothing; forget removes superseded images', async () => {
    const project = scope.project(flavor);
    const skill = path.join(project.root, 'cs', 'tdd');
    mkdirSync(skill, { recursive: true });
    writeFileSync(path.join(skill, 'SKILL.md'), '---\nname: tdd\ndescription: tests first\n---\n');
    // Top-level keys first: everything after [[claude_skills]] belongs to that table.
    const config = (post: string) =>
      `template = "none"\nagent = "none"\n${post}\n[[claude_skills]]\nname = "tdd"\npath = "${skill}"\n`;
    project.writeConfig(config(''));
    const first = ok(
      runByre(project, ['develop'], {
        input: 'cat /etc/byre/claude-skills/.claude/skills/tdd/SKILL.md; exit 0\n',
      }),
    );
    expect(first.stdout).toContain('name: tdd');

    // A rebuild interrupted in a long step, after it committed some of its own.
    project.writeConfig(config('dockerfile_post = ["RUN echo partial > /p", "RUN sleep 600"]'));
    const before = everything(project);
    const rebuild = scope.start(project, ['rebuild']);
    await waitFor(
      'the long build step',
      // byre's progress line names the step the engine is on.
      () => (/step \d+\/\d+: RUN sleep 600/.test(rebuild.stderr()) ? true : null),
      300_000,
    );
    rebuild.child.kill('SIGINT');
    // 130, as a shell reports a command Ctrl-C ended.
    expect(await rebuild.exited).toBe(130);
    expect(rebuild.stderr()).toContain('the build was interrupted (SIGINT)');
    expect(rebuild.stderr()).not.toContain('could not remove');
    expect(everything(project)).toEqual(before);

    // A second build supersedes the first image; forget removes both.
    project.writeConfig(config('dockerfile_post = ["RUN echo changed > /c"]'));
    ok(runByre(project, ['develop'], { input: 'exit 0\n' }));
    const labelled = lines(
      engineCli(project, ['images', '-a', '-q', '--filter', `label=byre.project=${project.id}`]),
    );
    expect(new Set(labelled).size).toBeGreaterThanOrEqual(2);
    ok(runByre(project, ['forget', '-y']));
    expect(
      lines(
        engineCli(project, ['images', '-a', '-q', '--filter', `label=byre.project=${project.id}`]),
      ),
    ).toEqual([]);
    expect(objectsOf(project, project.id)).toEqual([]);
  });
});

describe.skipIf(plantFlavors.length === 0).each(plantFlavors)(
  'what a box plants never steers byre on $label (adr/0046)',
  (flavor) => {
    it('a granted path redirected by a planted link is refused; a planted docker on PATH is never run', () => {
      const project = scope.project(flavor);
      const secret = makeOwnedDir(project, path.join(project.root, 'secret'));
      writeFileSync(path.join(secret, 'id_ed25519'), 'host key\n');
      const tools = makeOwnedDir(project, path.join(project.root, 'tools'));
      makeOwnedDir(project, path.join(project.dir, 'data'));
      makeOwnedDir(project, path.join(project.dir, 'seed'));
      project.writeConfig(
        [
          'template = "none"',
          'agent = "none"',
          '[[mounts]]',
          `host = "${path.join(project.dir, 'data')}"`,
          'target = "/data"',
          'mode = "rw"',
          '[[mounts]]',
          `host = "${tools}"`,
          'target = "/tools"',
          'mode = "rw"',
          '[[volumes]]',
          'name = "cfg"',
          'role = "state"',
          'target = "/cfg"',
          `seed = { host = "${path.join(project.dir, 'seed')}" }`,
          '',
        ].join('\n'),
      );
      const ran = path.join(project.root, 'ran');
      // The box swaps both granted directories for links to the user's keys and
      // leaves a docker and a podman in the read-write mount the user keeps on PATH.
      const fake = `#!/bin/sh\necho "$0 $*" >> ${ran}\nexit 1\n`;
      ok(
        runByre(project, ['develop'], {
          input: [
            `rm -r /workspace/data /workspace/seed`,
            `ln -s ${secret} /workspace/data`,
            `ln -s ${secret} /workspace/seed`,
            `printf '%s' '${fake}' > /tools/docker`,
            `cp /tools/docker /tools/podman`,
            `chmod +x /tools/docker /tools/podman`,
            'exit 0',
            '',
          ].join('\n'),
        }),
      );
      const before = everything(project);
      const env = { PATH: `${tools}:${process.env['PATH'] ?? '/usr/bin:/bin'}` };

      const status = runByre(project, ['status'], { env });
      expect(status.status).toBe(3);
      expect(status.stdout).toContain('[containment.link-in-box-tree]');
      expect(status.stderr).toContain(
        `the mount ${path.join(project.dir, 'data')} -> /data (rw) reaches its host path through the link ${path.join(project.dir, 'data')} -> "${secret}"`,
      );
      expect(status.stderr).toMatch(/also: .*\(key volumes\[0\]\.seed\.host\): the seed /);

      for (const verb of ['develop', 'dockerrun', 'dockerfile']) {
        const r = runByre(project, [verb], { input: 'cat /data/id_ed25519; exit 0\n', env });
        expect(r.status, verb).toBe(3);
        expect(r.stdout, verb).not.toContain('host key');
        expect(r.stderr, verb).toContain('where a box can write');
      }

      // With the links gone, the planted tools are still never run: declined by name.
      rmSync(path.join(project.dir, 'data'));
      rmSync(path.join(project.dir, 'seed'));
      makeOwnedDir(project, path.join(project.dir, 'data'));
      makeOwnedDir(project, path.join(project.dir, 'seed'));
      const develop = runByre(project, ['develop'], { input: 'exit 0\n', env });
      expect(develop.status).toBe(3);
      expect(develop.stderr).toMatch(
        new RegExp(
          `declined to run ${flavor.engine}: PATH resolves it through ${tools}/${flavor.engine}`,
        ),
      );
      const page = runByre(project, ['status'], { env });
      expect(page.stdout).toMatch(/declined to run (docker|podman)/);
      expect(existsSync(ran)).toBe(false);
      expect(everything(project)).toEqual(before);
    });
  },
);
