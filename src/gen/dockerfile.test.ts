import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import {
  guardedPathCollisions,
  wiringPathCollisions,
  postureGuardFor,
  labelInstruction,
  renderBaseDockerfile,
  renderDockerfile,
  renderWiringDockerfile,
  type DockerfileInput,
} from './dockerfile.js';
import { parseSkillManifest } from '../skills/manifest/index.js';
import { fakeSkill, text } from '../../test/support/config.js';
import { expectGolden } from '../../test/support/golden.js';

function input(overrides: Partial<DockerfileInput> = {}): DockerfileInput {
  return {
    base: 'node:22',
    dockerfilePre: [],
    skills: [],
    agent: null,
    volumeTargets: [],
    env: {},
    files: [],
    apt: [],
    dockerfilePost: [],
    guard: null,
    ...overrides,
  };
}

const toolbox = fakeSkill('byre/toolbox', 'bundled', {
  build: {
    apt: ['ripgrep', 'jq'],
    node: null,
    dockerfile: ['RUN gosu dev npm install -g toolbox-cli@1.2.3', 'ENV TOOLBOX_MODE=box'],
    files: [
      {
        staged: 'skills/byre/toolbox/wrapper.sh',
        dest: '/usr/local/bin/toolbox-wrap',
        executable: true,
        content: text('#!/bin/sh\n'),
      },
      {
        staged: 'skills/byre/toolbox/defaults.json',
        dest: '/etc/toolbox/defaults.json',
        executable: false,
        content: text('{}\n'),
      },
    ],
  },
  volumes: [
    {
      name: '.toolbox',
      role: 'state',
      target: '/home/dev/.toolbox',
      scope: 'project',
      sharing: 'shared',
    },
  ],
});

const notes = fakeSkill('notes', 'local', {
  build: { apt: [], node: null, dockerfile: ['RUN echo "local notes skill"'], files: [] },
});

const firewall = fakeSkill('byre/firewall', 'bundled', {
  build: {
    apt: ['iptables'],
    node: null,
    dockerfile: [],
    files: [
      {
        staged: 'skills/byre/firewall/launch-gate',
        dest: '/etc/byre/launch-gate',
        executable: false,
        content: text('47011\n'),
      },
      {
        staged: 'skills/byre/firewall/netns-init.sh',
        dest: '/etc/byre/netns-init.sh',
        executable: true,
        content: text('#!/bin/sh\n'),
      },
    ],
  },
  runtime: {
    ...fakeSkill('x', 'bundled').runtime,
    networkPosture: 'allowlist',
    netnsInit: '/etc/byre/netns-init.sh',
  },
});

const goldens: Record<string, DockerfileInput> = {
  'dockerfile-minimal.Dockerfile': input(),
  'dockerfile-skills.Dockerfile': input({
    base: 'debian:bookworm',
    dockerfilePre: ['RUN apt-get update && apt-get install -y curl', 'ARG TEAM=platform'],
    // Enabled local-first: the image still puts the bundled skill ahead of it.
    skills: [notes, toolbox],
    agent: { command: 'toolbox --yolo' },
    volumeTargets: ['/home/dev/.toolbox', '/home/dev/.cache/pip', '/home/dev/.toolbox'],
    env: { ZED: 'last', GREETING: 'say "hi"\tthen\\leave', API_BASE: 'https://example.test' },
    files: [
      { staged: 'files/seed', dest: '/opt/seed' },
      { staged: 'files/config/app.toml', dest: '/etc/app/app.toml' },
    ],
    apt: ['build-essential', 'libpq-dev'],
    dockerfilePost: ['RUN make -C /opt/seed', 'LABEL org.example.team=platform'],
  }),
  'dockerfile-firewall.Dockerfile': input({
    skills: [firewall],
    guard: postureGuardFor([firewall]),
    files: [{ staged: 'files/my-gate', dest: '/etc/byre/launch-gate' }],
  }),
};

describe('renderDockerfile goldens', () => {
  for (const [name, goldenInput] of Object.entries(goldens)) {
    it(`matches test/golden/${name} byte for byte`, () => {
      expectGolden(name, renderDockerfile(goldenInput));
    });
  }

  it('is deterministic for map and set order', () => {
    const a = goldens['dockerfile-skills.Dockerfile'] as DockerfileInput;
    const b: DockerfileInput = {
      ...a,
      env: Object.fromEntries(Object.entries(a.env).reverse()),
      files: [...a.files].reverse(),
      volumeTargets: [...a.volumeTargets].reverse(),
    };
    expect(renderDockerfile(b)).toBe(renderDockerfile(a));
  });
});

/** A Dockerfile's instructions: every line but comments and blank ones. */
const instructions = (dockerfile: string): string[] =>
  dockerfile.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));

describe('the base image and the wiring on it (adr/0073)', () => {
  for (const [name, goldenInput] of Object.entries(goldens)) {
    it(`${name}: the base's instructions, then the wiring build's after its FROM, are the ejected Dockerfile's`, () => {
      const wiring = instructions(renderWiringDockerfile('sha256:' + 'b'.repeat(64)));
      expect(wiring[0]).toBe(`FROM sha256:${'b'.repeat(64)}`);
      expect([...instructions(renderBaseDockerfile(goldenInput)), ...wiring.slice(1)]).toEqual(
        instructions(renderDockerfile(goldenInput)),
      );
      expect(renderDockerfile(goldenInput).startsWith(renderBaseDockerfile(goldenInput))).toBe(
        true,
      );
    });
  }

  it('the base has no wiring; the wiring build is its FROM and the one COPY', () => {
    expect(renderBaseDockerfile(input())).not.toContain('COPY wiring');
    expect(instructions(renderWiringDockerfile('sha256:x'))).toEqual([
      'FROM sha256:x',
      'COPY wiring /etc/byre',
    ]);
  });
});

describe('block order and markers', () => {
  const markers = [
    '# Generated by byre. Do not edit',
    'FROM ',
    '# --- template block ---',
    '# --- byre core block (constant) ---',
    '# --- skill apt (hoisted above the skill blocks) ---',
    '# --- skills ---',
    '# --- agent ---',
    '# --- volume mount points (owned by the baked uid) ---',
    '# --- project block ---',
    '# --- image PATH capture',
    '# --- byre security guard (re-assert chassis paths after the project block) ---',
    'HEALTHCHECK NONE',
    'USER dev',
    'ENTRYPOINT ["/usr/local/bin/byre-launch"]',
    '# --- wiring: agent context, mcp, claude skills',
    'COPY wiring /etc/byre',
  ];

  it('emits every block in its fixed order', () => {
    const out = renderDockerfile(goldens['dockerfile-skills.Dockerfile'] as DockerfileInput);
    const positions = markers.map((m) => out.indexOf(m));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
  });

  it('keeps empty section markers, and omits the agent block without an agent', () => {
    const lines = renderDockerfile(input()).split('\n');
    for (const marker of [
      '# --- template block ---',
      '# --- skill apt (hoisted above the skill blocks) ---',
      '# --- skills ---',
      '# --- volume mount points (owned by the baked uid) ---',
    ]) {
      const at = lines.indexOf(marker);
      expect(at, marker).toBeGreaterThan(0);
      expect(lines[at + 1], marker).toBe('');
    }
    expect(lines).not.toContain('# --- agent ---');
  });

  it('copies the wiring in one COPY, the last instruction, after the apt install, the guard and the tail (adr/0056, adr/0069)', () => {
    const out = renderDockerfile(goldens['dockerfile-skills.Dockerfile'] as DockerfileInput);
    const projectApt = out.indexOf(
      "RUN apt-get update && apt-get install -y --no-install-recommends 'build-essential'",
    );
    expect(projectApt).toBeGreaterThan(0);
    const lines = out.trimEnd().split('\n');
    // A wiring edit re-runs this one step: no RUN, no setting follows it.
    expect(lines.at(-1)).toBe('COPY wiring /etc/byre');
    expect(lines.filter((l) => l.includes('wiring') && !l.startsWith('#'))).toEqual([
      'COPY wiring /etc/byre',
    ]);
    expect(out.indexOf('COPY wiring /etc/byre')).toBeGreaterThan(out.lastIndexOf('\nRUN '));
    expect(out.indexOf('COPY wiring /etc/byre')).toBeGreaterThan(out.indexOf('ENTRYPOINT'));
    // The agent's own files change only with the agent, so they stay above it.
    expect(out.indexOf('COPY agent-cmd /etc/byre/agent-cmd')).toBeLessThan(projectApt);
  });

  // The wiring follows the guard (adr/0056) and lands in /etc/byre, which
  // holds guarded paths; its staged directory holds only byre's own names
  // (plan.test.ts), none of which is a guarded path's.
  it.each(Object.entries(goldens))('%s: no guarded path lies where the wiring writes', (_n, g) => {
    const lines = renderDockerfile({ ...g, credentialGate: true }).split('\n');
    const dest = (line: string): string => (line.split(' ').at(-1) ?? '').replaceAll('"', '');
    const guardAt = lines.indexOf(
      '# --- byre security guard (re-assert chassis paths after the project block) ---',
    );
    const wiringAt = lines.findIndex((l) => l.startsWith('# --- wiring'));
    const guarded = lines
      .slice(guardAt, wiringAt)
      .filter((l) => l.startsWith('COPY '))
      .map(dest);
    expect(guarded).toContain('/usr/local/bin/byre-launch');
    expect(guarded).toContain('/etc/byre/credential-gate');
    expect(lines.slice(wiringAt + 1).filter((l) => l !== '')).toEqual(['COPY wiring /etc/byre']);
    const wiring = ['/etc/byre/agent-context.md', '/etc/byre/claude-skills', '/etc/byre/mcp.json'];
    for (const w of wiring) {
      for (const p of guarded)
        expect(p === w || p.startsWith(`${w}/`), `${w} over ${p}`).toBe(false);
    }
  });

  it('keeps the tail after every user line so nothing can re-enable a healthcheck or change the user', () => {
    const out = renderDockerfile(
      input({ dockerfilePost: ['HEALTHCHECK CMD curl x', 'USER root'] }),
    );
    expect(
      out.endsWith(
        'HEALTHCHECK NONE\nUSER dev\nENTRYPOINT ["/usr/local/bin/byre-launch"]\n\n' +
          '# --- wiring: agent context, mcp, claude skills (last: a wiring edit re-runs only this COPY) ---\n' +
          'COPY wiring /etc/byre\n',
      ),
    ).toBe(true);
  });

  it('re-asserts the launcher after the project block', () => {
    const out = renderDockerfile(
      input({ files: [{ staged: 'files/x', dest: '/usr/local/bin/byre-launch' }] }),
    );
    expect(out.lastIndexOf('COPY byre-launch /usr/local/bin/byre-launch')).toBeGreaterThan(
      out.indexOf('COPY "files/x" "/usr/local/bin/byre-launch"'),
    );
  });
});

describe('skill ordering', () => {
  const cases: {
    name: string;
    enabled: [string, 'bundled' | 'installed' | 'local'][];
    want: string[];
  }[] = [
    {
      name: 'already ordered',
      enabled: [
        ['a', 'bundled'],
        ['b', 'installed'],
        ['c', 'local'],
      ],
      want: ['a', 'b', 'c'],
    },
    {
      name: 'reversed classes',
      enabled: [
        ['c', 'local'],
        ['b', 'installed'],
        ['a', 'bundled'],
      ],
      want: ['a', 'b', 'c'],
    },
    {
      name: 'stable within a class',
      enabled: [
        ['l2', 'local'],
        ['b2', 'bundled'],
        ['l1', 'local'],
        ['i1', 'installed'],
        ['b1', 'bundled'],
      ],
      want: ['b2', 'b1', 'i1', 'l2', 'l1'],
    },
    { name: 'empty', enabled: [], want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const skills = c.enabled.map(([id, p]) => fakeSkill(id, p));
      const lines = renderDockerfile(input({ skills })).split('\n');
      const order = lines.filter((l) => l.startsWith('# skill: ')).map((l) => l.slice(9));
      expect(order).toEqual(c.want);
    });
  }

  it('hoists apt in the same provenance order, one RUN per skill with apt', () => {
    const out = renderDockerfile(
      input({
        skills: [
          fakeSkill('loc', 'local', {
            build: { apt: ["it's"], node: null, dockerfile: [], files: [] },
          }),
          fakeSkill('none', 'bundled'),
          fakeSkill('bun', 'bundled', {
            build: { apt: ['git'], node: null, dockerfile: [], files: [] },
          }),
        ],
      }),
    );
    const aptSection = out.slice(out.indexOf('# --- skill apt'), out.indexOf('# --- skills ---'));
    expect(aptSection).toBe(
      [
        '# --- skill apt (hoisted above the skill blocks) ---',
        '# skill: bun',
        "RUN apt-get update && apt-get install -y --no-install-recommends 'git' && rm -rf /var/lib/apt/lists/*",
        '# skill: loc',
        "RUN apt-get update && apt-get install -y --no-install-recommends 'it'\\''s' && rm -rf /var/lib/apt/lists/*",
        '',
        '',
      ].join('\n'),
    );
    const skillsSection = out.slice(
      out.indexOf('# --- skills ---'),
      out.indexOf('# --- volume mount points'),
    );
    expect(skillsSection).toBe('# --- skills ---\n# skill: none\n# skill: bun\n# skill: loc\n\n');
  });
});

describe('quoting in the project block', () => {
  // The builders unescape only \" \\ \$ inside double quotes; everything else
  // stands as written (test/engine/env-bytes.test.ts reads the bytes back).
  const cases: [string, string][] = [
    ['plain', 'ENV K="plain"'],
    ['with "quotes"', 'ENV K="with \\"quotes\\""'],
    ['back\\slash', 'ENV K="back\\\\slash"'],
    ['$HOME stays literal', 'ENV K="\\$HOME stays literal"'],
    ['esc\x1b[1m tab\t cr\r', 'ENV K="esc\x1b[1m tab\t cr\r"'],
    ['nel\u0085 nbsp\u00a0 é', 'ENV K="nel\u0085 nbsp\u00a0 é"'],
    ['', 'ENV K=""'],
  ];
  for (const [value, line] of cases) {
    it(JSON.stringify(value), () => {
      expect(renderDockerfile(input({ env: { K: value } })).split('\n')).toContain(line);
    });
  }

  it('writes a files COPY in the JSON form when its destination is not plain', () => {
    const out = renderDockerfile(
      input({ files: [{ staged: 'escaped/0f', dest: "/opt/it's $HOME [1].txt" }] }),
    );
    expect(out.split('\n')).toContain(`COPY ["escaped/0f", "/opt/it\\\\'s \\\\$HOME [1].txt"]`);
  });

  it('single-quotes volume targets for the shell', () => {
    const out = renderDockerfile(input({ volumeTargets: ["/data/it's", '/a'] }));
    expect(out).toContain(
      `RUN mkdir -p '/a' '/data/it'\\''s' && chown "\${BYRE_UID}:\${BYRE_GID}" '/a' '/data/it'\\''s'`,
    );
  });
});

describe('security guard', () => {
  it('re-COPYs the gate (no chmod) and the netns script (chmod) for a posture skill', () => {
    const out = renderDockerfile(input({ skills: [firewall], guard: postureGuardFor([firewall]) }));
    const guard = out.slice(out.indexOf('# --- byre security guard'), out.indexOf('HEALTHCHECK'));
    expect(guard.trim().split('\n')).toEqual([
      '# --- byre security guard (re-assert chassis paths after the project block) ---',
      'COPY byre-launch /usr/local/bin/byre-launch',
      'RUN chmod +x /usr/local/bin/byre-launch',
      'COPY "skills/byre/firewall/launch-gate" "/etc/byre/launch-gate"',
      'COPY "skills/byre/firewall/netns-init.sh" "/etc/byre/netns-init.sh"',
      "RUN chmod +x '/etc/byre/netns-init.sh'",
    ]);
  });

  it('has no posture guard without a posture skill', () => {
    expect(postureGuardFor([toolbox, notes])).toBeNull();
  });

  const guard = postureGuardFor([firewall]);
  const cases: { name: string; dests: string[]; guard: typeof guard; want: string[] }[] = [
    { name: 'none', dests: ['/opt/seed'], guard, want: [] },
    {
      name: 'launcher, no posture',
      dests: ['/usr/local/bin/byre-launch'],
      guard: null,
      want: ['/usr/local/bin/byre-launch'],
    },
    {
      name: 'gate without posture is not guarded',
      dests: ['/etc/byre/launch-gate'],
      guard: null,
      want: [],
    },
    {
      name: 'gate with posture',
      dests: ['/etc/byre/launch-gate'],
      guard,
      want: ['/etc/byre/launch-gate'],
    },
    {
      name: 'netns script',
      dests: ['/etc/byre/netns-init.sh'],
      guard,
      want: ['/etc/byre/netns-init.sh'],
    },
    {
      name: 'unnormalized spellings',
      dests: ['/usr/local//bin/./byre-launch', '/etc/byre/launch-gate/'],
      guard,
      want: ['/etc/byre/launch-gate', '/usr/local/bin/byre-launch'],
    },
    {
      name: 'duplicates once',
      dests: ['/usr/local/bin/byre-launch', '/usr/local/bin/byre-launch'],
      guard,
      want: ['/usr/local/bin/byre-launch'],
    },
  ];
  for (const c of cases) {
    it(`guardedPathCollisions: ${c.name}`, () => {
      expect(guardedPathCollisions(c.dests, c.guard)).toEqual(c.want);
    });
  }

  it.each<[string, string[], boolean, string[]]>([
    ['none', ['/opt/seed', '/etc/byre/mcp.json.bak'], true, []],
    ['mcp.json', ['/etc/byre//mcp.json'], false, ['/etc/byre/mcp.json']],
    [
      'the claude skills directory',
      ['/etc/byre/claude-skills/'],
      false,
      ['/etc/byre/claude-skills'],
    ],
    [
      'agent context with an agent',
      ['/etc/byre/agent-context.md'],
      true,
      ['/etc/byre/agent-context.md'],
    ],
    ['agent context without one is not copied', ['/etc/byre/agent-context.md'], false, []],
  ])('wiringPathCollisions: %s', (_name, dests, withAgent, want) => {
    expect(wiringPathCollisions(dests, withAgent)).toEqual(want);
  });
});

describe('the hoisted node layer (adr/0062)', () => {
  const withNode = (id: string, node: number | null, provenance: 'bundled' | 'local' = 'bundled') =>
    fakeSkill(id, provenance, {
      build: { apt: ['git'], node, dockerfile: [`RUN echo ${id}`], files: [] },
    });
  const NODE_MARKER = '# --- node (hoisted: one layer per base and node major) ---';
  const cases: { name: string; skills: ReturnType<typeof withNode>[]; want: string | null }[] = [
    { name: 'no skill', skills: [], want: null },
    { name: 'skills that ask for no node', skills: [withNode('a', null)], want: null },
    {
      name: 'one skill',
      skills: [withNode('a', 22)],
      want: 'RUN /usr/local/lib/byre/ensure-node 22',
    },
    {
      name: 'several majors: the highest, once',
      skills: [
        withNode('a', 18),
        withNode('b', null),
        withNode('c', 22, 'local'),
        withNode('d', 20),
      ],
      want: 'RUN /usr/local/lib/byre/ensure-node 22',
    },
    {
      name: 'the same major twice: one line',
      skills: [withNode('a', 22), withNode('b', 22)],
      want: 'RUN /usr/local/lib/byre/ensure-node 22',
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const text = renderDockerfile(input({ skills: c.skills }));
      const block = text.split('\n\n').filter((b) => b.includes(NODE_MARKER));
      expect(block.flatMap((b) => b.split('\n'))).toEqual(
        c.want === null ? [] : [NODE_MARKER, c.want],
      );
      const lines = text.split('\n');
      const ensure = lines.filter((l) => l.startsWith('RUN /usr/local/lib/byre/ensure-node'));
      expect(ensure).toEqual(c.want === null ? [] : [c.want]);
      expect(lines.includes(NODE_MARKER)).toBe(c.want !== null);
    });
  }

  it('sits right after the core block, before the skill apt, as its own block', () => {
    const out = renderDockerfile(input({ skills: [withNode('a', 20), withNode('b', 22)] }));
    expect(out).toContain(
      [
        'COPY byre-ensure-node /usr/local/lib/byre/ensure-node',
        '',
        NODE_MARKER,
        'RUN /usr/local/lib/byre/ensure-node 22',
        '',
        '# --- skill apt (hoisted above the skill blocks) ---',
        '',
      ].join('\n'),
    );
  });

  it('names no skill: agents on the same base and major render the same prefix', () => {
    const prefix = (skills: ReturnType<typeof withNode>[]): string => {
      const out = renderDockerfile(input({ skills }));
      return out.slice(0, out.indexOf('# --- skill apt'));
    };
    expect(prefix([withNode('byre/claude', 22)])).toBe(
      prefix([withNode('byre/codex', 22), withNode('mine', null, 'local')]),
    );
  });

  it('the bundled agent skills all ask for the same major, and none calls ensure-node itself', () => {
    for (const agent of ['claude', 'codex', 'gemini', 'opencode']) {
      const file = `skills/${agent}/skill.toml`;
      const parsed = parseSkillManifest(readFileSync(file, 'utf8'), file);
      expect(parsed.issues, agent).toEqual([]);
      expect(parsed.value?.build.node, agent).toBe(22);
      expect(parsed.value?.build.dockerfile.join('\n'), agent).not.toContain('ensure-node');
    }
  });
});

describe('labelInstruction', () => {
  it("is one LABEL line, keys sorted, in the builders' double quotes; nothing for no labels", () => {
    expect(labelInstruction({ 'byre.store': 'ab', 'byre.context': 'c$"\\' })).toBe(
      'LABEL "byre.context"="c\\$\\"\\\\" "byre.store"="ab"\n',
    );
    expect(labelInstruction({})).toBe('');
  });
});
