import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CORE_REF, coreLayer } from './core-layer.js';
import { egressKey, closureCovers } from './egress-entry.js';
import { mergeLayers } from './merge.js';
import { normalizeTarget } from './grammar.js';
import type { RawLayer } from './schema.js';
import type { EffectiveConfig, LayerKind, LayerRef, Sourced } from './types.js';

function ref(kind: LayerKind, name: string): LayerRef {
  return { kind, name, path: kind === 'core' ? null : `/byre/${kind}/${name}` };
}

type LayerInput = Parameters<typeof mergeLayers>[0][number];

const DEFAULT = ref('default', 'default');
const TEMPLATE = ref('template', 'byre/node');
const WORK = ref('layer', 'work');
const TEAM = ref('layer', 'team');
const PROJECT = ref('project', 'project');

function stack(...layers: [LayerRef, RawLayer][]): LayerInput[] {
  return layers.map(([r, raw]) => ({ ref: r, raw }));
}

const values = <T>(list: readonly Sourced<T>[]): T[] => list.map((s) => s.value);
const froms = <T>(list: readonly Sourced<T>[]): string[] => list.map((s) => s.from.name);

describe('mergeLayers: defaults and the core layer', () => {
  it('yields engine auto and debian:bookworm from core with no layers at all', () => {
    const config = mergeLayers([]);
    expect(config.engine).toEqual({ value: 'auto', from: CORE_REF });
    expect(config.base).toEqual({ value: 'debian:bookworm', from: CORE_REF });
    expect(config.template).toBeNull();
    expect(config.agent).toBeNull();
    expect(config.seedPrefs).toBeNull();
    expect(config.defaults).toEqual({ sharedAuth: {}, skipQuestions: false });
  });

  it('carries git identity, TERM and TZ passthrough from the core layer', () => {
    const config = mergeLayers([coreLayer()]);
    const env = Object.fromEntries(
      Object.entries(config.envFromHost).map(([k, v]) => [k, [v.value, v.from.kind]]),
    );
    expect(env).toEqual({
      GIT_AUTHOR_NAME: ['git:user.name', 'core'],
      GIT_COMMITTER_NAME: ['git:user.name', 'core'],
      GIT_AUTHOR_EMAIL: ['git:user.email', 'core'],
      GIT_COMMITTER_EMAIL: ['git:user.email', 'core'],
      TERM: ['env:TERM', 'core'],
      TZ: ['tz:', 'core'],
    });
    expect(config.engine.from).toEqual(CORE_REF);
    expect(config.layers).toEqual([CORE_REF]);
  });

  it('hands out a fresh copy of the core layer', () => {
    const first = structuredClone(coreLayer().raw);
    expect(Object.keys(first.env_from_host ?? {})).not.toEqual([]);
    const a = coreLayer();
    a.raw.env_from_host = {};
    expect(coreLayer().raw).toEqual(first);
  });
});

describe('mergeLayers: scalars', () => {
  type Row = [string, [LayerRef, RawLayer][], (c: EffectiveConfig) => unknown, unknown];
  const rows: Row[] = [
    [
      'later engine wins',
      [
        [DEFAULT, { engine: 'docker' }],
        [PROJECT, { engine: 'podman' }],
      ],
      (c) => [c.engine.value, c.engine.from.name],
      ['podman', 'project'],
    ],
    [
      'empty engine inherits',
      [
        [DEFAULT, { engine: 'docker' }],
        [PROJECT, { engine: '' }],
      ],
      (c) => c.engine.value,
      'docker',
    ],
    [
      'later base wins',
      [
        [TEMPLATE, { base: 'node:22' }],
        [PROJECT, { base: 'node:20' }],
      ],
      (c) => [c.base.value, c.base.from.name],
      ['node:20', 'project'],
    ],
    ['seed_prefs unset is null', [[DEFAULT, {}]], (c) => c.seedPrefs, null],
    [
      'seed_prefs inherits when unset',
      [
        [DEFAULT, { seed_prefs: true }],
        [PROJECT, {}],
      ],
      (c) => c.seedPrefs?.value,
      true,
    ],
    [
      'explicit false turns an inherited opt-in off',
      [
        [DEFAULT, { seed_prefs: true }],
        [PROJECT, { seed_prefs: false }],
      ],
      (c) => [c.seedPrefs?.value, c.seedPrefs?.from.name],
      [false, 'project'],
    ],
    [
      'template from the project',
      [[PROJECT, { template: 'node' }]],
      (c) => c.template?.value,
      'node',
    ],
    [
      'template "none" resolves to null',
      [[PROJECT, { template: 'none' }]],
      (c) => c.template,
      null,
    ],
    [
      'default.config template is only a favourite',
      [[DEFAULT, { template: 'node' }]],
      (c) => c.template,
      null,
    ],
    [
      'default.config agent is only a favourite',
      [[DEFAULT, { agent: 'claude' }]],
      (c) => c.agent,
      null,
    ],
    [
      'agent from a layer',
      [
        [DEFAULT, { agent: 'codex' }],
        [WORK, { agent: 'claude' }],
      ],
      (c) => [c.agent?.value, c.agent?.from.name],
      ['claude', 'work'],
    ],
    [
      'agent "none" beats a lower layer',
      [
        [WORK, { agent: 'claude' }],
        [PROJECT, { agent: 'none' }],
      ],
      (c) => c.agent,
      null,
    ],
    [
      'agent set above "none" wins again',
      [
        [WORK, { agent: 'none' }],
        [PROJECT, { agent: 'codex' }],
      ],
      (c) => c.agent?.value,
      'codex',
    ],
    [
      'worktree_base later wins',
      [
        [DEFAULT, { worktree_base: 'sibling' }],
        [PROJECT, { worktree_base: '~/wt' }],
      ],
      (c) => c.worktreeBase?.value,
      '~/wt',
    ],
    [
      'extends chain lists named layers root first',
      [
        [DEFAULT, {}],
        [TEAM, {}],
        [WORK, { extends: 'team' }],
        [PROJECT, { extends: 'work' }],
      ],
      (c) => c.extendsChain,
      ['team', 'work'],
    ],
  ];
  it.each(rows)('%s', (_name, layers, pick, expected) => {
    expect(pick(mergeLayers(stack(...layers)))).toEqual(expected);
  });
});

describe('mergeLayers: plain lists union, "!name" removes', () => {
  type Row = [string, RawLayer[], string[]];
  const rows: Row[] = [
    [
      'union keeps first-seen order',
      [{ apt: ['git', 'curl'] }, { apt: ['jq', 'git'] }],
      ['git', 'curl', 'jq'],
    ],
    ['dedup within a layer', [{ apt: ['git', 'git'] }], ['git']],
    ['later !name removes', [{ apt: ['git', 'curl'] }, { apt: ['!git'] }], ['curl']],
    ['removal of an absent name is a no-op', [{ apt: ['git'] }, { apt: ['!nano'] }], ['git']],
    ['within one layer, removal beats add', [{ apt: ['git', '!git'] }], []],
    [
      'a later layer re-adds after removal',
      [{ apt: ['git'] }, { apt: ['!git'] }, { apt: ['git'] }],
      ['git'],
    ],
  ];
  it.each(rows)('apt: %s', (_name, raws, expected) => {
    const config = mergeLayers(raws.map((raw, i) => ({ ref: ref('layer', `l${i}`), raw })));
    expect(values(config.apt)).toEqual(expected);
  });

  it.each(rows)('skills: %s', (_name, raws, expected) => {
    const layers = raws.map((raw, i) => ({
      ref: ref('layer', `l${i}`),
      raw: { skills: raw.apt ?? [] },
    }));
    expect(values(mergeLayers(layers).skills)).toEqual(expected);
  });

  it('keeps the provenance of the layer that first added an entry', () => {
    const config = mergeLayers(
      stack([DEFAULT, { apt: ['git'] }], [PROJECT, { apt: ['git', 'jq'] }]),
    );
    expect(froms(config.apt)).toEqual(['default', 'project']);
  });

  it('egress_offered unions by host:port and "!" removes every covered port', () => {
    const config = mergeLayers(
      stack(
        [TEMPLATE, { egress_offered: ['registry.npmjs.org', 'pypi.org', 'pypi.org:8443'] }],
        [PROJECT, { egress_offered: ['REGISTRY.npmjs.org:443', '!pypi.org'] }],
      ),
    );
    expect(values(config.egressOffered)).toEqual([{ host: 'registry.npmjs.org', port: 443 }]);
    expect(froms(config.egressOffered)).toEqual(['byre/node']);
  });
});

describe('mergeLayers: egress and closures', () => {
  type Row = [string, string[][], string[], string[]];
  const rows: Row[] = [
    [
      'union dedups host:port, hosts lowercased',
      [['a.com'], ['A.com:443', 'b.com:80']],
      ['a.com:443', 'b.com:80'],
      [],
    ],
    ['a closure removes and survives', [['a.com', 'a.com:80'], ['!a.com']], [], ['a.com:*']],
    [
      'a port closure removes one port',
      [['a.com', 'a.com:80'], ['!a.com:80']],
      ['a.com:443'],
      ['a.com:80'],
    ],
    [
      'a closure of an absent host still survives',
      [['a.com'], ['!b.com']],
      ['a.com:443'],
      ['b.com:*'],
    ],
    ['a later plain entry reopens', [['!a.com'], ['a.com']], ['a.com:443'], []],
    [
      'reopening one port deletes the portless closure',
      [['!a.com'], ['a.com:8080']],
      ['a.com:8080'],
      [],
    ],
    [
      'reopening another port keeps a port closure',
      [['!a.com:80'], ['a.com']],
      ['a.com:443'],
      ['a.com:80'],
    ],
    ['within one layer, closures beat adds', [['a.com', '!a.com']], [], ['a.com:*']],
    [
      'within one layer, a port closure beats only its port',
      [['a.com:80', 'a.com', '!a.com:80']],
      ['a.com:443'],
      ['a.com:80'],
    ],
    ['closures dedup', [['!a.com'], ['!a.com']], [], ['a.com:*']],
    [
      'IPv6 entries are canonical',
      [['[2001:DB8::0:1]:443'], ['[2001:db8::1]']],
      ['[2001:db8::1]:443'],
      [],
    ],
  ];
  it.each(rows)('%s', (_name, layers, open, closed) => {
    const config = mergeLayers(
      layers.map((egress, i) => ({ ref: ref('layer', `l${i}`), raw: { egress } })),
    );
    expect(values(config.egress).map(egressKey)).toEqual(open);
    expect(values(config.egressClosed).map(egressKey)).toEqual(closed);
  });

  it('stamps a closure with the layer that wrote it', () => {
    const config = mergeLayers(
      stack([DEFAULT, { egress: ['a.com'] }], [WORK, { egress: ['!a.com'] }]),
    );
    expect(froms(config.egressClosed)).toEqual(['work']);
  });
});

describe('mergeLayers: identity entries replace', () => {
  it('mounts replace by target, remove-then-append', () => {
    const config = mergeLayers(
      stack(
        [
          DEFAULT,
          {
            mounts: [
              { host: '~/a', target: '/a' },
              { host: '~/b', target: '/b', mode: 'rw' },
            ],
          },
        ],
        [PROJECT, { mounts: [{ host: '~/a2', target: '/a/', disabled: true }] }],
      ),
    );
    expect(values(config.mounts)).toEqual([
      { host: '~/b', target: '/b', mode: 'rw', disabled: false },
      { host: '~/a2', target: '/a/', mode: 'ro', disabled: true },
    ]);
    expect(froms(config.mounts)).toEqual(['default', 'project']);
  });

  it('a mount removal marker drops the target', () => {
    const config = mergeLayers(
      stack(
        [DEFAULT, { mounts: [{ host: '~/a', target: '/a' }] }],
        [PROJECT, { mounts: [{ target: '!/a/' }] }],
      ),
    );
    expect(config.mounts).toEqual([]);
  });

  type PortRow = [string, RawLayer['ports'][], [number, number, string][]];
  const portRows: PortRow[] = [
    ['defaults host 0 and 127.0.0.1', [[{ container: 3000 }]], [[3000, 0, '127.0.0.1']]],
    [
      'a later binding replaces by container port',
      [[{ container: 3000 }], [{ container: 3000, host: 3001 }]],
      [[3000, 3001, '127.0.0.1']],
    ],
    [
      'within one layer the last binding of a port wins',
      [[{ container: 3000 }, { container: 3000, host: 4000, interface: '10.0.0.1' }]],
      [[3000, 4000, '10.0.0.1']],
    ],
    [
      'a replaced binding takes the later position',
      [[{ container: 3000 }, { container: 8080 }, { container: 3000, host: 4000 }]],
      [
        [8080, 0, '127.0.0.1'],
        [3000, 4000, '127.0.0.1'],
      ],
    ],
    [
      'an add then a remove in one layer removes it',
      [
        [
          { container: 3000, host: 1 },
          { container: 3000, remove: true },
        ],
      ],
      [],
    ],
    [
      "an add then a remove in one layer removes the lower layer's binding too",
      [
        [{ container: 3000, host: 1 }],
        [
          { container: 3000, host: 2 },
          { container: 3000, remove: true },
        ],
      ],
      [],
    ],
    [
      'a later layer replaces the binding of the port',
      [[{ container: 3000 }, { container: 8080 }], [{ container: 3000, host: 5000 }]],
      [
        [8080, 0, '127.0.0.1'],
        [3000, 5000, '127.0.0.1'],
      ],
    ],
    [
      'remove = true drops the binding',
      [[{ container: 3000 }, { container: 8080 }], [{ container: 3000, remove: true }]],
      [[8080, 0, '127.0.0.1']],
    ],
    [
      'remove then re-add in one layer',
      [
        [{ container: 3000, host: 1 }],
        [
          { container: 3000, remove: true },
          { container: 3000, host: 2 },
        ],
      ],
      [[3000, 2, '127.0.0.1']],
    ],
  ];
  it.each(portRows)('ports: %s', (_name, layers, expected) => {
    const config = mergeLayers(
      layers.map((ports, i) => ({ ref: ref('layer', `l${i}`), raw: ports ? { ports } : {} })),
    );
    expect(values(config.ports).map((p) => [p.container, p.host, p.interface])).toEqual(expected);
  });

  it('volumes replace by name and "!name" removes', () => {
    const config = mergeLayers(
      stack(
        [
          TEMPLATE,
          {
            volumes: [
              { name: 'node_modules', role: 'cache', target: '/workspace/node_modules' },
              { name: 'x', role: 'cache', target: '/x' },
            ],
          },
        ],
        [
          WORK,
          {
            volumes: [
              {
                name: 'node_modules',
                role: 'state',
                target: '/nm',
                scope: 'project',
                sharing: 'exclusive',
                seed: { literal: '{}', path: 'a.json' },
              },
            ],
          },
        ],
        [
          PROJECT,
          {
            volumes: [
              { name: '!x' },
              { name: 'h', role: 'state', target: '/h', seed: { host: '~/h' } },
            ],
          },
        ],
      ),
    );
    expect(values(config.volumes)).toEqual([
      {
        name: 'node_modules',
        role: 'state',
        target: '/nm',
        scope: 'project',
        sharing: 'exclusive',
        seed: { literal: '{}', path: 'a.json' },
      },
      {
        name: 'h',
        role: 'state',
        target: '/h',
        scope: 'project',
        sharing: 'shared',
        seed: { host: '~/h' },
      },
    ]);
    expect(froms(config.volumes)).toEqual(['work', 'project']);
  });

  it('mcp replaces by name; "!name" closes and the closure survives', () => {
    const config = mergeLayers(
      stack(
        [
          DEFAULT,
          {
            mcp: [
              { name: 'gh', command: ['gh-mcp'] },
              { name: 'docs', url: 'https://d' },
            ],
          },
        ],
        [
          WORK,
          { mcp: [{ name: 'gh', url: 'https://gh', headers: { A: 'b' }, egress: ['x.com'] }] },
        ],
        [PROJECT, { mcp: [{ name: '!docs' }, { name: '!skill-only' }] }],
      ),
    );
    expect(values(config.mcp)).toEqual([
      { name: 'gh', url: 'https://gh', env: [], egress: ['x.com'], headers: { A: 'b' } },
    ]);
    expect(values(config.mcpClosed)).toEqual(['docs', 'skill-only']);
    expect(froms(config.mcpClosed)).toEqual(['project', 'project']);
  });

  it('a later mcp declaration reopens a closure', () => {
    const config = mergeLayers(
      stack(
        [WORK, { mcp: [{ name: '!gh' }] }],
        [PROJECT, { mcp: [{ name: 'gh', command: ['x'] }] }],
      ),
    );
    expect(values(config.mcpClosed)).toEqual([]);
    expect(values(config.mcp).map((m) => m.name)).toEqual(['gh']);
  });

  it('claude_skills replace by name with surviving closures', () => {
    const config = mergeLayers(
      stack(
        [
          DEFAULT,
          {
            claude_skills: [
              { name: 'tdd', path: '~/a' },
              { name: 'lint', path: '~/l' },
            ],
          },
        ],
        [
          PROJECT,
          {
            claude_skills: [
              { name: 'tdd', path: '~/b' },
              { name: '!lint' },
              { name: '!from-skill' },
            ],
          },
        ],
      ),
    );
    expect(values(config.claudeSkills)).toEqual([{ name: 'tdd', path: '~/b' }]);
    expect(values(config.claudeSkillsClosed)).toEqual(['lint', 'from-skill']);
  });

  it('context replaces by name and "!name" removes without a closure', () => {
    const config = mergeLayers(
      stack(
        [
          DEFAULT,
          {
            context: [
              { name: 'rules', text: 'a' },
              { name: 'notes', file: '~/n.md' },
              { name: 'x', text: 'x' },
            ],
          },
        ],
        [PROJECT, { context: [{ name: 'rules', text: 'b' }, { name: '!x' }] }],
      ),
    );
    expect(values(config.context)).toEqual([
      { name: 'notes', file: '~/n.md' },
      { name: 'rules', text: 'b' },
    ]);
    expect(froms(config.context)).toEqual(['default', 'project']);
  });
});

describe('mergeLayers: maps and raw blocks', () => {
  it('env and env_from_host merge per key, later wins', () => {
    const config = mergeLayers(
      stack(
        [DEFAULT, { env: { A: '1', B: '1' }, env_from_host: { TERM: '' } }],
        [PROJECT, { env: { B: '2' }, env_from_host: { GH: 'env:GH' } }],
      ),
    );
    expect(
      Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, [v.value, v.from.name]])),
    ).toEqual({
      A: ['1', 'default'],
      B: ['2', 'project'],
    });
    expect(Object.keys(config.envFromHost)).toEqual(['TERM', 'GH']);
  });

  it('files and sources merge per key, later wins', () => {
    const config = mergeLayers(
      stack(
        [DEFAULT, { files: { './a': '/a' }, sources: { 'o/s': { uri: 'https://1' } } }],
        [
          PROJECT,
          {
            files: { './a': '/b', './c': '/c' },
            sources: { 'o/s': { uri: 'https://2', digest: 'sha256:x' } },
          },
        ],
      ),
    );
    expect(config.files['./a']).toEqual({ value: '/b', from: PROJECT });
    expect(config.files['./c']?.value).toBe('/c');
    expect(config.sources['o/s']).toEqual({
      value: { uri: 'https://2', digest: 'sha256:x' },
      from: PROJECT,
    });
  });

  it('raw blocks append in cascade order and never dedup', () => {
    const config = mergeLayers(
      stack(
        [TEMPLATE, { dockerfile_pre: ['RUN a'], dockerfile_post: ['RUN z'], run_args: ['--x'] }],
        [PROJECT, { dockerfile_pre: ['RUN a', 'RUN b'], run_args: ['--x', '--y'] }],
      ),
    );
    expect(values(config.dockerfilePre)).toEqual(['RUN a', 'RUN a', 'RUN b']);
    expect(froms(config.dockerfilePre)).toEqual(['byre/node', 'project', 'project']);
    expect(values(config.dockerfilePost)).toEqual(['RUN z']);
    expect(values(config.runArgs)).toEqual(['--x', '--x', '--y']);
  });

  type DefaultsRow = [string, RawLayer[], EffectiveConfig['defaults']];
  const defaultsRows: DefaultsRow[] = [
    [
      'table form',
      [{ defaults: { shared_auth: { claude: 'claude-shared-auth' } } }],
      { sharedAuth: { claude: 'claude-shared-auth' }, skipQuestions: false },
    ],
    [
      'legacy list names the bundled companion',
      [{ defaults: { shared_auth: ['claude'] } }],
      { sharedAuth: { claude: 'claude-shared-auth' }, skipQuestions: false },
    ],
    [
      'legacy top-level shared_auth',
      [{ shared_auth: ['codex'] }],
      { sharedAuth: { codex: 'codex-shared-auth' }, skipQuestions: false },
    ],
    [
      '[defaults] beats legacy in one layer',
      [{ shared_auth: ['codex'], defaults: { shared_auth: { claude: 'x' } } }],
      { sharedAuth: { claude: 'x' }, skipQuestions: false },
    ],
    [
      'last layer wins whole',
      [
        { defaults: { shared_auth: { claude: 'x' } } },
        { defaults: { shared_auth: { codex: 'y' } } },
      ],
      { sharedAuth: { codex: 'y' }, skipQuestions: false },
    ],
    [
      'skip_questions is sticky true',
      [{ defaults: { skip_questions: true } }, { defaults: { skip_questions: false } }],
      { sharedAuth: {}, skipQuestions: true },
    ],
  ];
  it.each(defaultsRows)('[defaults]: %s', (_name, raws, expected) => {
    const config = mergeLayers(raws.map((raw, i) => ({ ref: ref('layer', `l${i}`), raw })));
    expect(config.defaults).toEqual(expected);
  });
});

// ---------------------------------------------------------------- properties

const name = fc.constantFrom('a', 'b', 'c', 'd');
const marked = fc.tuple(fc.boolean(), name).map(([bang, n]) => (bang ? `!${n}` : n));
const host = fc.constantFrom('a.com', 'B.com', 'c.com');
const egressEntry = fc
  .tuple(fc.constantFrom('', '!'), host, fc.constantFrom('', ':80', ':443', ':8080'))
  .map(([bang, h, port]) => `${bang}${h}${port}`);
const target = fc.constantFrom('/a', '/b', '/c', '/a/');
const mount = fc.oneof(
  fc.record({
    host: fc.constantFrom('~/x', '/y'),
    target,
    mode: fc.constantFrom('ro', 'rw'),
    disabled: fc.boolean(),
  }),
  target.map((t) => ({ target: `!${t}` })),
);
const port = fc.oneof(
  fc.record({ container: fc.constantFrom(80, 443, 3000), host: fc.constantFrom(0, 8080, 9090) }),
  fc.constantFrom(80, 443, 3000).map((container) => ({ container, remove: true })),
);
const volume = fc.oneof(
  fc.record({ name, role: fc.constantFrom('cache', 'state'), target }),
  name.map((n) => ({ name: `!${n}` })),
);
const mcp = fc.oneof(
  fc.record({ name, command: fc.constant<string[]>(['srv']) }),
  name.map((n) => ({ name: `!${n}` })),
);
const context = fc.oneof(
  fc.record({ name, text: fc.constantFrom('x', 'y') }),
  name.map((n) => ({ name: `!${n}` })),
);

const rawLayer: fc.Arbitrary<RawLayer> = fc.record(
  {
    engine: fc.constantFrom('', 'auto', 'docker', 'podman'),
    base: fc.constantFrom('debian:bookworm', 'node:22'),
    agent: fc.constantFrom('claude', 'none', ''),
    seed_prefs: fc.boolean(),
    apt: fc.array(marked, { maxLength: 5 }),
    skills: fc.array(marked, { maxLength: 5 }),
    egress: fc.array(egressEntry, { maxLength: 6 }),
    egress_offered: fc.array(egressEntry, { maxLength: 4 }),
    env: fc.dictionary(fc.constantFrom('A', 'B'), fc.constantFrom('1', '2')),
    mounts: fc.array(mount, { maxLength: 4 }),
    ports: fc.array(port, { maxLength: 4 }),
    volumes: fc.array(volume, { maxLength: 4 }),
    mcp: fc.array(mcp, { maxLength: 4 }),
    claude_skills: fc.array(
      mcp.map((m) => (m.name.startsWith('!') ? m : { name: m.name, path: '~/s' })),
      { maxLength: 3 },
    ),
    context: fc.array(context, { maxLength: 3 }),
    dockerfile_pre: fc.array(fc.constantFrom('RUN a', 'RUN b'), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

const KINDS: LayerKind[] = ['default', 'template', 'layer', 'layer', 'project'];
const cascade = fc
  .array(rawLayer, { minLength: 1, maxLength: 5 })
  .map((raws) => raws.map((raw, i) => ({ ref: ref(KINDS[i] ?? 'layer', `n${i}`), raw })));

/** Everything a box sees, without the bookkeeping of which layers took part. */
function boxView(config: EffectiveConfig): unknown {
  // Raw blocks are append-only by design, so they are left out of idempotence.
  const rest: Partial<EffectiveConfig> = { ...config };
  for (const key of [
    'layers',
    'extendsChain',
    'dockerfilePre',
    'dockerfilePost',
    'runArgs',
  ] as const) {
    delete rest[key];
  }
  return JSON.parse(JSON.stringify(rest));
}

function allSourced(config: EffectiveConfig): Sourced<unknown>[] {
  const out: Sourced<unknown>[] = [config.engine, config.base];
  for (const scalar of [config.template, config.agent, config.seedPrefs, config.worktreeBase]) {
    if (scalar) out.push(scalar);
  }
  for (const map of [config.env, config.envFromHost, config.files, config.sources])
    out.push(...Object.values(map));
  for (const list of [
    config.apt,
    config.skills,
    config.mounts,
    config.ports,
    config.volumes,
    config.egress,
    config.egressClosed,
    config.egressOffered,
    config.mcp,
    config.mcpClosed,
    config.claudeSkills,
    config.claudeSkillsClosed,
    config.context,
    config.dockerfilePre,
    config.dockerfilePost,
    config.runArgs,
  ] as Sourced<unknown>[][]) {
    out.push(...list);
  }
  return out;
}

const unique = (keys: readonly string[]): boolean => new Set(keys).size === keys.length;

describe('mergeLayers: properties', () => {
  it('applying the top layer twice changes nothing the box sees (union and replace are idempotent)', () => {
    fc.assert(
      fc.property(cascade, (layers) => {
        const top = layers[layers.length - 1];
        if (!top) return;
        expect(boxView(mergeLayers([...layers, top]))).toEqual(boxView(mergeLayers(layers)));
      }),
    );
  });

  it('keeps one entry per identity', () => {
    fc.assert(
      fc.property(cascade, (layers) => {
        const c = mergeLayers(layers);
        expect(unique(values(c.apt))).toBe(true);
        expect(unique(values(c.skills))).toBe(true);
        expect(unique(values(c.mounts).map((m) => normalizeTarget(m.target)))).toBe(true);
        expect(unique(values(c.volumes).map((v) => v.name))).toBe(true);
        expect(unique(values(c.mcp).map((m) => m.name))).toBe(true);
        expect(unique(values(c.claudeSkills).map((m) => m.name))).toBe(true);
        expect(unique(values(c.context).map((m) => m.name))).toBe(true);
        expect(unique(values(c.egress).map(egressKey))).toBe(true);
        expect(unique(values(c.egressClosed).map(egressKey))).toBe(true);
        expect(unique(values(c.ports).map((p) => JSON.stringify(p)))).toBe(true);
        expect(unique(values(c.mcpClosed))).toBe(true);
      }),
    );
  });

  it('never leaves an open entry that a surviving closure covers', () => {
    fc.assert(
      fc.property(cascade, (layers) => {
        const c = mergeLayers(layers);
        for (const closure of values(c.egressClosed)) {
          for (const entry of values(c.egress)) expect(closureCovers(closure, entry)).toBe(false);
        }
        const open = new Set(values(c.mcp).map((m) => m.name));
        for (const closed of values(c.mcpClosed)) expect(open.has(closed)).toBe(false);
      }),
    );
  });

  it('stamps every value with a layer that took part (or core for defaults)', () => {
    fc.assert(
      fc.property(cascade, (layers) => {
        const c = mergeLayers(layers);
        const refs = new Set<LayerRef>([CORE_REF, ...layers.map((l) => l.ref)]);
        for (const value of allSourced(c)) expect(refs.has(value.from)).toBe(true);
        expect(c.layers).toEqual(layers.map((l) => l.ref));
      }),
    );
  });

  it('honours removal markers in the top layer', () => {
    fc.assert(
      fc.property(cascade, (layers) => {
        const top = layers[layers.length - 1];
        if (!top) return;
        const c = mergeLayers(layers);
        for (const entry of top.raw.apt ?? []) {
          if (entry.startsWith('!')) expect(values(c.apt)).not.toContain(entry.slice(1));
        }
        const volumes = top.raw.volumes ?? [];
        volumes.forEach((v, i) => {
          const removed = v.name?.startsWith('!') === true ? v.name.slice(1) : null;
          if (removed === null || volumes.slice(i + 1).some((later) => later.name === removed))
            return;
          expect(values(c.volumes).map((x) => x.name)).not.toContain(removed);
        });
        const ports = top.raw.ports ?? [];
        ports.forEach((p, i) => {
          // The last entry for a container port decides: a remove there leaves none.
          if (p.remove !== true || ports.slice(i + 1).some((q) => q.container === p.container))
            return;
          expect(values(c.ports).map((x) => x.container)).not.toContain(p.container);
        });
        expect(unique(values(c.ports).map((x) => String(x.container)))).toBe(true);
      }),
    );
  });

  it('lets the top layer win every scalar it sets', () => {
    fc.assert(
      fc.property(cascade, (layers) => {
        const top = layers[layers.length - 1];
        if (!top) return;
        const c = mergeLayers(layers);
        if (top.raw.engine) expect(c.engine).toEqual({ value: top.raw.engine, from: top.ref });
        if (top.raw.base) expect(c.base.value).toBe(top.raw.base);
        if (top.raw.seed_prefs !== undefined) expect(c.seedPrefs?.value).toBe(top.raw.seed_prefs);
        if (top.ref.kind !== 'default' && top.raw.agent === 'none') expect(c.agent).toBeNull();
      }),
    );
  });
});
