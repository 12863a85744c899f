import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { fakeSkill } from '../../test/support/config.js';
import { putFile, useTempDir } from '../../test/support/temp.js';

import { loadCascade } from '../config/read.js';
import { projectIdFor } from '../project/identity.js';
import { walkHostPath } from '../project/host-path-view.js';
import { projectStorePaths, storePaths } from '../project/store-layout.js';
import type { ResolvedSkill } from '../skills/types.js';
import { LINK_RULE, grantedHostPaths, linkRefusal, plantedLinkFindings } from './granted-paths.js';
import { boxWritableTrees, grantsOf } from './writable-trees.js';

const tmp = useTempDir('granted-paths');

const CONFIG = `[[mounts]]
host = "~/p/data"
target = "/data"
mode = "rw"

[[mounts]]
host = "~/ref"
target = "/ref"

[[mounts]]
host = "~/off"
target = "/off"
disabled = true

[[volumes]]
name = "cfg"
role = "state"
target = "/cfg"
seed = { host = "~/p/seed" }

[[claude_skills]]
name = "tidy"
path = "~/skills/tidy"

[[context]]
name = "rules"
file = "~/notes/rules.md"
`;

/** The store, the user's home and a project at ~/p, with CONFIG as its config. */
function setUp(text = CONFIG): {
  home: string;
  project: string;
  read: ReturnType<typeof loadCascade>;
  id: string;
  store: string;
} {
  const home = path.join(tmp.path, 'home');
  const project = path.join(home, 'p');
  mkdirSync(project, { recursive: true });
  const store = path.join(tmp.path, 'store');
  const id = projectIdFor(project);
  const file = projectStorePaths(store, id).config;
  putFile(path.dirname(file), path.basename(file), text);
  putFile(path.dirname(file), 'path', `${project}\n`);
  const read = loadCascade({ home: store, projectId: id, bundledTemplate: () => null });
  return { home, project, read, id, store };
}

function trees(
  s: ReturnType<typeof setUp>,
  skills: readonly ResolvedSkill[] = [],
): ReturnType<typeof boxWritableTrees> {
  return boxWritableTrees(
    {
      projectId: s.id,
      worktreeDir: s.project,
      projectRoot: s.project,
      commonGitDir: null,
      isLinkedWorktree: false,
      store: storePaths(s.store),
    },
    grantsOf(s.read.config, skills),
    s.home,
  );
}

describe('grantedHostPaths', () => {
  it('names every enabled host path the config and its skills grant, located at its declaration', () => {
    const s = setUp();
    const file = projectStorePaths(s.store, s.id).config;
    const skill = fakeSkill('byre/thing', 'bundled', {
      runtime: {
        ...fakeSkill('x', 'bundled').runtime,
        mounts: [{ host: '/var/run/x.sock', target: '/x.sock', mode: 'rw', disabled: false }],
      },
      volumes: [
        {
          name: 'v',
          role: 'state',
          target: '/v',
          scope: 'project',
          sharing: 'shared',
          seed: { host: '~/s' },
        },
      ],
      agent: {
        command: 'x',
        state: null,
        context: 'none',
        mcp: 'none',
        claudeSkills: 'none',
        prefs: { from: '~/.thing', files: ['a'] },
      } as unknown as ResolvedSkill['agent'],
    });
    const got = grantedHostPaths(s.read.config, [skill], s.home, s.read.locate);
    const h = (rel: string): string => path.join(s.home, rel);
    expect(got.map((g) => [g.host, g.label, g.location])).toEqual([
      [
        h('p/data'),
        'the mount ~/p/data -> /data (rw)',
        { file, line: 2, column: 1, key: 'mounts[0].host' },
      ],
      [
        h('ref'),
        'the mount ~/ref -> /ref (ro)',
        { file, line: 7, column: 1, key: 'mounts[1].host' },
      ],
      [
        h('p/seed'),
        'the seed ~/p/seed of volume cfg',
        { file, line: 19, column: 10, key: 'volumes[0].seed.host' },
      ],
      [
        h('skills/tidy'),
        'the Claude Skill tidy (~/skills/tidy)',
        { file, line: 23, column: 1, key: 'claude_skills[0].path' },
      ],
      [
        h('notes/rules.md'),
        'the context file ~/notes/rules.md (rules)',
        { file, line: 27, column: 1, key: 'context[0].file' },
      ],
      [
        '/var/run/x.sock',
        "byre/thing's mount /var/run/x.sock -> /x.sock (rw)",
        { file: 'skill byre/thing', key: 'runtime.mounts' },
      ],
      [h('s'), "byre/thing's seed ~/s of volume v", { file: 'skill byre/thing', key: 'volumes' }],
    ]);
  });

  it("adds an agent's prefs directory only when seed_prefs is on", () => {
    const s = setUp('seed_prefs = true\n');
    const skill = fakeSkill('local-agent', 'local', {
      agent: { prefs: { from: '~/.agent', files: ['a'] } } as unknown as ResolvedSkill['agent'],
      meta: {
        companionFor: null,
        sharedAuthFor: null,
        envDocs: {},
        digest: null,
        dir: '/store/skills/local-agent',
      },
    });
    expect(grantedHostPaths(s.read.config, [skill], s.home, s.read.locate)).toEqual([
      {
        declared: '~/.agent',
        host: path.join(s.home, '.agent'),
        label: "local-agent's prefs directory ~/.agent",
        location: { file: '/store/skills/local-agent/skill.toml', key: 'agent.prefs.from' },
      },
    ]);
  });
});

describe('plantedLinkFindings and linkRefusal', () => {
  it('refuses a mount host a box replaced with a link (exit 3, located, naming link and target)', () => {
    const s = setUp();
    mkdirSync(path.join(s.home, '.ssh'));
    symlinkSync(path.join(s.home, '.ssh'), path.join(s.project, 'data'));
    const granted = grantedHostPaths(s.read.config, [], s.home, s.read.locate);
    const findings = plantedLinkFindings(granted, walkHostPath, trees(s));
    expect(findings.map((f) => [f.granted.label, f.planted.link.at, f.resolved])).toEqual([
      ['the mount ~/p/data -> /data (rw)', path.join(s.project, 'data'), path.join(s.home, '.ssh')],
    ]);
    const err = linkRefusal(findings);
    expect(err.exitCode).toBe(3);
    expect(err.rule).toBe(LINK_RULE);
    expect(err.location).toMatchObject({ line: 2, key: 'mounts[0].host' });
    expect(err.message).toContain(
      `${path.join(s.project, 'data')} -> "${path.join(s.home, '.ssh')}"`,
    );
    expect(err.message).toContain(`the project directory ${s.project}`);
    expect(err.remedy).toContain(path.join(s.home, '.ssh'));
  });

  it('refuses a seed host, a link under a read-write mount, and lists each after the first', () => {
    const s = setUp(`${CONFIG}
[[mounts]]
host = "~/shared"
target = "/shared"
mode = "rw"

[[mounts]]
host = "~/shared/inner/x"
target = "/x"
`);
    mkdirSync(path.join(s.home, 'secret'));
    mkdirSync(path.join(s.home, 'shared', 'inner'), { recursive: true });
    symlinkSync(path.join(s.home, 'secret'), path.join(s.project, 'seed'));
    symlinkSync(path.join(s.home, 'secret'), path.join(s.home, 'shared', 'inner', 'x'));
    const granted = grantedHostPaths(s.read.config, [], s.home, s.read.locate);
    const findings = plantedLinkFindings(granted, walkHostPath, trees(s));
    expect(findings.map((f) => [f.granted.label, f.planted.tree.what])).toEqual([
      ['the mount ~/shared/inner/x -> /x (ro)', 'the read-write mount ~/shared -> /shared'],
      ['the seed ~/p/seed of volume cfg', `the project directory ${s.project}`],
    ]);
    const err = linkRefusal(findings);
    expect(err.details).toHaveLength(2);
    expect(err.details[0]).toMatch(
      /^also: .*byre\.config:19:10 \(key volumes\[0\]\.seed\.host\): the seed/,
    );
  });

  it("follows a user's links outside every tree, and a tree reached through one", () => {
    const s = setUp(`[[mounts]]
host = "~/data"
target = "/data"
mode = "rw"

[[mounts]]
host = "~/lp/sub"
target = "/sub"
`);
    mkdirSync(path.join(tmp.path, 'disk', 'data'), { recursive: true });
    symlinkSync(path.join(tmp.path, 'disk', 'data'), path.join(s.home, 'data'));
    mkdirSync(path.join(s.project, 'sub'));
    symlinkSync(s.project, path.join(s.home, 'lp'));
    const granted = grantedHostPaths(s.read.config, [], s.home, s.read.locate);
    expect(plantedLinkFindings(granted, walkHostPath, trees(s))).toEqual([]);
  });

  it('refuses a link planted in another project of the store', () => {
    const s = setUp(`[[mounts]]
host = "~/q/data"
target = "/data"
`);
    const q = path.join(s.home, 'q');
    mkdirSync(q);
    putFile(projectStorePaths(s.store, projectIdFor(q)).dir, 'path', `${q}\n`);
    symlinkSync(path.join(s.home, '.ssh'), path.join(q, 'data'));
    const granted = grantedHostPaths(s.read.config, [], s.home, s.read.locate);
    const [f] = plantedLinkFindings(granted, walkHostPath, trees(s));
    expect(f?.planted.tree.what).toBe(`the project directory ${q} (a project of this store)`);
  });

  it('a link inside the project pointing within it is refused too: byre cannot tell who made it', () => {
    const s = setUp(`[[context]]
name = "agents"
file = "~/p/CLAUDE.md"
`);
    putFile(s.project, 'AGENTS.md', 'x');
    symlinkSync('AGENTS.md', path.join(s.project, 'CLAUDE.md'));
    const granted = grantedHostPaths(s.read.config, [], s.home, s.read.locate);
    const [f] = plantedLinkFindings(granted, walkHostPath, trees(s));
    expect(f?.planted.link).toEqual({ at: path.join(s.project, 'CLAUDE.md'), target: 'AGENTS.md' });
  });
});
