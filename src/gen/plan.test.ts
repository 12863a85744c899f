import { describe, expect, it } from 'vitest';
import { expectGolden } from '../../test/support/golden.js';

import type { LayerRef, Sourced } from '../config/types.js';
import { chassisFiles } from './chassis.js';
import { stagedContextPath } from './copy-operand.js';
import { renderDockerfile } from './dockerfile.js';
import { planBuild, type BuildPlan } from './plan.js';
import { fakeConfig, fakeSkill, sourced, text } from '../../test/support/config.js';

const claude = fakeSkill('byre/claude', 'bundled', {
  agent: {
    command: 'claude --dangerously-skip-permissions',
    state: '.claude',
    context: true,
    mcp: true,
    claudeSkills: true,
  },
  context: 'Claude skill snippet.\n',
  volumes: [
    {
      name: '.claude',
      role: 'state',
      target: '/home/dev/.claude',
      scope: 'project',
      sharing: 'shared',
    },
  ],
  mcp: [{ name: 'skill-server', command: ['srv', '--stdio'], env: [], egress: [], headers: {} }],
  build: {
    apt: [],
    node: null,
    dockerfile: [],
    files: [
      {
        staged: 'skills/byre/claude/hook.sh',
        dest: '/etc/byre/firstrun.d/10-claude.sh',
        executable: true,
        content: text('#!/bin/bash\n'),
      },
    ],
  },
});

const notes = fakeSkill('notes', 'local', { context: 'Notes snippet.' });

function entry(plan: BuildPlan, p: string) {
  return plan.entries.find((e) => e.path === p);
}

describe('planBuild', () => {
  it('plans the minimal context', () => {
    const plan = planBuild(fakeConfig(), [], '/work/app');
    expect(plan.entries.map((e) => [e.path, e.mode.toString(8)])).toEqual([
      ['Dockerfile.generated', '644'],
      ['byre-launch', '755'],
      ['byre-profile-env.sh', '644'],
      ['byre-ensure-node', '755'],
      ['wiring/mcp.json', '644'],
    ]);
    expect(plan.dirs).toEqual(['wiring/claude-skills/.claude/skills']);
    expect(plan.agentCmd).toBeNull();
    expect(plan.mcpJson).toBe('{\n  "mcpServers": {}\n}\n');
    expect(plan.notes).toEqual([]);
    expect(entry(plan, 'byre-launch')?.source).toEqual({
      kind: 'bytes',
      bytes: chassisFiles().launcher,
    });
    expect(plan.dockerfile).toBe(renderDockerfile(plan.dockerfileInput));
  });

  it('writes agent-cmd for the selected agent', () => {
    const plan = planBuild(fakeConfig({ agent: sourced('byre/claude') }), [claude], '/w');
    expect(plan.agentCmd).toBe('#!/bin/sh\nexec claude --dangerously-skip-permissions "$@"\n');
    expect(entry(plan, 'agent-cmd')?.mode).toBe(0o755);
    expect(plan.dockerfile).toContain('COPY agent-cmd /etc/byre/agent-cmd');
  });

  // The Dockerfile copies the whole wiring directory into /etc/byre, last
  // (adr/0069): only byre's three fixed names may be staged there, never a
  // guarded chassis path's (the launch gate, the credential gate).
  it('stages only the three wiring names under wiring/, the context only with an agent', () => {
    const tops = (plan: BuildPlan) =>
      [
        ...new Set(
          [...plan.entries.map((e) => e.path), ...plan.dirs]
            .filter((p) => p.startsWith('wiring/'))
            .map((p) => p.split('/')[1]),
        ),
      ].sort();
    expect(tops(planBuild(fakeConfig(), [], '/w'))).toEqual(['claude-skills', 'mcp.json']);
    const withAgent = planBuild(fakeConfig({ agent: sourced('byre/claude') }), [claude], '/w');
    expect(tops(withAgent)).toEqual(['agent-context.md', 'claude-skills', 'mcp.json']);
    expect(entry(withAgent, 'wiring/agent-context.md')?.source).toEqual({
      kind: 'bytes',
      bytes: withAgent.agentContext,
    });
  });

  it('refuses an agent that is not an enabled agent skill', () => {
    expect(() => planBuild(fakeConfig({ agent: sourced('byre/codex') }), [claude], '/w')).toThrow(
      expect.objectContaining({ rule: 'agent.not-enabled' }),
    );
    expect(() => planBuild(fakeConfig({ agent: sourced('notes') }), [notes], '/w')).toThrow(
      expect.objectContaining({ rule: 'agent.not-enabled' }),
    );
  });

  it('stages skill payloads with their exec bits', () => {
    const plan = planBuild(fakeConfig(), [claude], '/w');
    expect(entry(plan, 'skills/byre/claude/hook.sh')).toEqual({
      path: 'skills/byre/claude/hook.sh',
      mode: 0o755,
      source: { kind: 'bytes', bytes: text('#!/bin/bash\n') },
    });
  });

  it('collects volume targets from config and skills', () => {
    const plan = planBuild(
      fakeConfig({
        volumes: [
          sourced({
            name: 'pip',
            role: 'cache',
            target: '/home/dev/.cache/pip',
            scope: 'project',
            sharing: 'shared',
          }),
        ],
      }),
      [claude],
      '/w',
    );
    expect(plan.dockerfileInput.volumeTargets).toEqual([
      '/home/dev/.cache/pip',
      '/home/dev/.claude',
    ]);
  });

  it('stages config files under files/<src> and COPYs them', () => {
    const plan = planBuild(
      fakeConfig({
        files: { './seed': sourced('/opt/seed'), 'conf/app.toml': sourced('/etc/app.toml') },
      }),
      [],
      '/work/app',
    );
    expect(plan.dockerfileInput.files).toEqual([
      { staged: 'files/conf/app.toml', dest: '/etc/app.toml' },
      { staged: 'files/seed', dest: '/opt/seed' },
    ]);
    expect(entry(plan, 'files/seed')?.source).toMatchObject({
      kind: 'project-file',
      key: './seed',
      src: 'seed',
      hostPath: '/work/app/seed',
    });
  });

  it('stages a source the builders would read differently under its hash', () => {
    const key = 'app/[id]/my page.tsx';
    const plan = planBuild(fakeConfig({ files: { [key]: sourced('/opt/page.tsx') } }), [], '/w');
    const staged = stagedContextPath(`files/${key}`);
    expect(staged).toMatch(/^escaped\/[0-9a-f]{64}$/);
    expect(plan.dockerfileInput.files).toEqual([{ staged, dest: '/opt/page.tsx' }]);
    expect(entry(plan, staged)?.source).toMatchObject({ kind: 'project-file', src: key });
  });

  it("stages a skill's build file the builders would read differently under its hash", () => {
    const notes = fakeSkill('notes', 'local', {
      build: {
        apt: [],
        node: null,
        dockerfile: [],
        files: [
          {
            staged: 'skills/notes/my $1.md',
            dest: '/opt/my $1.md',
            executable: false,
            content: Buffer.from('n'),
          },
          {
            staged: 'skills/notes/plain.md',
            dest: '/opt/plain.md',
            executable: false,
            content: Buffer.from('p'),
          },
        ],
      },
    });
    const plan = planBuild(fakeConfig({ skills: [sourced('notes')] }), [notes], '/w');
    const escaped = stagedContextPath('skills/notes/my $1.md');
    expect(entry(plan, escaped)?.source).toMatchObject({ kind: 'bytes' });
    expect(entry(plan, 'skills/notes/plain.md')?.source).toMatchObject({ kind: 'bytes' });
    expect(entry(plan, 'skills/notes/my $1.md')).toBeUndefined();
    const lines = renderDockerfile(plan.dockerfileInput).split('\n');
    expect(lines).toContain(`COPY ["${escaped}", "/opt/my \\\\$1.md"]`);
    expect(lines).toContain('COPY "skills/notes/plain.md" "/opt/plain.md"');
  });

  it('notes a [[context]] file by the size tiers: 100 KiB, 500 KiB, 1 MiB', () => {
    const at = (kib: number) => {
      const config = fakeConfig({
        context: [sourced({ name: 'notes', file: '~/notes.md' })],
      });
      const contextFiles = new Map([['~/notes.md', 'x'.repeat(kib * 1024)]]);
      return planBuild(config, [], '/w', { contextFiles }).notes.filter(
        (n) => n.rule === 'context.file-large',
      );
    };
    expect(at(99)).toEqual([]);
    expect(at(100)).toEqual([
      {
        rule: 'context.file-large',
        message:
          'context "notes" (~/notes.md) is 100 KiB; every session pays for it in the agent\'s context window',
      },
    ]);
    expect(at(500)[0]?.message).toBe(
      'context "notes" (~/notes.md) is 500 KiB; a large share of most agents\' context window, paid by every session',
    );
    expect(at(1024)[0]?.message).toBe(
      'context "notes" (~/notes.md) is 1024 KiB; more than most agents\' context window holds; expect it cut',
    );
  });

  it('notes a files entry that targets a guarded path', () => {
    const plan = planBuild(
      fakeConfig({ files: { launcher: sourced('/usr/local/bin/byre-launch') } }),
      [],
      '/w',
    );
    expect(plan.notes).toEqual([
      {
        rule: 'files.guarded-path',
        message:
          'files entry "launcher" targets /usr/local/bin/byre-launch, a path byre guards; byre\'s copy takes precedence',
      },
    ]);
  });

  it('notes a files entry that targets a wiring file, which is copied after it (adr/0056)', () => {
    const plan = planBuild(
      fakeConfig({ files: { servers: sourced('/etc/byre/mcp.json') } }),
      [],
      '/w',
    );
    expect(plan.notes).toEqual([
      {
        rule: 'files.wiring-path',
        message:
          'files entry "servers" targets /etc/byre/mcp.json, where byre puts the box\'s wiring after the project block; byre\'s copy takes precedence',
      },
    ]);
  });

  describe('Claude Skills', () => {
    const skillMd = text('---\nname: x\ndescription: y\n---\n');
    const carrier = fakeSkill('acme/tools', 'installed', {
      claudeSkills: [
        { name: 'review', path: 'skills/acme/tools/cs/review' },
        { name: 'closed-one', path: 'skills/acme/tools/cs/closed-one' },
      ],
      claudeSkillFiles: {
        review: [
          { rel: 'SKILL.md', content: skillMd },
          { rel: 'bin/run.sh', content: text('#!/bin/sh\n'), executable: true },
        ],
        'closed-one': [{ rel: 'SKILL.md', content: skillMd }],
      },
    });
    const config = fakeConfig({
      claudeSkills: [sourced({ name: 'tdd', path: '~/cs/tdd' })],
      claudeSkillsClosed: [sourced('closed-one')],
    });
    const staged = (plan: BuildPlan) =>
      plan.entries
        .filter((e) => e.path.startsWith('wiring/claude-skills/'))
        .map((e) => [e.path, e.mode.toString(8)]);

    it('stages config and skill-carried skills at claude-skills/.claude/skills/<name>/, minus closures', () => {
      const plan = planBuild(config, [carrier], '/w', {
        claudeSkillFiles: new Map([['tdd', [{ rel: 'SKILL.md', content: skillMd }]]]),
      });
      expect(staged(plan)).toEqual([
        ['wiring/claude-skills/.claude/skills/tdd/SKILL.md', '644'],
        ['wiring/claude-skills/.claude/skills/review/SKILL.md', '644'],
        ['wiring/claude-skills/.claude/skills/review/bin/run.sh', '755'],
      ]);
      expect(plan.dockerfile.endsWith('COPY wiring /etc/byre\n')).toBe(true);
    });

    it('keeps the empty layout (and its COPY) for an empty set', () => {
      const plan = planBuild(fakeConfig(), [], '/w');
      expect(staged(plan)).toEqual([]);
      expect(plan.dirs).toContain('wiring/claude-skills/.claude/skills');
      expect(plan.dockerfile.endsWith('COPY wiring /etc/byre\n')).toBe(true);
    });

    it('refuses a config Claude Skill whose files were not read', () => {
      expect(() => planBuild(config, [], '/w')).toThrow(
        expect.objectContaining({ rule: 'claude-skill.not-read' }),
      );
    });
  });
});

describe('planBuild: a files source is relative to the project', () => {
  const layer: LayerRef = {
    kind: 'layer',
    name: 'team',
    path: '/h/.byre/layers/team/layer.config',
  };
  /** The project-relative source the plan stages for `files` entry `key`. */
  const projectRelativeSource = (key: string, entry: Sourced<string>): unknown => {
    const plan = planBuild(fakeConfig({ files: { [key]: entry } }), [], '/w');
    const staged = plan.entries.filter((e) => e.source.kind === 'project-file');
    expect(staged).toHaveLength(1);
    return staged[0]?.source.kind === 'project-file' ? staged[0].source.src : undefined;
  };
  const ok: [string, string][] = [
    ['seed', 'seed'],
    ['./seed', 'seed'],
    ['a/../b', 'b'],
    ['dir/', 'dir/'],
    ['.', '.'],
  ];
  for (const [key, want] of ok) {
    it(`accepts ${key}`, () => expect(projectRelativeSource(key, sourced('/d', layer))).toBe(want));
  }
  for (const key of ['/etc/passwd', '~/secrets', '..', '../x', 'a/../../x', '']) {
    it(`refuses ${JSON.stringify(key)}`, () => {
      expect(() => projectRelativeSource(key, sourced('/d', layer))).toThrow(
        expect.objectContaining({
          rule: 'files.escapes-project',
          location: { file: '/h/.byre/layers/team/layer.config', key: `files."${key}"` },
        }),
      );
    });
  }
});

describe('agent-context.md', () => {
  it('joins chassis, base, apt, skill snippets (enable order) and [[context]] with blank lines', () => {
    const plan = planBuild(
      fakeConfig({
        base: sourced('debian:bookworm'),
        apt: [sourced('ripgrep'), sourced('jq')],
        context: [
          sourced({ name: 'house', text: 'Run the linter.\n\n' }),
          sourced({ name: 'notes-file', file: '~/notes.md' }),
        ],
      }),
      // Enable order local-first: context keeps it even though the image reorders.
      [notes, claude],
      '/w',
      { contextFiles: new Map([['~/notes.md', 'From a file.\n']]) },
    );
    expect(plan.agentContext).toBe(
      [
        'Files the user sends from the host arrive in /inbox, owned by you. /inbox lives only as long as this container, so treat it as a hand-off point, not as storage.',
        'Box base image: debian:bookworm.',
        'The box config additionally provisions: ripgrep, jq (apt).',
        'Notes snippet.',
        'Claude skill snippet.',
        'Run the linter.',
        'From a file.',
      ].join('\n\n') + '\n',
    );
  });

  it('omits the apt line when nothing is provisioned', () => {
    expect(planBuild(fakeConfig(), [], '/w').agentContext).not.toContain('(apt)');
  });

  it('fails, attributed, when a context file was not read', () => {
    expect(() =>
      planBuild(fakeConfig({ context: [sourced({ name: 'gone', file: '/nope.md' })] }), [], '/w'),
    ).toThrow(expect.objectContaining({ rule: 'context.file-missing' }));
  });

  it('warns past 100,000 bytes', () => {
    const big = planBuild(
      fakeConfig({ context: [sourced({ name: 'big', text: 'x'.repeat(100_001) })] }),
      [],
      '/w',
    );
    expect(big.notes.map((n) => n.rule)).toEqual(['context.large']);
  });
});

describe('mcp.json', () => {
  it('an empty set bakes too: the pinned bytes of /etc/byre/mcp.json (UPDATE_GOLDEN=1 rewrites)', () => {
    expectGolden('mcp-empty.json', planBuild(fakeConfig(), [], '/w').mcpJson);
  });

  it('renders config and skill servers sorted by name, minus closures (pinned bytes)', () => {
    const plan = planBuild(
      fakeConfig({
        mcp: [
          sourced({
            name: 'github',
            command: ['github-mcp-server', 'stdio'],
            env: ['GITHUB_TOKEN'],
            egress: [],
            headers: {},
          }),
          sourced({
            name: 'docs',
            url: 'https://docs.example/mcp',
            env: [],
            egress: [],
            headers: { 'X-Key': '${DOCS_KEY}' },
          }),
          sourced({
            name: 'bare',
            url: 'https://bare.example/mcp',
            env: [],
            egress: [],
            headers: {},
          }),
        ],
        mcpClosed: [sourced('skill-server')],
      }),
      [claude],
      '/w',
    );
    expectGolden('mcp.json', plan.mcpJson);
  });

  it('includes skill-declared servers that are not closed', () => {
    const plan = planBuild(fakeConfig(), [claude], '/w');
    expect(JSON.parse(plan.mcpJson)).toEqual({
      mcpServers: {
        'skill-server': { type: 'stdio', command: 'srv', args: ['--stdio'], x_byre_env: [] },
      },
    });
  });

  it('refuses a name declared twice', () => {
    expect(() =>
      planBuild(
        fakeConfig({
          mcp: [
            sourced({ name: 'skill-server', command: ['x'], env: [], egress: [], headers: {} }),
          ],
        }),
        [claude],
        '/w',
      ),
    ).toThrow(expect.objectContaining({ rule: 'mcp.duplicate-name' }));
  });
});

describe('agent-cmd', () => {
  it('execs the command with the launcher’s arguments', () => {
    const codex = fakeSkill('byre/codex', 'bundled', {
      agent: {
        command: 'codex --yolo',
        state: '.codex',
        context: false,
        mcp: false,
        claudeSkills: false,
      },
    });
    const plan = planBuild(fakeConfig({ agent: sourced('codex') }), [codex], '/w');
    expect(plan.agentCmd).toBe('#!/bin/sh\nexec codex --yolo "$@"\n');
  });
});

describe('the credential gate', () => {
  const row = 'encrypted:0123456789abcdef:YWdl';

  it('is staged and baked when the config holds a credential row', () => {
    const plan = planBuild(fakeConfig({ envFromHost: { API_KEY: sourced(row) } }), [], '/w');
    expect(entry(plan, 'credential-gate')).toBeDefined();
    expect(plan.dockerfile).toContain('COPY credential-gate /etc/byre/credential-gate');
    // In the guard block, after the project's own lines.
    expect(plan.dockerfile.indexOf('COPY credential-gate')).toBeGreaterThan(
      plan.dockerfile.indexOf('# --- byre security guard'),
    );
  });

  it('is absent without credential rows, or when [env] overrides every one', () => {
    for (const config of [
      fakeConfig({ envFromHost: { TERM: sourced('env:TERM') } }),
      fakeConfig({ envFromHost: { API_KEY: sourced(row) }, env: { API_KEY: sourced('x') } }),
    ]) {
      const plan = planBuild(config, [], '/w');
      expect(entry(plan, 'credential-gate')).toBeUndefined();
      expect(plan.dockerfile).not.toContain('credential-gate');
    }
  });

  it('notes a files entry that targets the gate only when the gate is baked', () => {
    const files = { gate: sourced('/etc/byre/credential-gate') };
    const gated = planBuild(fakeConfig({ files, envFromHost: { K: sourced(row) } }), [], '/w');
    expect(gated.notes.map((n) => n.rule)).toContain('files.guarded-path');
    const plain = planBuild(fakeConfig({ files }), [], '/w');
    expect(plain.notes.map((n) => n.rule)).not.toContain('files.guarded-path');
  });
});
