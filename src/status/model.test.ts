import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';

import type { EffectiveConfig, LayerRef } from '../config/types.js';
import { fakeConfig, fakeSkill, sourced } from '../../test/support/config.js';
import { sampleRecord } from '../../test/support/launch-record.js';
import type { HostEnvEntry } from '../hostenv/resolve.js';
import {
  envKeysOf,
  launchRecordHash,
  renderLaunchRecord,
  type LaunchRecord,
} from '../gen/launch-record.js';
import type { LaunchRecordState } from '../launch/verify.js';
import { bannerLines, exposureLines } from './banner.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { StatusData } from './data-schema.js';
import { parseEdgeEvents } from './injection.js';
import { readClientLabel, statusModel, type StatusInput } from './model.js';
import { renderStatusText } from './render-text.js';
import { rowsForTier } from './rows.js';
import { parseWallLog } from './wall-events.js';

const DEFAULT_LAYER: LayerRef = { kind: 'default', name: 'default', path: '/h/default.config' };

function input(over: Partial<StatusInput> = {}): StatusInput {
  return {
    project: {
      projectId: 'app-1a2b3c',
      worktreeId: 'app-1a2b3c',
      projectRoot: '/home/ada/app',
      worktreeDir: '/home/ada/app',
      isLinkedWorktree: false,
      commonGitDir: null,
      gitPaths: null,
      project: { config: '/home/ada/.byre/projects/app-1a2b3c/byre.config' },
    },
    config: fakeConfig(),
    skills: [],
    skillError: null,
    engine: { kind: 'ok', name: 'docker', rootless: false, keepId: false },
    hostEnv: [],
    hostUid: 1000,
    home: '/home/ada',
    container: { state: 'not_running' },
    launch: null,
    siblings: [],
    siblingsError: null,
    nextLaunch: null,
    ...over,
  };
}

function rows(i: StatusInput, tier: 'default' | 'full' = 'default') {
  return rowsForTier(statusModel(i).rows, tier);
}

/** label -> values (continuations folded into the row above). */
function table(i: StatusInput, tier: 'default' | 'full' = 'default'): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let last = '';
  for (const r of rows(i, tier)) {
    if (r.label !== '') last = r.label;
    out.set(last, [...(out.get(last) ?? []), r.value]);
  }
  return out;
}

function hostEnv(key: string, state: HostEnvEntry['state'], source = `env:${key}`): HostEnvEntry {
  return {
    key,
    source,
    state,
    from: DEFAULT_LAYER,
    ...(state === 'delivered' ? { value: 'v' } : {}),
  };
}

const firewall = (over: Partial<ResolvedSkill['runtime']> = {}): ResolvedSkill =>
  fakeSkill('byre/firewall', 'bundled', {
    runtime: { ...fakeSkill('x', 'local').runtime, networkPosture: 'deny-by-default', ...over },
  });

const REFERENCE_ORDER = [
  'Project id',
  'Agent',
  'Template',
  'Extends',
  'Config files',
  'Preset',
  'Engine',
  'Project',
  'Worktree of',
  'Image',
  'Network',
  'Containment',
  'Egress',
  'Closed',
  'Privileges',
  'Ports',
  'Host mounts',
  'Self-edit',
  'Skills',
  'State vols',
  'Cache vols',
  'Shared vols',
  'MCP servers',
  'MCP closed',
  'Claude Skills',
  'CS closed',
  'Instructions',
  'Host env',
  'Credentials',
  'Env',
  'Box env',
  'Skill grants',
  'Reserved env',
  'Raw run args',
  'Raw build',
  'Container',
  'Worktrees',
  'Next launch',
];

const SEALED = 'encrypted:0123456789abcdef:YWdl';

/** A config that makes every conditional row appear. */
function everything(): StatusInput {
  const claude = fakeSkill('byre/claude', 'bundled', {
    runtime: {
      ...fakeSkill('x', 'local').runtime,
      egress: ['api.anthropic.com'],
      env: { BYRE_EGRESS: 'x' },
      caps: ['NET_RAW'],
      containment: 'mounts the host docker socket',
    },
    agent: { command: 'claude', state: null, context: true, mcp: true, claudeSkills: false },
    volumes: [
      {
        name: 'claude',
        role: 'state',
        target: '/home/dev/.claude',
        scope: 'project',
        sharing: 'exclusive',
      },
      { name: 'npm', role: 'cache', target: '/home/dev/.npm', scope: 'project', sharing: 'shared' },
      {
        name: 'auth',
        role: 'state',
        target: '/home/dev/.auth',
        scope: 'machine',
        sharing: 'shared',
      },
    ],
    context: 'Use the firewall.',
  });
  const config: EffectiveConfig = fakeConfig({
    agent: sourced('byre/claude'),
    template: sourced('byre/go', { kind: 'template', name: 'byre/go', path: null }),
    layers: [{ kind: 'template', name: 'byre/go', path: null }],
    extendsChain: ['corp', 'team'],
    egress: [sourced({ host: 'pypi.org', port: 443 })],
    egressClosed: [sourced({ host: 'statsig.com', port: null })],
    ports: [sourced({ container: 3000, host: 0, interface: '127.0.0.1' })],
    mounts: [
      sourced({
        host: '~/.gitconfig',
        target: '/home/dev/.gitconfig',
        mode: 'ro',
        disabled: false,
      }),
    ],
    mcp: [
      sourced({
        name: 'gh',
        url: 'https://mcp.github.com/x',
        env: ['GH_TOKEN'],
        egress: [],
        headers: {},
      }),
    ],
    mcpClosed: [sourced('old')],
    claudeSkills: [sourced({ name: 'review', path: 'skills/review' })],
    claudeSkillsClosed: [sourced('lint')],
    context: [sourced({ name: 'house', text: 'Be terse.' })],
    env: { FOO: sourced('1') },
    envFromHost: { API_KEY: sourced(SEALED) },
    runArgs: [sourced('--cap-add=SYS_PTRACE')],
    dockerfilePre: [sourced('RUN echo hi')],
  });
  const sample = sampleRecord();
  const record: LaunchRecord = {
    ...sample,
    credentialKeys: ['API_KEY'],
    volumes: [
      ...sample.volumes,
      {
        name: 'byre-machine-u1000-auth',
        target: '/home/dev/.auth',
        decl: 'auth',
        role: 'state',
        scope: 'machine',
        sharing: 'shared',
      },
    ],
  };
  const hash = launchRecordHash(renderLaunchRecord(record));
  return input({
    config,
    skills: [claude, firewall()],
    project: {
      ...input().project,
      worktreeId: 'app-feature-9z',
      worktreeDir: '/home/ada/app-feature',
      isLinkedWorktree: true,
      commonGitDir: '/home/ada/app/.git',
      gitPaths: { commonGitDir: '/home/ada/app/.git', worktreeDir: '/home/ada/app-feature' },
    },
    presetNote: 'preset corp/go drifted: 2 keys edited since apply',
    configFiles: [
      { kind: 'default', name: 'default', path: '/home/ada/.byre/default.config', present: false },
      { kind: 'template', name: 'byre/go', path: null, present: true },
      {
        kind: 'layer',
        name: 'corp',
        path: '/home/ada/.byre/layers/corp/layer.config',
        present: true,
      },
      {
        kind: 'project',
        name: 'project',
        path: '/home/ada/.byre/projects/app-1a2b3c/byre.config',
        present: true,
      },
    ],
    hostEnv: [hostEnv('TERM', 'delivered'), hostEnv('TZ', 'empty', 'tz:')],
    container: {
      state: 'running',
      id: 'abcdef0123456789',
      engine: 'docker',
      clientPid: 42,
      clientAlive: true,
    },
    launch: { kind: 'verified', hash, record },
    nextLaunch: { ...record, ports: [] },
    siblings: [{ worktreeId: 'app-main', id: '0123456789abcdef', engine: 'podman' }],
  });
}

describe('statusModel rows', () => {
  it('lists every row of the page, in its order, when every condition holds', () => {
    const seen = [...table({ ...everything() }).keys()];
    // Self-edit has no config key yet; every other reference row is present.
    expect(seen).toEqual(REFERENCE_ORDER.filter((l) => l !== 'Self-edit'));
  });

  it('a bare config shows only the unconditional rows, with (none)/none', () => {
    const t = table(input());
    expect([...t.keys()]).toEqual([
      'Project id',
      'Agent',
      'Template',
      'Engine',
      'Project',
      'Network',
      'Privileges',
      'Ports',
      'Host mounts',
      'Skills',
      'State vols',
      'Cache vols',
      'Container',
    ]);
    expect(t.get('Agent')).toEqual(['(none)']);
    expect(t.get('Template')).toEqual(['(none)']);
    expect(t.get('Ports')).toEqual(['none']);
    expect(t.get('Network')).toEqual(['open']);
    expect(t.get('Privileges')).toEqual([
      'no capabilities; setuid and file capabilities gain nothing',
    ]);
    expect(t.get('Container')).toEqual(['not running']);
  });

  describe('the Privileges row says what the box may hold and gain (adr/0050)', () => {
    const withCaps = (id: string, caps: string[]): ResolvedSkill =>
      fakeSkill(id, 'local', { runtime: { ...fakeSkill(id, 'local').runtime, caps } });
    const raw = fakeConfig({ runArgs: [sourced('--privileged')] });
    it.each<[string, Partial<StatusInput>, StatusData['privileges'], string]>([
      [
        'nothing granted',
        {},
        { no_new_privileges: true, capabilities: [], degraded_by: [] },
        'no capabilities; setuid and file capabilities gain nothing',
      ],
      [
        "skills' caps, each once, attributed to the first skill that asks",
        { skills: [withCaps('a', ['NET_RAW', 'SYS_PTRACE']), withCaps('b', ['NET_RAW'])] },
        {
          no_new_privileges: true,
          capabilities: [
            { name: 'NET_RAW', skill: 'a' },
            { name: 'SYS_PTRACE', skill: 'a' },
          ],
          degraded_by: [],
        },
        'capabilities NET_RAW (skill: a), SYS_PTRACE (skill: a), every other dropped; setuid and file capabilities gain nothing',
      ],
      [
        'raw run_args degrade the claim',
        { config: raw },
        { no_new_privileges: true, capabilities: [], degraded_by: ['raw run_args'] },
        'no capabilities; setuid and file capabilities gain nothing  (declared; raw run_args present — not guaranteed)',
      ],
      [
        'unresolved skills leave the capabilities unknown',
        { skillError: 'skill foo not found' },
        { no_new_privileges: true, capabilities: null, degraded_by: [] },
        'unknown  (skills unresolved)',
      ],
    ])('%s', (_name, over, data, row) => {
      const m = statusModel(input(over));
      expect(m.data.privileges).toEqual(data);
      expect(table(input(over)).get('Privileges')).toEqual([row]);
    });

    it("a running box's claim is degraded by its own launch record's run_args, not the config's", () => {
      const record = sampleRecord();
      const hash = launchRecordHash(renderLaunchRecord(record));
      const running = (config: EffectiveConfig, projectRunArgs: boolean) =>
        statusModel(
          input({
            config,
            container: RUNNING_BOX,
            launch: {
              kind: 'verified',
              hash,
              record: { ...record, network: { ...record.network, projectRunArgs } },
            },
            nextLaunch: null,
          }),
        ).data.privileges.degraded_by;
      expect(running(fakeConfig(), true)).toEqual(['raw run_args']);
      expect(running(raw, false)).toEqual([]);
    });
  });

  type Case = [string, Partial<StatusInput>, string, string | RegExp];
  const cases: Case[] = [
    [
      'agent with provenance',
      { config: fakeConfig({ agent: sourced('byre/claude', DEFAULT_LAYER) }) },
      'Agent',
      'byre/claude  (default)',
    ],
    [
      'bundled template',
      {
        config: fakeConfig({
          template: sourced('byre/go'),
          layers: [{ kind: 'template', name: 'byre/go', path: null }],
        }),
      },
      'Template',
      'byre/go  (bundled)',
    ],
    [
      'extends chain',
      { config: fakeConfig({ extendsChain: ['a', 'b'] }) },
      'Extends',
      'a -> b -> project',
    ],
    ['preset note', { presetNote: 'drifted' }, 'Preset', 'drifted'],
    [
      'rootless keep-id podman',
      { engine: { kind: 'ok', name: 'podman', rootless: true, keepId: true } },
      'Engine',
      'podman  (rootless, keep-id)',
    ],
    [
      'no engine',
      { engine: { kind: 'error', message: 'no container engine found' } },
      'Engine',
      'not available — no container engine found',
    ],
    [
      'worktree',
      {
        project: {
          ...input().project,
          isLinkedWorktree: true,
          commonGitDir: '/r/.git',
          gitPaths: { commonGitDir: '/r/.git', worktreeDir: '/r-wt' },
          projectRoot: '/r',
        },
      },
      'Worktree of',
      '/r',
    ],
    [
      'deny-by-default',
      { skills: [firewall()] },
      'Network',
      'deny-by-default  (skill: byre/firewall)',
    ],
    [
      'open-denylist',
      {
        skills: [
          fakeSkill('byre/firewall-open', 'bundled', {
            runtime: { ...firewall().runtime, networkPosture: 'open-denylist' },
          }),
        ],
        config: fakeConfig({
          egressClosed: [
            sourced({ host: 'a.com', port: null }),
            sourced({ host: 'a.com', port: 80 }),
            sourced({ host: 'b.com', port: null }),
          ],
        }),
      },
      'Network',
      'open-denylist  (open network, 2 hosts blocked; skill: byre/firewall-open)',
    ],
    [
      'raw run_args degrade the posture',
      { skills: [firewall()], config: fakeConfig({ runArgs: [sourced('--privileged')] }) },
      'Network',
      'deny-by-default  (declared; raw run_args present — not guaranteed; skill: byre/firewall)',
    ],
    [
      'raw build lines degrade the posture',
      { skills: [firewall()], config: fakeConfig({ dockerfilePost: [sourced('RUN x')] }) },
      'Network',
      /declared; raw build lines present — not guaranteed/,
    ],
    [
      'a reserved network key degrades the posture',
      { skills: [firewall({ env: { BYRE_EGRESS: 'evil.com:443' } })] },
      'Network',
      /declared; reserved BYRE_EGRESS \(byre\/firewall\) present — not guaranteed/,
    ],
    [
      'skills unresolved',
      { skillError: 'skill foo not found' },
      'Network',
      'unknown  (skills unresolved)',
    ],
    [
      'containment hole',
      {
        skills: [
          fakeSkill('dind', 'local', {
            runtime: {
              ...firewall().runtime,
              networkPosture: null,
              containment: 'host docker socket',
            },
          }),
        ],
      },
      'Containment',
      '🛑 HOLE -- host docker socket  (skill: dind)',
    ],
    [
      'mount over the launcher',
      {
        config: fakeConfig({
          mounts: [sourced({ host: '/x', target: '/usr/local/bin', mode: 'ro', disabled: false })],
        }),
      },
      'Containment',
      '🛑 HOLE -- mount over /usr/local/bin shadows byre-managed /usr/local/bin/byre-launch  (project)',
    ],
    [
      'volume under /etc/byre',
      {
        config: fakeConfig({
          volumes: [
            sourced({
              name: 'v',
              role: 'state',
              target: '/etc/byre/mcp',
              scope: 'project',
              sharing: 'shared',
            }),
          ],
        }),
      },
      'Containment',
      /volume over \/etc\/byre\/mcp shadows byre-managed \/etc\/byre/,
    ],
    [
      'mount over a netns hook',
      {
        skills: [firewall({ netnsInit: '/usr/lib/byre/netns-init' })],
        config: fakeConfig({
          mounts: [sourced({ host: '/x', target: '/usr/lib/byre', mode: 'ro', disabled: false })],
        }),
      },
      'Containment',
      /shadows byre-managed \/usr\/lib\/byre\/netns-init/,
    ],
    [
      'config egress without a posture is unenforced',
      { config: fakeConfig({ egress: [sourced({ host: 'pypi.org', port: 443 })] }) },
      'Egress',
      'pypi.org:443  (config) — unenforced, network open',
    ],
    [
      'skill egress attributed',
      { skills: [firewall({ egress: ['api.x.com'] })] },
      'Egress',
      'api.x.com:443  (byre/firewall)',
    ],
    [
      'closed skill egress',
      {
        skills: [firewall({ egress: ['api.x.com'] })],
        config: fakeConfig({ egressClosed: [sourced({ host: 'api.x.com', port: null })] }),
      },
      'Egress',
      "api.x.com:443  (byre/firewall) — closed by config '!api.x.com'",
    ],
    [
      'an allowlisted name the running box has not resolved yet',
      {
        skills: [firewall({ egress: ['api.x.com'] })],
        wall: { of: 'running_box', events: parseWallLog(''), error: null },
      },
      'Egress',
      'api.x.com:443  (byre/firewall) — allowed, not resolved yet',
    ],
    [
      'an allowlisted name the running box resolved',
      {
        skills: [firewall({ egress: ['api.x.com'] })],
        wall: {
          of: 'running_box',
          events: parseWallLog('byre-wall 1 resolved 1764660000 api.x.com 1.2.3.4 60'),
          error: null,
        },
      },
      'Egress',
      'api.x.com:443  (byre/firewall)',
    ],
    [
      'the Denied row of a running walled box',
      {
        skills: [firewall()],
        wall: {
          of: 'running_box',
          events: parseWallLog('byre-wall 1 refused-name 1764660000 evil.example A'),
          error: null,
        },
      },
      'Denied',
      '1 name refused (evil.example)',
    ],
    [
      'closure row',
      { config: fakeConfig({ egressClosed: [sourced({ host: 'a.com', port: 80 })] }) },
      'Closed',
      '!a.com:80  (project) — unenforced, network open',
    ],
    [
      'mcp egress',
      {
        skills: [firewall()],
        config: fakeConfig({
          mcp: [sourced({ name: 'gh', url: 'https://g.com/', env: [], egress: [], headers: {} })],
        }),
      },
      'Egress',
      'g.com:443  (mcp:gh)',
    ],
    [
      'port mirrored',
      {
        config: fakeConfig({
          ports: [sourced({ container: 8080, host: 0, interface: '127.0.0.1' })],
        }),
      },
      'Ports',
      '127.0.0.1:8080 -> 8080  (project)',
    ],
    [
      'disabled mount kept and marked',
      {
        config: fakeConfig({
          mounts: [sourced({ host: '~/d', target: '/d', mode: 'ro', disabled: true })],
        }),
      },
      'Host mounts',
      '~/d -> /d  (ro, disabled)  (project)',
    ],
    [
      'skill mount attributed',
      {
        skills: [
          fakeSkill('s', 'local', {
            runtime: {
              ...firewall().runtime,
              networkPosture: null,
              mounts: [
                {
                  host: '/var/run/docker.sock',
                  target: '/var/run/docker.sock',
                  mode: 'rw',
                  disabled: false,
                },
              ],
            },
          }),
        ],
      },
      'Host mounts',
      '/var/run/docker.sock -> /var/run/docker.sock  (rw)  (skill s)',
    ],
    [
      'skills column',
      { skills: [fakeSkill('byre/claude', 'bundled'), fakeSkill('me/x', 'installed')] },
      'Skills',
      'byre/claude  bundled 1.0.0',
    ],
    [
      'shared volume',
      {
        config: fakeConfig({
          volumes: [
            sourced({
              name: 'gh',
              role: 'state',
              target: '/g',
              scope: 'machine',
              sharing: 'shared',
            }),
          ],
        }),
      },
      'Shared vols',
      'gh -> /g  (project)  (machine-wide, all your projects)',
    ],
    [
      'mcp without an agent is not delivered',
      {
        config: fakeConfig({
          mcp: [sourced({ name: 'fs', command: ['mcp-fs'], env: [], egress: [], headers: {} })],
        }),
      },
      'MCP servers',
      'declared; NOT delivered: no agent is selected (baked at /etc/byre/mcp.json for anything that wants it)',
    ],
    [
      'an mcp server names the env it reads',
      {
        config: fakeConfig({
          mcp: [
            sourced({
              name: 'gh',
              command: ['gh-mcp', 'stdio'],
              env: ['GH_TOKEN', 'GH_HOST'],
              egress: [],
              headers: {},
            }),
          ],
        }),
      },
      'MCP servers',
      'gh  gh-mcp stdio  (project; reads GH_TOKEN, GH_HOST)',
    ],
    [
      'env baked',
      { config: fakeConfig({ env: { B: sourced('1'), A: sourced('2') } }) },
      'Env',
      'A, B  (baked into the image)',
    ],
    [
      'host env summary',
      { hostEnv: [hostEnv('TERM', 'delivered'), hostEnv('X', 'overridden')] },
      'Host env',
      '1 key from host: TERM  (env_from_host; --full for sources)',
    ],
    [
      'host env override noted',
      { hostEnv: [hostEnv('X', 'overridden')] },
      'Host env',
      'X overridden by [env]',
    ],
    [
      'host env withheld noted',
      { hostEnv: [hostEnv('TZ', 'empty', 'tz:')] },
      'Host env',
      'TZ NOT passed: tz: is empty on this host',
    ],
    [
      'skill cap grant',
      { skills: [firewall({ caps: ['NET_ADMIN'] })] },
      'Skill grants',
      'byre/firewall: +NET_ADMIN',
    ],
    [
      'skill sock group',
      { skills: [firewall({ sockGroups: ['/var/run/docker.sock'] })] },
      'Skill grants',
      'byre/firewall: socket group for /var/run/docker.sock',
    ],
    [
      'reserved key',
      { skills: [firewall({ env: { BYRE_MCP_CONFIG: '/x' } })] },
      'Reserved env',
      '⚠ byre/firewall sets BYRE_MCP_CONFIG: the MCP delivery claim is not guaranteed',
    ],
    [
      'unknown reserved key',
      { skills: [firewall({ env: { BYRE_FOO: '1' } })] },
      'Reserved env',
      /BYRE_FOO, a BYRE_ key this byre does not know: the network and launch claims/,
    ],
    [
      'raw run args',
      { config: fakeConfig({ runArgs: [sourced('--cap-add=SYS_PTRACE')] }) },
      'Raw run args',
      '--cap-add=SYS_PTRACE — 🛑 adds capability SYS_PTRACE (byre gives the box none of its own)  (project)',
    ],
    [
      'raw build count',
      { config: fakeConfig({ dockerfilePre: [sourced('RUN a'), sourced('RUN b')] }) },
      'Raw build',
      '2 lines  (not introspected; --full to show)',
    ],
    [
      'running',
      {
        container: {
          state: 'running',
          id: 'abcdef0123456789',
          engine: 'podman',
          clientPid: 7,
          clientAlive: true,
        },
        launch: { kind: 'pre_record' },
      },
      'Container',
      'running (abcdef012345) on podman',
    ],
    [
      'orphaned',
      {
        container: {
          state: 'running',
          id: 'abcdef0123456789',
          engine: 'docker',
          clientPid: 7,
          clientAlive: false,
        },
        launch: { kind: 'pre_record' },
      },
      'Container',
      'running (abcdef012345) on docker — orphaned: the byre that started it (pid 7) is gone; stop it with `docker stop abcdef012345`',
    ],
    [
      'unknown container',
      { container: { state: 'unknown', error: 'could not ask docker (boom)' } },
      'Container',
      'unknown — could not ask docker (boom)',
    ],
    [
      'siblings',
      { siblings: [{ worktreeId: 'app-wt-1', id: '0123456789abcdef', engine: 'docker' }] },
      'Worktrees',
      'app-wt-1  running (0123456789ab) on docker',
    ],
    [
      'a sibling found in git’s files: its path and branch',
      {
        siblings: [
          {
            worktreeId: 'app-wt-1',
            id: '0123456789abcdef',
            engine: 'docker',
            path: '/src/app-feat',
            branch: 'feat',
          },
        ],
      },
      'Worktrees',
      '/src/app-feat  feat  running (0123456789ab) on docker',
    ],
    [
      'worktree_base, where byre worktree puts new worktrees',
      {
        config: fakeConfig({
          worktreeBase: sourced('sibling', {
            kind: 'default',
            name: 'default',
            path: '/home/ada/.byre/default.config',
          }),
        }),
      },
      'Worktree base',
      /^sibling {2}\(default; where byre worktree puts new worktrees\)$/,
    ],
    [
      'a linked worktree’s port block',
      {
        config: fakeConfig({
          ports: [sourced({ container: 3000, host: 0, interface: '127.0.0.1' })],
        }),
        sessionPorts: {
          block: 7,
          ports: [{ interface: '127.0.0.1', host: 3700, container: 3000 }],
        },
      },
      'Ports',
      /^127\.0\.0\.1:3700 -> 3000 {2}\(.*; worktree port block 7\)$/,
    ],
    [
      'self-edit previewed',
      { selfEdit: true, storeDir: '/home/ada/.byre/projects/app-1a2b3c' },
      'Self-edit',
      /^\/home\/ada\/\.byre\/projects\/app-1a2b3c -> \/home\/dev\/\.byre-self {2}\(rw/,
    ],
  ];
  it.each(cases)('%s', (_name, over, label, expected) => {
    const values = table(input(over)).get(label) ?? [];
    if (typeof expected === 'string') expect(values).toContain(expected);
    else expect(values.some((v) => expected.test(v))).toBe(true);
  });

  it('full tier: host env sources, raw build verbatim, instruction text', () => {
    const t = table(everything(), 'full');
    expect(t.get('Host env')).toEqual([
      'TERM <- env:TERM  (delivered; default)',
      'TZ <- tz:  (empty; default)',
    ]);
    expect(t.get('Raw build')).toEqual(['1 line  (not introspected):', 'RUN echo hi']);
    expect(t.get('Instructions')).toContain('house  (project): Be terse.');
  });

  it('claim degradations and containment rows are never-truncate', () => {
    const kinds = rows(everything()).filter((r) =>
      /^(Network|Containment|Reserved env|Raw run args|Container)$/.test(r.label),
    );
    expect(kinds.every((r) => r.kind === 'never-truncate')).toBe(true);
  });
});

describe('the Config files row', () => {
  it('names every file of the cascade, lowest first, and the ones not created yet', () => {
    expect(table(everything()).get('Config files')).toEqual([
      '/home/ada/.byre/default.config  (default; not created yet)',
      '(inside byre or its package)  (template byre/go)',
      '/home/ada/.byre/layers/corp/layer.config  (layer corp)',
      '/home/ada/.byre/projects/app-1a2b3c/byre.config  (project)',
    ]);
  });
});

describe('what develop would refuse', () => {
  it('a Refused row, never truncated, right after Project; --data carries it', () => {
    const i = input({
      refusals: [
        { rule: 'containment.store', message: 'the project directory /home/ada holds the store' },
      ],
    });
    const labels = [...table(i).keys()];
    expect(labels.slice(labels.indexOf('Project'), labels.indexOf('Project') + 2)).toEqual([
      'Project',
      'Refused',
    ]);
    expect(rows(i).find((r) => r.label === 'Refused')).toMatchObject({
      value: 'the project directory /home/ada holds the store  [containment.store]',
      kind: 'never-truncate',
    });
    expect(statusModel(i).data.refused).toEqual([
      { rule: 'containment.store', message: 'the project directory /home/ada holds the store' },
    ]);
  });

  it('Claude Skills develop would refuse to bake are not "delivered"', () => {
    const claude = fakeSkill('byre/claude', 'bundled', {
      agent: { command: 'c', state: null, context: true, mcp: true, claudeSkills: true },
    });
    const config = fakeConfig({
      agent: sourced('claude'),
      claudeSkills: [sourced({ name: 'tdd', path: '~/cs/tdd' })],
    });
    const ok = statusModel(input({ config, skills: [claude] })).data;
    expect(ok.claude_skills_delivery).toBe('delivered to byre/claude');
    const bad = statusModel(
      input({
        config,
        skills: [claude],
        claudeSkillProblems: ['tdd: it has no SKILL.md at its root'],
      }),
    ).data;
    expect(bad.claude_skills_delivery).toBe(
      'declared; NOT delivered: develop refuses to bake tdd: it has no SKILL.md at its root',
    );
  });

  it('with no agent, the Claude Skills row says no agent is selected before anything about a path', () => {
    const config = fakeConfig({ claudeSkills: [sourced({ name: 'tdd', path: '/x' })] });
    const NO_AGENT =
      'declared; NOT delivered: no agent is selected (baked at /etc/byre/claude-skills for anything that wants it)';
    const page = (problems: string[]) => {
      const given = input({ config, claudeSkillProblems: problems });
      return { data: statusModel(given).data, rows: table(given).get('Claude Skills') };
    };
    const fine = page([]);
    expect(fine.data.claude_skills_delivery).toBe(NO_AGENT);
    expect(fine.rows).toEqual(['tdd  /x  (project)', NO_AGENT]);
    const missing = page(['tdd: /x does not exist']);
    expect(missing.data.claude_skills_delivery).toBe(
      `${NO_AGENT}; develop refuses to bake tdd: /x does not exist`,
    );
  });

  it('--data: an MCP server carries its declared egress, and unknown outbound under an allowlist', () => {
    const servers = statusModel(
      input({
        skills: [firewall()],
        config: fakeConfig({
          mcp: [
            sourced({ name: 'fs', command: ['mcp-fs'], env: [], egress: [], headers: {} }),
            sourced({
              name: 'api',
              command: ['mcp-api'],
              env: [],
              egress: ['api.x.com'],
              headers: {},
            }),
          ],
        }),
      }),
    ).data.mcp_servers;
    expect(servers.map((m) => [m.name, m.egress, m.outbound_unknown])).toEqual([
      [
        'fs',
        [],
        'under deny-by-default only allowlisted hosts leave the box, and this server declares none; if it needs the network, declare its hosts in its egress',
      ],
      ['api', ['api.x.com'], null],
    ]);
  });
});

/** A running box whose client byre is alive. */
const RUNNING_BOX = {
  state: 'running',
  id: 'abcdef0123456789',
  engine: 'docker',
  clientPid: 1,
  clientAlive: true,
} as const;

describe('launch record states', () => {
  const record: LaunchRecord = sampleRecord();
  const hash = launchRecordHash(renderLaunchRecord(record));
  const running = RUNNING_BOX;
  const degraded: [LaunchRecordState['kind'], LaunchRecordState, RegExp][] = [
    ['pre_record', { kind: 'pre_record' }, /carries no launch record/],
    ['missing', { kind: 'missing', hash }, /launch record file is missing/],
    [
      'unreadable',
      {
        kind: 'unreadable',
        label: 'zz',
        reason: 'label',
        message: 'label is not a sha256 hex digest',
      },
      /cannot be read: label is not/,
    ],
    ['tampered', { kind: 'tampered', hash, actual: 'f'.repeat(64) }, /was edited since launch/],
    [
      'newer_schema',
      { kind: 'newer_schema', hash, version: 9 },
      /newer byre; liveness only \(record = 9\)/,
    ],
  ];
  it.each(degraded)(
    '%s degrades with one qualifier and falls back to the config',
    (kind, launch, note) => {
      const m = statusModel(input({ container: running, launch, nextLaunch: record }));
      expect(m.data.subject).toBe('next_launch');
      expect(m.data.launch.state).toBe(kind);
      const lines = rowsForTier(m.rows, 'default').map((r) => r.value);
      const warnings = lines.filter((v) => v.includes('CURRENT CONFIG'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(note);
      expect(lines.some((v) => v.includes('THIS box'))).toBe(false);
      expect(m.data.changes_on_next_launch).toEqual([]);
      // Grant rows describe the config (no ports configured), not the record's port.
      expect(m.data.ports).toEqual([]);
      expect(m.data.launch.image).toBeNull();
    },
  );

  it('verified: the box is the subject, the Image row appears, Next launch lists only deltas', () => {
    const next: LaunchRecord = {
      ...record,
      binds: [...record.binds, { host: '/data', target: '/data', mode: 'ro' }],
    };
    const m = statusModel(
      input({ container: running, launch: { kind: 'verified', hash, record }, nextLaunch: next }),
    );
    expect(m.data.subject).toBe('running_box');
    const t = table(
      input({ container: running, launch: { kind: 'verified', hash, record }, nextLaunch: next }),
    );
    expect(t.get('Container')?.[1]).toBe(
      `↳ the grant rows above describe THIS box (launch record ${hash.slice(0, 12)}). Other rows describe the current config.`,
    );
    expect(t.get('Image')).toEqual([`${record.image.tag}  0f0e0d0c0b0a  base node:22`]);
    expect(t.get('Next launch')).toEqual(['+ bind /data -> /data (ro)']);
    // A box whose wiring is bound from the store says where from (adr/0075).
    const bound: LaunchRecord = {
      ...record,
      image: { ...record.image, wiring: '/s/wiring/app/ab' },
    };
    const b = statusModel(
      input({
        container: running,
        launch: { kind: 'verified', hash, record: bound },
        nextLaunch: next,
      }),
    );
    expect(b.data.launch.image?.wiring).toBe('/s/wiring/app/ab');
    expect(m.data.launch.image?.wiring).toBeNull();
    expect(
      table(
        input({
          container: running,
          launch: { kind: 'verified', hash, record: bound },
          nextLaunch: next,
        }),
      ).get('Image'),
    ).toEqual([
      `${record.image.tag}  0f0e0d0c0b0a  base node:22  wiring bound read-only from /s/wiring/app/ab`,
    ]);
    // Grants from the record: its port, its bind, its posture and egress.
    expect(t.get('Ports')).toEqual(['127.0.0.1:3000 -> 3000  (launch record)']);
    expect(t.get('Host mounts')).toEqual([
      '/home/ada/.gitconfig -> /home/dev/.gitconfig  (ro)  (launch record)',
    ]);
    expect(t.get('Network')?.[0]).toMatch(
      /^deny-by-default  \(declared; raw run_args, reserved HTTPS_PROXY/,
    );
    expect(t.get('Egress')).toEqual([
      'api.anthropic.com:443  (launch record)',
      'github.com:443  (launch record)',
      'to open a host: byre config (Egress), or add it to egress in /home/ada/.byre/projects/app-1a2b3c/byre.config',
    ]);
    expect(t.get('Box env')).toEqual([
      'ANTHROPIC_API_KEY, GIT_AUTHOR_NAME, TERM  (keys passed at launch)',
    ]);
  });

  it('verified with an unchanged config has no Next launch section', () => {
    const t = table(
      input({ container: running, launch: { kind: 'verified', hash, record }, nextLaunch: record }),
    );
    expect(t.has('Next launch')).toBe(false);
  });

  it('recorded binds are attributed to the config that still explains them', () => {
    const config = fakeConfig({
      mounts: [
        sourced({
          host: '~/.gitconfig',
          target: '/home/dev/.gitconfig',
          mode: 'ro',
          disabled: false,
        }),
      ],
    });
    const t = table(
      input({
        config,
        container: running,
        launch: { kind: 'verified', hash, record },
        nextLaunch: record,
      }),
    );
    expect(t.get('Host mounts')).toEqual([
      '/home/ada/.gitconfig -> /home/dev/.gitconfig  (ro)  (project)',
    ]);
  });
});

describe('text layout', () => {
  const cjk = '/home/ada/プロジェクト/データ/とても長いディレクトリ名/さらに深い階層';
  const wide = input({
    config: fakeConfig({
      mounts: [sourced({ host: cjk, target: '/data/プロジェクト', mode: 'ro', disabled: false })],
    }),
    skills: [
      fakeSkill('dind', 'local', {
        runtime: {
          ...fakeSkill('x', 'local').runtime,
          containment:
            'mounts the host docker socket: the agent can start privileged containers on your machine and read every file you can',
        },
      }),
    ],
  });

  it.each([48, 80, 120, 160])(
    'at %i cells no line overruns except an unbreakable token',
    (width) => {
      const text = renderStatusText(statusModel(wide), 'default', width);
      for (const line of text.trimEnd().split('\n')) {
        if (stringWidth(line) <= width) continue;
        // Only the unbreakable CJK path token may overhang, alone on its line.
        expect(line.slice(14).trim()).toBe(cjk);
      }
      // The 🛑 row is whole and hangs at the value column.
      const lines = text.split('\n');
      const start = lines.findIndex((l) => l.startsWith('Containment:'));
      expect(lines[start]).toContain('🛑 HOLE --');
      const joined = lines
        .slice(start, start + 6)
        .map((l) => l.slice(14).trim())
        .join(' ');
      expect(joined).toMatch(/read every file you can\s+\(skill: dind\)/);
      expect(text).not.toContain('--full to show)');
    },
  );

  it('the CJK path is never cut', () => {
    for (const width of [48, 80]) {
      const text = renderStatusText(statusModel(wide), 'full', width);
      expect(text).toContain(cjk);
    }
  });

  it('long values truncate in the default tier with a --full pointer, never in --full', () => {
    const keys = Array.from({ length: 40 }, (_, i) =>
      hostEnv(`SOME_LONG_KEY_NAME_${i}`, 'delivered'),
    );
    const i = input({ hostEnv: keys });
    const def = renderStatusText(statusModel(i), 'default', 80);
    expect(def).toMatch(/… \(\+\d+ more lines; --full to show\)/);
    const full = renderStatusText(statusModel(i), 'full', 80);
    expect(full).not.toContain('more lines');
    expect(full).toContain('SOME_LONG_KEY_NAME_39 <- env:SOME_LONG_KEY_NAME_39');
  });

  it('every mount gets its own row: none is elided however many there are', () => {
    const mounts = Array.from({ length: 30 }, (_, i) =>
      sourced({ host: `/m/${i}`, target: `/t/${i}`, mode: 'ro' as const, disabled: false }),
    );
    const text = renderStatusText(
      statusModel(input({ config: fakeConfig({ mounts }) })),
      'default',
      80,
    );
    for (let i = 0; i < 30; i++) expect(text).toContain(`/m/${i} -> /t/${i}`);
  });

  it('escapes values byre did not write', () => {
    const config = fakeConfig({
      mounts: [sourced({ host: '/evil\u001b[31m', target: '/x', mode: 'ro', disabled: false })],
    });
    const text = renderStatusText(statusModel(input({ config })), 'default', 80);
    expect(text).not.toContain('\u001b');
    expect(text).toContain('/evil\\x1b[31m');
  });
});

describe('credentials injected at the edge (adr/0070)', () => {
  const config = fakeConfig({
    injections: [
      {
        key: 'GITHUB_TOKEN',
        rules: [
          { hosts: [{ name: 'api.github.com', port: 443 }], presentation: { kind: 'bearer' } },
          {
            hosts: [{ name: 'github.com', port: 443 }],
            presentation: { kind: 'basic', user: 'x-access-token' },
          },
        ],
        from: DEFAULT_LAYER,
      },
      {
        key: 'ANTHROPIC_API_KEY',
        rules: [
          {
            hosts: [{ name: 'api.anthropic.com', port: 443 }],
            presentation: { kind: 'header', name: 'x-api-key' },
          },
        ],
        from: { kind: 'project', name: 'project', path: '/p/byre.config' },
      },
    ],
  });

  it('is one row per injected key, from the config; the full tier says how each host gets it', () => {
    expect(table(input({ config })).get('Injected')).toEqual([
      'GITHUB_TOKEN -> injected at the edge for api.github.com, github.com; the box holds a sentinel  (default)',
      'ANTHROPIC_API_KEY -> injected at the edge for api.anthropic.com; the box holds a sentinel  (project)',
    ]);
    expect(table(input({ config }), 'full').get('Injected')).toEqual([
      'GITHUB_TOKEN -> injected at the edge for api.github.com, github.com; the box holds a sentinel  (default): api.github.com as Authorization: Bearer; github.com as Authorization: Basic (user x-access-token)',
      'ANTHROPIC_API_KEY -> injected at the edge for api.anthropic.com; the box holds a sentinel  (project): api.anthropic.com as header x-api-key',
    ]);
    expect(statusModel(input({ config })).data.injections[0]).toMatchObject({
      key: 'GITHUB_TOKEN',
      layer: 'default',
      hosts: ['api.github.com', 'github.com'],
    });
  });

  it('has no row when nothing is injected', () => {
    expect(table(input()).has('Injected')).toBe(false);
    expect(statusModel(input()).data.injections).toEqual([]);
    // Nor an Edge row, whatever the engine said.
    const edge = { state: 'up' as const, events: null };
    expect(table(input({ edge })).has('Edge')).toBe(false);
    expect(statusModel(input({ edge })).data.edge).toBeNull();
  });

  it.each([
    ['up', 'up for the running box: it alone holds the injected values'],
    [
      'down',
      'NOT up for the running box: requests to the injected hosts fail (the box holds only sentinels)',
    ],
    ['unknown', 'unknown — the engine did not say whether the edge runs'],
    ['no-box', 'starts with the box (byre develop asks the passphrase and hands it the values)'],
  ] as const)('says whether the edge is %s, beside the wall’s denials', (state, text) => {
    const i = input({ config, edge: { state, events: null } });
    expect(table(i).get('Edge')).toEqual([text]);
    expect(statusModel(i).data.edge).toEqual({ state, text, refused: null });
  });

  it('sums up what the running edge refused, as the box named it (escaped)', () => {
    const events = parseEdgeEvents(
      [
        'byre-edge 1 ready',
        'byre-edge 1 refused 1700000000 plain-http api.github.com',
        'byre-edge 1 refused 1700000001 plain-http api.github.com',
        'byre-edge 1 refused 1700000002 unknown-host evil\\033.test',
        'byre-edge 1 refused 1700000003 nonsense x',
      ].join('\n'),
    );
    const i = input({ config, edge: { state: 'up', events } });
    expect(table(i).get('Edge')).toEqual([
      'up for the running box: it alone holds the injected values',
      '3 requests refused at the edge (plain-http api.github.com ×2, unknown-host evil\\033.test)',
    ]);
  });
});

describe('credentials', () => {
  const rowsOf = (i: StatusInput): string[] => table(i).get('Credentials') ?? [];
  const config = fakeConfig({
    envFromHost: {
      API_KEY: sourced(SEALED),
      CERT: sourced(SEALED.replace('encrypted:', 'encrypted-file:'), DEFAULT_LAYER),
      SHADOWED: sourced(SEALED),
      TERM: sourced('env:TERM'),
    },
    env: { SHADOWED: sourced('literal') },
  });

  it('is one grant row per credential, attributed, with how they reach the next box', () => {
    const m = statusModel(input({ config }));
    expect(rowsOf(input({ config }))).toEqual([
      'API_KEY <- encrypted  (project)',
      'CERT <- encrypted-file  (default)',
      'SHADOWED <- encrypted  (project; overridden by [env], not delivered)',
      expect.stringMatching(
        /^delivered by byre develop \(it asks the passphrase\) over the credential channel/,
      ),
    ]);
    expect(m.data.credentials.map((c) => c.state)).toEqual(['sealed', 'sealed', 'overridden']);
    expect(m.data.host_env.map((e) => e.key)).toEqual([]);
  });

  it('counts delivered credentials in the develop banner', () => {
    expect(exposureLines(config, [], [])[0]).toBe(
      'byre: exposure: /workspace rw · 0 host mounts · 0 ports · 0 env vars · 2 credentials',
    );
  });

  const running = RUNNING_BOX;
  const record: LaunchRecord = { ...sampleRecord(), credentialKeys: ['API_KEY', 'CERT'] };
  const hash = launchRecordHash(renderLaunchRecord(record));

  it('says the running box got them when develop left a receipt', () => {
    const i = input({
      config,
      container: running,
      launch: { kind: 'verified', hash, record },
      nextLaunch: record,
      credentialsDelivered: ['API_KEY', 'CERT'],
    });
    expect(rowsOf(i)).toEqual([
      'API_KEY <- encrypted  (project; delivered)',
      'CERT <- encrypted-file  (default; delivered)',
      'delivered to this box over the credential channel (tmpfs /run/byre/credentials)',
    ]);
  });

  it('says NOT delivered without a receipt, and attributes keys config no longer has', () => {
    const i = input({
      config: fakeConfig(),
      container: running,
      launch: { kind: 'verified', hash, record },
      nextLaunch: record,
      credentialsDelivered: null,
    });
    expect(rowsOf(i)).toEqual([
      'API_KEY <- credential  (launch record; NOT delivered)',
      'CERT <- credential  (launch record; NOT delivered)',
      expect.stringMatching(/^NOT delivered to this box: API_KEY, CERT/),
    ]);
  });
});

describe('develop banner (same model)', () => {
  it('exposure, network and one loud line per hole or shadow', () => {
    const config = fakeConfig({
      mounts: [
        sourced({ host: '/a', target: '/a', mode: 'ro', disabled: false }),
        sourced({ host: '/b', target: '/etc', mode: 'ro', disabled: false }),
        sourced({ host: '/c', target: '/c', mode: 'ro', disabled: true }),
      ],
      ports: [sourced({ container: 1, host: 0, interface: '127.0.0.1' })],
    });
    const skills = [firewall({ containment: 'host network' })];
    const lines = exposureLines(config, skills, [hostEnv('TERM', 'delivered')]);
    expect(lines).toEqual([
      'byre: exposure: /workspace rw · 2 host mounts (+1 disabled) · 1 port · 1 env var',
      'byre: network deny-by-default  (skill: byre/firewall)',
      'byre: 🛑 containment hole: host network  (skill: byre/firewall)',
      'byre: 🛑 containment hole: mount over /etc shadows byre-managed /etc/byre  (project)',
    ]);
  });

  it('agrees with status on the network line', () => {
    const i = input({ skills: [firewall()], config: fakeConfig({ runArgs: [sourced('--x')] }) });
    const m = statusModel(i);
    const status = table(i).get('Network')?.[0];
    const banner = bannerLines(m.data)[1];
    expect(banner).toBe(`byre: network ${status ?? ''}`);
  });
});

describe('raw run_args are grants like any other (adr/0051)', () => {
  const config = fakeConfig({
    runArgs: [
      sourced('--privileged'),
      sourced('-v'),
      sourced('/srv/data:/data:ro'),
      sourced('--mount=type=bind,source=/var/run/docker.sock,target=/s,readonly', DEFAULT_LAYER),
      sourced('-p'),
      sourced('9000:9000'),
      sourced('-e'),
      sourced('GH_TOKEN'),
      sourced('--frobnicate'),
      sourced('--init'),
    ],
  });
  const gemini = fakeSkill('byre/gemini', 'bundled', {
    runtime: { ...fakeSkill('x', 'local').runtime, runArgs: ['--hostname', 'byre', '--pid=host'] },
  });

  it('counts raw binds and ports in the banner (never "0 host mounts") and names each', () => {
    expect(exposureLines(config, [gemini], [])).toEqual([
      'byre: exposure: /workspace rw · 2 host mounts (2 via run_args) · 1 port (1 via run_args) · 0 env vars',
      'byre: network open  (declared; raw run_args present — not guaranteed)',
      "byre: 🛑 containment hole: --pid=host: shares the host's PID namespace (it sees and signals their processes)  (run_args: skill byre/gemini)",
      'byre: 🛑 containment hole: --privileged: every capability and host device, confinement off  (run_args: project)',
      'byre: run_args -v /srv/data:/data:ro: binds host /srv/data at /data (ro; -v)  (run_args: project)',
      'byre: 🛑 containment hole: --mount=type=bind,source=/var/run/docker.sock,target=/s,readonly: binds the engine socket (/var/run/docker.sock): root on the host, read-only or not  (run_args: default)',
      'byre: run_args -p 9000:9000: publishes 9000:9000  (run_args: project)',
      "byre: run_args -e GH_TOKEN: passes the host's GH_TOKEN  (run_args: project)",
      'byre: run_args --frobnicate: not introspected, passed through as written  (run_args: project)',
    ]);
  });

  it('lists them with the holes, mounts and ports in status, and each raw entry, attributed', () => {
    const t = table(input({ config, skills: [gemini] }));
    expect(t.get('Containment')).toEqual([
      "🛑 HOLE -- --pid=host: shares the host's PID namespace (it sees and signals their processes)  (run_args: skill byre/gemini)",
      '🛑 HOLE -- --privileged: every capability and host device, confinement off  (run_args: project)',
      '🛑 HOLE -- --mount=type=bind,source=/var/run/docker.sock,target=/s,readonly: binds the engine socket (/var/run/docker.sock): root on the host, read-only or not  (run_args: default)',
    ]);
    expect(t.get('Host mounts')).toEqual([
      '/srv/data -> /data  (ro)  (run_args: project)',
      '/var/run/docker.sock -> /s  (ro)  (run_args: default)',
    ]);
    expect(t.get('Ports')).toEqual(['-p 9000:9000  (run_args: project)']);
    expect(t.get('Raw run args')).toEqual([
      '--hostname byre — widens nothing  (skill byre/gemini)',
      "--pid=host — 🛑 shares the host's PID namespace (it sees and signals their processes)  (skill byre/gemini)",
      '--privileged — 🛑 every capability and host device, confinement off  (project)',
      '-v /srv/data:/data:ro — binds host /srv/data at /data (ro; -v)  (project)',
      '--mount=type=bind,source=/var/run/docker.sock,target=/s,readonly — 🛑 binds the engine socket (/var/run/docker.sock): root on the host, read-only or not  (default)',
      '-p 9000:9000 — publishes 9000:9000  (project)',
      "-e GH_TOKEN — passes the host's GH_TOKEN  (project)",
      '--frobnicate — not introspected; passed through as written  (project)',
      '--init — widens nothing  (project)',
    ]);
  });

  it('--data carries each entry read as the engine reads it; run_args stays the verbatim list', () => {
    const d = statusModel(input({ config })).data;
    expect(d.run_args).toEqual(config.runArgs.map((a) => a.value));
    expect(d.raw_run_args[1]).toEqual({
      argv: ['-v', '/srv/data:/data:ro'],
      source: 'project',
      effect: 'mount',
      what: 'binds host /srv/data at /data (ro; -v)',
      mount: { host: '/srv/data', target: '/data', mode: 'ro' },
      port: null,
    });
    expect(d.raw_run_args.map((r) => r.effect)).toEqual([
      'hole',
      'mount',
      'hole',
      'port',
      'env',
      'unknown',
      'inert',
    ]);
  });

  it('describes the running box by its launch record: attributed while it matches the config', () => {
    const record: LaunchRecord = { ...sampleRecord(), runArgs: ['--network=host'] };
    const hash = launchRecordHash(renderLaunchRecord(record));
    const running = (c: EffectiveConfig): Map<string, string[]> =>
      table(
        input({
          config: c,
          container: RUNNING_BOX,
          launch: { kind: 'verified', hash, record },
          nextLaunch: record,
        }),
      );
    const same = fakeConfig({ runArgs: [sourced('--network=host')] });
    expect(running(same).get('Containment')).toEqual([
      "🛑 HOLE -- --network=host: shares the host's network stack (every host port and interface, localhost services included)  (run_args: project)",
    ]);
    // The config dropped it since: the box still has it, from its record.
    expect(running(fakeConfig()).get('Containment')).toEqual([
      "🛑 HOLE -- --network=host: shares the host's network stack (every host port and interface, localhost services included)  (run_args: launch record)",
    ]);
  });
});

describe('status says only what is true', () => {
  const GO: LayerRef = { kind: 'template', name: 'byre/go', path: null };
  const openDenylist = (): ResolvedSkill =>
    fakeSkill('byre/firewall-open', 'bundled', {
      runtime: { ...firewall().runtime, networkPosture: 'open-denylist' },
    });
  const agent = (egress: string[]): ResolvedSkill =>
    fakeSkill('byre/claude', 'bundled', {
      runtime: { ...fakeSkill('x', 'local').runtime, egress },
    });
  const remote = (headers: Record<string, string> = {}, env: string[] = []) =>
    sourced({ name: 'gh', url: 'https://g.com/mcp', env, egress: [], headers });
  const stdio = (env: string[]) =>
    sourced({ name: 'fs', command: ['mcp-fs'], env, egress: [], headers: {} });
  const stdioTo = (egress: string[]) =>
    sourced({ name: 'fs', command: ['mcp-fs'], env: [], egress, headers: {} });
  const HINT =
    'to open a host: byre config (Egress), or add it to egress in /home/ada/.byre/projects/app-1a2b3c/byre.config';
  const MCP_UNDELIVERED =
    'declared; NOT delivered: no agent is selected (baked at /etc/byre/mcp.json for anything that wants it)';

  // [name, input, label, every value under that label, in order]
  type Exact = [string, Partial<StatusInput>, string, string[] | undefined];
  const exact: Exact[] = [
    // MCP: each consumed env var, and who provides it.
    [
      'an MCP env var delivered from the host',
      {
        config: fakeConfig({ mcp: [stdio(['GH_TOKEN'])] }),
        hostEnv: [hostEnv('GH_TOKEN', 'delivered')],
      },
      'MCP servers',
      [
        'fs  mcp-fs  (project; reads GH_TOKEN)',
        '↳ env GH_TOKEN: provided by env_from_host env:GH_TOKEN',
        MCP_UNDELIVERED,
      ],
    ],
    [
      'an MCP env var baked from [env]',
      { config: fakeConfig({ mcp: [stdio(['GH_TOKEN'])], env: { GH_TOKEN: sourced('x') } }) },
      'MCP servers',
      [
        'fs  mcp-fs  (project; reads GH_TOKEN)',
        '↳ env GH_TOKEN: provided by [env]',
        MCP_UNDELIVERED,
      ],
    ],
    [
      "an MCP env var set by a skill's env",
      {
        config: fakeConfig({ mcp: [stdio(['GH_TOKEN'])] }),
        skills: [
          fakeSkill('me/gh', 'local', {
            runtime: { ...fakeSkill('x', 'local').runtime, env: { GH_TOKEN: 'x' } },
          }),
        ],
      },
      'MCP servers',
      [
        'fs  mcp-fs  (project; reads GH_TOKEN)',
        '↳ env GH_TOKEN: provided by skill me/gh',
        MCP_UNDELIVERED,
      ],
    ],
    [
      'an MCP env var sealed as a credential',
      {
        config: fakeConfig({
          mcp: [stdio(['GH_TOKEN'])],
          envFromHost: { GH_TOKEN: sourced(SEALED) },
        }),
      },
      'MCP servers',
      [
        'fs  mcp-fs  (project; reads GH_TOKEN)',
        '↳ env GH_TOKEN: provided by encrypted credential (project)',
        MCP_UNDELIVERED,
      ],
    ],
    [
      'an MCP env var nothing sets',
      { config: fakeConfig({ mcp: [stdio(['GH_TOKEN'])] }) },
      'MCP servers',
      [
        'fs  mcp-fs  (project; reads GH_TOKEN)',
        '↳ env GH_TOKEN: NOT provided — nothing sets it; add it to env_from_host or [env]',
        MCP_UNDELIVERED,
      ],
    ],
    [
      'an MCP env var whose host source is empty',
      {
        config: fakeConfig({ mcp: [stdio(['GH_TOKEN'])] }),
        hostEnv: [hostEnv('GH_TOKEN', 'empty')],
      },
      'MCP servers',
      [
        'fs  mcp-fs  (project; reads GH_TOKEN)',
        '↳ env GH_TOKEN: NOT provided — env_from_host env:GH_TOKEN is empty on this host',
        MCP_UNDELIVERED,
      ],
    ],
    [
      'an MCP env var whose host entry is disabled',
      {
        config: fakeConfig({ mcp: [stdio(['GH_TOKEN'])] }),
        hostEnv: [hostEnv('GH_TOKEN', 'disabled', '')],
      },
      'MCP servers',
      [
        'fs  mcp-fs  (project; reads GH_TOKEN)',
        '↳ env GH_TOKEN: NOT provided — nothing sets it; add it to env_from_host or [env]',
        MCP_UNDELIVERED,
      ],
    ],
    [
      'a header ${VAR} is consumed env too',
      {
        config: fakeConfig({ mcp: [remote({ Authorization: 'Bearer ${GH_PAT}' }, ['GH_PAT'])] }),
      },
      'MCP servers',
      [
        'gh  https://g.com/mcp  (project; reads GH_PAT)',
        '↳ env GH_PAT: NOT provided — nothing sets it; add it to env_from_host or [env]',
        MCP_UNDELIVERED,
      ],
    ],
    // MCP: a remote endpoint the firewall shuts is not operational.
    [
      'a remote MCP endpoint closed under the allowlist',
      {
        skills: [firewall()],
        config: fakeConfig({
          mcp: [remote()],
          egressClosed: [sourced({ host: 'g.com', port: null })],
        }),
      },
      'MCP servers',
      [
        'gh  https://g.com/mcp  (project)',
        "↳ NOT operational: its endpoint g.com:443 is closed by project's '!g.com' under the allowlist",
        MCP_UNDELIVERED,
      ],
    ],
    [
      'a remote MCP endpoint blocked by the denylist',
      {
        skills: [openDenylist()],
        config: fakeConfig({
          mcp: [remote()],
          egressClosed: [sourced({ host: 'g.com', port: 443 })],
        }),
      },
      'MCP servers',
      [
        'gh  https://g.com/mcp  (project)',
        "↳ NOT operational: its endpoint g.com:443 is blocked by project's '!g.com:443'",
        MCP_UNDELIVERED,
      ],
    ],
    [
      'a closure on an open network leaves a remote MCP server working',
      {
        config: fakeConfig({
          mcp: [remote()],
          egressClosed: [sourced({ host: 'g.com', port: null })],
        }),
      },
      'MCP servers',
      ['gh  https://g.com/mcp  (project)', MCP_UNDELIVERED],
    ],
    [
      'a closure of another port leaves the endpoint open',
      {
        skills: [firewall()],
        config: fakeConfig({
          mcp: [remote()],
          egressClosed: [sourced({ host: 'g.com', port: 80 })],
        }),
      },
      'MCP servers',
      ['gh  https://g.com/mcp  (project)', MCP_UNDELIVERED],
    ],
    [
      "a stdio MCP server's declared egress closed under the allowlist",
      {
        skills: [firewall()],
        config: fakeConfig({
          mcp: [stdioTo(['api.gh.com'])],
          egressClosed: [sourced({ host: 'api.gh.com', port: null })],
        }),
      },
      'MCP servers',
      [
        'fs  mcp-fs  (project; +egress api.gh.com)',
        "↳ NOT operational: its egress api.gh.com:443 is closed by project's '!api.gh.com' under the allowlist",
        MCP_UNDELIVERED,
      ],
    ],
    [
      "a stdio MCP server's declared egress blocked by the denylist",
      {
        skills: [openDenylist()],
        config: fakeConfig({
          mcp: [stdioTo(['api.gh.com:8443'])],
          egressClosed: [sourced({ host: 'api.gh.com', port: null })],
        }),
      },
      'MCP servers',
      [
        'fs  mcp-fs  (project; +egress api.gh.com:8443)',
        "↳ NOT operational: its egress api.gh.com:8443 is blocked by project's '!api.gh.com'",
        MCP_UNDELIVERED,
      ],
    ],
    [
      "a stdio MCP server's declared egress open under the allowlist",
      { skills: [firewall()], config: fakeConfig({ mcp: [stdioTo(['api.gh.com'])] }) },
      'MCP servers',
      ['fs  mcp-fs  (project; +egress api.gh.com)', MCP_UNDELIVERED],
    ],
    [
      "a closure on an open network leaves a stdio server's egress working",
      {
        config: fakeConfig({
          mcp: [stdioTo(['api.gh.com'])],
          egressClosed: [sourced({ host: 'api.gh.com', port: null })],
        }),
      },
      'MCP servers',
      ['fs  mcp-fs  (project; +egress api.gh.com)', MCP_UNDELIVERED],
    ],
    // MCP: declared extra egress is on the row whatever the posture (adr/0059).
    [
      "a remote server's declared egress on an open network",
      {
        config: fakeConfig({
          mcp: [sourced({ ...remote().value, egress: ['auth.g.com'] })],
        }),
      },
      'MCP servers',
      ['gh  https://g.com/mcp  (project; +egress auth.g.com)', MCP_UNDELIVERED],
    ],
    [
      "a remote server's declared egress under the denylist",
      {
        skills: [openDenylist()],
        config: fakeConfig({ mcp: [sourced({ ...remote().value, egress: ['auth.g.com'] })] }),
      },
      'MCP servers',
      ['gh  https://g.com/mcp  (project; +egress auth.g.com)', MCP_UNDELIVERED],
    ],
    // MCP: a stdio server that declares no egress, under an allowlist: outbound unknown.
    [
      'a stdio server with no declared egress under the allowlist',
      { skills: [firewall()], config: fakeConfig({ mcp: [stdio(['GH_TOKEN'])] }) },
      'MCP servers',
      [
        'fs  mcp-fs  (project; reads GH_TOKEN)',
        '↳ env GH_TOKEN: NOT provided — nothing sets it; add it to env_from_host or [env]',
        '↳ outbound unknown: under deny-by-default only allowlisted hosts leave the box, and this server declares none; if it needs the network, declare its hosts in its egress',
        MCP_UNDELIVERED,
      ],
    ],
    [
      'a stdio server with no declared egress on an open network',
      { config: fakeConfig({ mcp: [stdio([])] }) },
      'MCP servers',
      ['fs  mcp-fs  (project)', MCP_UNDELIVERED],
    ],
    [
      'a stdio server with no declared egress under the denylist',
      { skills: [openDenylist()], config: fakeConfig({ mcp: [stdio([])] }) },
      'MCP servers',
      ['fs  mcp-fs  (project)', MCP_UNDELIVERED],
    ],
    [
      'a remote server with no declared egress under the allowlist: its endpoint is known',
      { skills: [firewall()], config: fakeConfig({ mcp: [remote()] }) },
      'MCP servers',
      ['gh  https://g.com/mcp  (project)', MCP_UNDELIVERED],
    ],
    [
      "a skill-declared server's egress",
      {
        skills: [
          fakeSkill('me/gh', 'local', {
            mcp: [
              {
                name: 'gh',
                url: 'https://g.com/mcp',
                env: [],
                egress: ['a.g.com:8443'],
                headers: {},
              },
            ],
          }),
        ],
      },
      'MCP servers',
      ['gh  https://g.com/mcp  (skill me/gh; +egress a.g.com:8443)', MCP_UNDELIVERED],
    ],
    [
      'a remote server: its endpoint and a declared host both closed, each named',
      {
        skills: [firewall()],
        config: fakeConfig({
          mcp: [sourced({ ...remote().value, egress: ['uploads.g.com', 'g.com'] })],
          egressClosed: [
            sourced({ host: 'g.com', port: null }),
            sourced({ host: 'uploads.g.com', port: 443 }),
          ],
        }),
      },
      'MCP servers',
      [
        'gh  https://g.com/mcp  (project; +egress uploads.g.com, g.com)',
        "↳ NOT operational: its endpoint g.com:443 is closed by project's '!g.com' under the allowlist; its egress uploads.g.com:443 is closed by project's '!uploads.g.com:443' under the allowlist",
        MCP_UNDELIVERED,
      ],
    ],
    // Egress: only grants are listed.
    [
      'skill egress on an open network is not a grant',
      { skills: [agent(['api.x.com'])] },
      'Egress',
      undefined,
    ],
    [
      'skill egress under the denylist is not a grant',
      { skills: [agent(['api.x.com']), openDenylist()] },
      'Egress',
      undefined,
    ],
    [
      'mcp egress on an open network is not a grant',
      { config: fakeConfig({ mcp: [remote()] }) },
      'Egress',
      undefined,
    ],
    [
      'config egress on an open network is listed as doing nothing',
      {
        skills: [agent(['api.x.com'])],
        config: fakeConfig({ egress: [sourced({ host: 'api.x.com', port: 443 })] }),
      },
      'Egress',
      ['api.x.com:443  (byre/claude, config) — unenforced, network open'],
    ],
    [
      'under the allowlist the Egress row shows even when empty, with the way to open a host',
      { skills: [firewall()] },
      'Egress',
      ['none — the box reaches no host', HINT],
    ],
    [
      'under the allowlist with every entry closed, the box reaches no host',
      {
        skills: [firewall({ egress: ['api.x.com'] })],
        config: fakeConfig({ egressClosed: [sourced({ host: 'api.x.com', port: null })] }),
      },
      'Egress',
      [
        'none — the box reaches no host',
        "api.x.com:443  (byre/firewall) — closed by config '!api.x.com'",
        HINT,
      ],
    ],
    [
      'offered hosts from a template and a skill, grouped by who offers them',
      {
        skills: [firewall({ egressOffered: ['github.com', 'deb.debian.org:80', 'not a host!'] })],
        config: fakeConfig({
          egressOffered: [
            sourced({ host: 'proxy.golang.org', port: 443 }, GO),
            sourced({ host: 'sum.golang.org', port: 443 }, GO),
          ],
        }),
      },
      'Egress',
      [
        'none — the box reaches no host',
        'offered, not open: proxy.golang.org, sum.golang.org  (template byre/go)',
        'offered, not open: github.com, deb.debian.org:80  (byre/firewall)',
        `${HINT} (egress = ["proxy.golang.org"])`,
      ],
    ],
    [
      'an offered host already open, or closed on purpose, is not offered',
      {
        skills: [firewall({ egressOffered: ['github.com', 'sum.golang.org', 'x.org:8080'] })],
        config: fakeConfig({
          egress: [sourced({ host: 'github.com', port: 443 })],
          egressClosed: [sourced({ host: 'sum.golang.org', port: null })],
        }),
      },
      'Egress',
      [
        'github.com:443  (config)',
        'offered, not open: x.org:8080  (byre/firewall)',
        `${HINT} (egress = ["x.org:8080"])`,
      ],
    ],
    [
      'offered hosts are not listed on an open network (they are reachable)',
      {
        skills: [agent([]), openDenylist()],
        config: fakeConfig({ egressOffered: [sourced({ host: 'a.org', port: 443 }, GO)] }),
      },
      'Egress',
      undefined,
    ],
    // Closures: what each does under the posture.
    [
      'a closure under the allowlist is enforced',
      {
        skills: [firewall()],
        config: fakeConfig({ egressClosed: [sourced({ host: 'a.com', port: null })] }),
      },
      'Closed',
      ['!a.com  (project) — enforced: outside the allowlist'],
    ],
    [
      'a closure under the denylist is blocked',
      {
        skills: [openDenylist()],
        config: fakeConfig({ egressClosed: [sourced({ host: 'a.com', port: 80 })] }),
      },
      'Closed',
      ['!a.com:80  (project) — blocked by the denylist'],
    ],
    [
      'a closure on an open network is unenforced',
      { config: fakeConfig({ egressClosed: [sourced({ host: 'a.com', port: null })] }) },
      'Closed',
      ['!a.com  (project) — unenforced, network open'],
    ],
    [
      'a closure under a degraded firewall is not guaranteed',
      {
        skills: [firewall()],
        config: fakeConfig({
          egressClosed: [sourced({ host: 'a.com', port: null })],
          dockerfilePost: [sourced('RUN x')],
        }),
      },
      'Closed',
      ['!a.com  (project) — enforced: outside the allowlist (not guaranteed)'],
    ],
    [
      'a closure with skills unresolved is unknown',
      {
        skillError: 'nope',
        config: fakeConfig({ egressClosed: [sourced({ host: 'a.com', port: null })] }),
      },
      'Closed',
      ['!a.com  (project) — unknown: skills unresolved'],
    ],
    // The network claim.
    [
      'raw run_args make an open network a declaration',
      { config: fakeConfig({ runArgs: [sourced('--network=host')] }) },
      'Network',
      ['open  (declared; raw run_args present — not guaranteed)'],
    ],
    [
      'raw build lines cannot change an open network',
      { config: fakeConfig({ dockerfilePre: [sourced('RUN x')] }) },
      'Network',
      ['open'],
    ],
    // Host env: a disabled entry passes nothing and is not listed.
    [
      'a disabled host env entry is not listed',
      { hostEnv: [hostEnv('TERM', 'delivered'), hostEnv('TZ', 'disabled', '')] },
      'Host env',
      ['1 key from host: TERM  (env_from_host; --full for sources)'],
    ],
    [
      'only disabled host env: no row',
      { hostEnv: [hostEnv('TZ', 'disabled', '')] },
      'Host env',
      undefined,
    ],
    // Who started the box.
    [
      'a box with no byre.client pid was started outside byre, not orphaned',
      {
        container: {
          state: 'running',
          id: 'abcdef0123456789',
          engine: 'podman',
          clientPid: null,
          clientAlive: null,
        },
        launch: { kind: 'pre_record' },
      },
      'Container',
      [
        'running (abcdef012345) on podman — started outside byre (no byre.client pid: e.g. by hand from the command byre dockerrun prints); stop it with `podman stop abcdef012345`',
        '⚠ the box was started outside byre (no byre.client pid: e.g. by hand from the command byre dockerrun prints), so it carries no launch record; the rows above describe the CURRENT CONFIG, not necessarily this box.',
      ],
    ],
    [
      'a box whose byre.client label is not a pid: who started it is unknown',
      {
        container: {
          state: 'running',
          id: 'abcdef0123456789',
          engine: 'docker',
          clientPid: null,
          clientAlive: null,
          clientLabelUnreadable: true,
        },
        launch: { kind: 'pre_record' },
      },
      'Container',
      [
        'running (abcdef012345) on docker — its byre.client label is not a pid, so byre cannot tell who started it or whether that byre still runs; stop it with `docker stop abcdef012345`',
        '⚠ the box carries no launch record; the rows above describe the CURRENT CONFIG, not necessarily this box.',
      ],
    ],
  ];
  it.each(exact)('%s', (_name, over, label, expected) => {
    expect(table(input(over)).get(label)).toEqual(expected);
  });

  it('--data: a remote endpoint shut by the allowlist, and each env var, as data', () => {
    const d = statusModel(
      input({
        skills: [firewall()],
        config: fakeConfig({
          mcp: [remote({ Authorization: 'Bearer ${GH_PAT}' }, ['GH_TOKEN'])],
          egressClosed: [sourced({ host: 'g.com', port: null })],
          env: { GH_TOKEN: sourced('x') },
        }),
      }),
    ).data;
    expect(d.mcp_servers).toEqual([
      {
        name: 'gh',
        transport: 'url',
        target: 'https://g.com/mcp',
        env: [
          { key: 'GH_TOKEN', provided_by: '[env]', missing: null },
          {
            key: 'GH_PAT',
            provided_by: null,
            missing: 'nothing sets it; add it to env_from_host or [env]',
          },
        ],
        operational: false,
        not_operational:
          "its endpoint g.com:443 is closed by project's '!g.com' under the allowlist",
        egress: [],
        outbound_unknown: null,
        source: 'project',
      },
    ]);
  });

  it('--data: a credential the running box did not get does not provide the env var', () => {
    const record: LaunchRecord = { ...sampleRecord(), credentialKeys: ['GH_TOKEN'] };
    const hash = launchRecordHash(renderLaunchRecord(record));
    const d = statusModel(
      input({
        config: fakeConfig({
          mcp: [stdio(['GH_TOKEN'])],
          envFromHost: { GH_TOKEN: sourced(SEALED) },
        }),
        container: {
          state: 'running',
          id: 'a'.repeat(16),
          engine: 'docker',
          clientPid: 1,
          clientAlive: true,
        },
        launch: { kind: 'verified', hash, record },
        nextLaunch: record,
        credentialsDelivered: null,
      }),
    ).data;
    expect(d.mcp_servers[0]?.env).toEqual([
      {
        key: 'GH_TOKEN',
        provided_by: null,
        missing: 'its credential was NOT delivered to this box',
      },
    ]);
  });

  // [name, config overrides, host env now, skills now, the record's -e keys, expected fact]
  type BoxEnvCase = [
    string,
    Partial<EffectiveConfig>,
    HostEnvEntry[],
    ResolvedSkill[],
    string[],
    { provided_by: string | null; missing: string | null },
  ];
  const ghSkill = fakeSkill('me/gh', 'local', {
    runtime: { ...fakeSkill('x', 'local').runtime, env: { GH_TOKEN: 'x' } },
  });
  const boxEnv: BoxEnvCase[] = [
    [
      'host env the config delivers now, not passed at launch',
      {},
      [hostEnv('GH_TOKEN', 'delivered')],
      [],
      ['TERM'],
      {
        provided_by: null,
        missing:
          'not passed to this box at launch (env_from_host env:GH_TOKEN sets it now: the next develop passes it)',
      },
    ],
    [
      "a skill's env added since launch",
      {},
      [],
      [ghSkill],
      ['TERM'],
      {
        provided_by: null,
        missing:
          'not passed to this box at launch (skill me/gh sets it now: the next develop passes it)',
      },
    ],
    [
      'passed at launch, no longer set by the config',
      {},
      [],
      [],
      ['GH_TOKEN', 'TERM'],
      { provided_by: "the box's launch env (the next develop would not pass it)", missing: null },
    ],
    [
      'passed at launch, its host source empty now',
      {},
      [hostEnv('GH_TOKEN', 'empty')],
      [],
      ['GH_TOKEN'],
      { provided_by: "the box's launch env (the next develop would not pass it)", missing: null },
    ],
    [
      'passed at launch and delivered now',
      {},
      [hostEnv('GH_TOKEN', 'delivered')],
      [],
      ['GH_TOKEN'],
      { provided_by: 'env_from_host env:GH_TOKEN', missing: null },
    ],
    [
      'not passed at launch, but baked by [env]',
      { env: { GH_TOKEN: sourced('x') } },
      [],
      [ghSkill],
      ['TERM'],
      { provided_by: '[env]', missing: null },
    ],
    [
      'never set, then or now',
      {},
      [],
      [],
      ['TERM'],
      { provided_by: null, missing: 'nothing sets it; add it to env_from_host or [env]' },
    ],
  ];
  it.each(boxEnv)(
    '--data, a running box: MCP env %s',
    (_name, over, hostNow, skillsNow, keys, fact) => {
      const record: LaunchRecord = {
        ...sampleRecord(),
        envKeys: envKeysOf(Object.fromEntries(keys.map((k) => [k, '']))),
      };
      const hash = launchRecordHash(renderLaunchRecord(record));
      const given = input({
        config: fakeConfig({ mcp: [stdio(['GH_TOKEN'])], ...over }),
        hostEnv: hostNow,
        skills: skillsNow,
        container: RUNNING_BOX,
        launch: { kind: 'verified', hash, record },
        nextLaunch: record,
      });
      const d = statusModel(given).data;
      expect(d.subject).toBe('running_box');
      expect(d.mcp_servers[0]?.env).toEqual([{ key: 'GH_TOKEN', ...fact }]);
      expect(table(given).get('MCP servers')?.[1]).toBe(
        fact.provided_by === null
          ? `↳ env GH_TOKEN: NOT provided — ${fact.missing}`
          : `↳ env GH_TOKEN: provided by ${fact.provided_by}`,
      );
    },
  );

  it('MCP env byre sets in every box is provided, for the next launch and a running box', () => {
    const config = fakeConfig({ mcp: [stdio(['BYRE_PROJECT'])] });
    const record = sampleRecord();
    const hash = launchRecordHash(renderLaunchRecord(record));
    const next = statusModel(input({ config })).data;
    const box = statusModel(
      input({
        config,
        container: RUNNING_BOX,
        launch: { kind: 'verified', hash, record },
        nextLaunch: record,
      }),
    ).data;
    for (const d of [next, box]) {
      expect(d.mcp_servers[0]?.env).toEqual([
        { key: 'BYRE_PROJECT', provided_by: 'byre (every box)', missing: null },
      ]);
    }
  });

  it('--data: an open network with raw run_args is neither warranted nor undegraded', () => {
    const n = statusModel(input({ config: fakeConfig({ runArgs: [sourced('--network=none')] }) }))
      .data.network;
    expect(n).toMatchObject({ posture: 'open', warranted: false, degraded_by: ['raw run_args'] });
    const plain = statusModel(input()).data.network;
    expect(plain).toMatchObject({ posture: 'open', warranted: false, degraded_by: [] });
    const wall = statusModel(input({ skills: [firewall()] })).data.network;
    expect(wall).toMatchObject({ warranted: true, degraded_by: [] });
  });

  it('--data: skill and mcp egress on an open network are not listed; offered only under the allowlist', () => {
    const config = fakeConfig({
      mcp: [remote()],
      egress: [sourced({ host: 'pypi.org', port: 443 })],
      egressOffered: [sourced({ host: 'a.org', port: 443 }, GO)],
    });
    const open = statusModel(input({ config, skills: [agent(['api.x.com'])] })).data.network;
    expect(open.egress).toEqual([
      {
        host: 'pypi.org',
        port: 443,
        source: ['config'],
        enforced: false,
        closed_by: null,
        resolution: null,
      },
    ]);
    expect(open.offered).toEqual([]);
    const walled = statusModel(input({ config, skills: [agent(['api.x.com']), firewall()] })).data
      .network;
    expect(walled.egress.map((e) => `${e.host}:${e.port}`)).toEqual([
      'api.x.com:443',
      'g.com:443',
      'pypi.org:443',
    ]);
    expect(walled.offered).toEqual([{ host: 'a.org', port: 443, source: ['template byre/go'] }]);
  });

  it('--data: closures carry their state; disabled host env is omitted', () => {
    const config = fakeConfig({ egressClosed: [sourced({ host: 'a.com', port: null })] });
    const states = (skills: ResolvedSkill[], skillError: string | null = null) =>
      statusModel(input({ config, skills, skillError })).data.network.closed.map((c) => c.state);
    expect(states([])).toEqual(['unenforced']);
    expect(states([firewall()])).toEqual(['enforced']);
    expect(states([openDenylist()])).toEqual(['blocked']);
    expect(states([], 'x')).toEqual(['unknown']);
    const d = statusModel(
      input({ hostEnv: [hostEnv('TERM', 'delivered'), hostEnv('TZ', 'disabled', '')] }),
    ).data;
    expect(d.host_env.map((e) => e.key)).toEqual(['TERM']);
  });

  const labels: [string | undefined, number | null, boolean][] = [
    ['4242', 4242, false],
    [undefined, null, false],
    ['', null, true],
    ['0', null, true],
    ['-1', null, true],
    ['12x', null, true],
    [' 12', null, true],
    ['99999999999', null, true],
  ];
  it.each(labels)('the byre.client label %j reads as pid %j, unreadable %j', (raw, pid, bad) => {
    expect(readClientLabel(raw)).toEqual({ clientPid: pid, clientLabelUnreadable: bad });
  });

  it('--data: a box started outside byre is not orphaned, and its launch state says so', () => {
    const running = (clientPid: number | null, clientAlive: boolean | null) =>
      statusModel(
        input({
          container: {
            state: 'running',
            id: 'a'.repeat(16),
            engine: 'docker',
            clientPid,
            clientAlive,
          },
          launch: { kind: 'pre_record' },
        }),
      ).data;
    const outside = running(null, null);
    expect(outside.container).toMatchObject({
      orphaned: false,
      outside_byre: true,
      client_pid: null,
    });
    expect(outside.launch.state).toBe('outside_byre');
    const orphan = running(7, false);
    expect(orphan.container).toMatchObject({ orphaned: true, outside_byre: false, client_pid: 7 });
    expect(orphan.launch.state).toBe('pre_record');
    expect(running(7, true).container).toMatchObject({ orphaned: false, outside_byre: false });
    const unreadable = statusModel(
      input({
        container: {
          state: 'running',
          id: 'a'.repeat(16),
          engine: 'docker',
          clientPid: null,
          clientAlive: null,
          clientLabelUnreadable: true,
        },
        launch: { kind: 'pre_record' },
      }),
    ).data;
    expect(unreadable.container).toMatchObject({
      orphaned: false,
      outside_byre: false,
      client_label_unreadable: true,
      client_pid: null,
    });
    expect(unreadable.launch.state).toBe('pre_record');
  });

  it('--full: instruction text one row per line, never a literal \\n; raw build keeps its caveat', () => {
    const config = fakeConfig({
      context: [sourced({ name: 'house', text: 'Be terse.\n\nRun the tests.\n' })],
      dockerfilePre: [sourced('RUN a')],
    });
    const t = table(input({ config }), 'full');
    expect(t.get('Instructions')).toEqual([
      'house  (project): Be terse.',
      '  Run the tests.',
      'declared; NOT delivered: no agent is selected (baked at /etc/byre/context for anything that wants it)',
    ]);
    expect(t.get('Raw build')).toEqual(['1 line  (not introspected):', 'RUN a']);
    const page = renderStatusText(statusModel(input({ config })), 'full', 80);
    expect(page).not.toContain('\\n');
    expect(page).toContain('not introspected');
  });
});

describe('the Denied row: names the box chose reach the terminal inert', () => {
  it('an escaped name stays escaped text; no control byte is written', () => {
    const text = renderStatusText(
      statusModel(
        input({
          skills: [firewall()],
          wall: {
            of: 'running_box',
            events: parseWallLog(
              [
                'byre-wall 1 refused-name 1764660000 a\\027b.example A',
                'byre-wall 1 refused-name 1764660000 \u001b[31mred.example A',
              ].join('\n'),
            ),
            error: null,
          },
        }),
      ),
      'full',
      120,
    );
    expect(text).toContain('name a\\027b.example');
    expect(text).not.toContain('red.example');
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });

  it('--data carries the denials; the schema accepts them', async () => {
    const { statusDataSchema } = await import('./data-schema.js');
    const data = statusModel(
      input({
        skills: [firewall({ egress: ['api.x.com'] })],
        wall: {
          of: 'running_box',
          events: parseWallLog('byre-wall 1 refused-connect 1764660000 tcp 10.0.0.5 443 count=2'),
          error: null,
        },
      }),
    ).data;
    expect(statusDataSchema().parse(data).network.denials?.connects).toEqual([
      {
        proto: 'tcp',
        address: '10.0.0.5',
        port: 443,
        count: 2,
        first: '2025-12-02T07:20:00Z',
        last: '2025-12-02T07:20:00Z',
      },
    ]);
    expect(data.network.egress[0]?.resolution).toBe('not_resolved');
  });
});
