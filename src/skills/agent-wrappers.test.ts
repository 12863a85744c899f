// The bundled agents' launch wrappers, run for real (sh and jq, as in the
// box) against a stub CLI that prints what it was given: the MCP adapters
// turn /etc/byre/mcp.json into each agent's own channel, and the context
// channels keep working beside them.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { testTempDir } from '../../test/support/temp.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const wrapper = (agent: string, file: string): string => path.join(ROOT, 'skills', agent, file);

const MCP = {
  mcpServers: {
    docs: {
      type: 'http',
      url: 'https://docs.example/mcp',
      headers: {
        Authorization: 'Bearer ${DOCS_TOKEN}',
        'X-Key': '${DOCS_KEY}',
        'X-Plain': 'v"1',
        'X-Mixed': 'id=${ORG}',
      },
      x_byre_env: ['DOCS_TOKEN'],
    },
    github: {
      type: 'stdio',
      command: 'github-mcp-server',
      args: ['stdio', '--x="y z"'],
      x_byre_env: ['GITHUB_TOKEN'],
    },
  },
};

/** Runs a wrapper with a stub `cli` that prints one `[arg]` line per argument and its env of interest. */
function run(
  agent: string,
  file: string,
  cli: string,
  mcp: unknown,
  args: string[],
  env: Record<string, string> = {},
): { out: string; err: string } {
  const dir = testTempDir('wrapper');
  mkdirSync(path.join(dir, 'bin'));
  const stub = path.join(dir, 'bin', cli);
  writeFileSync(
    stub,
    '#!/bin/sh\nfor a in "$@"; do printf "[%s]\\n" "$a"; done\necho "OCC=${OPENCODE_CONFIG_CONTENT:-}"\n',
  );
  chmodSync(stub, 0o755);
  writeFileSync(path.join(dir, 'mcp.json'), JSON.stringify(mcp));
  writeFileSync(path.join(dir, 'context.md'), 'BAKED CONTEXT\n');
  const r = spawnSync('sh', [wrapper(agent, file), ...args], {
    encoding: 'utf8',
    env: {
      PATH: `${path.join(dir, 'bin')}:/usr/bin:/bin`,
      BYRE_MCP_CONFIG: path.join(dir, 'mcp.json'),
      BYRE_AGENT_CONTEXT: path.join(dir, 'context.md'),
      ...env,
    },
  });
  expect(r.status, r.stderr).toBe(0);
  const out = r.stdout;
  const err = r.stderr;
  return { out, err };
}

const argv = (out: string): string[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('['))
    .map((l) => l.slice(1, -1));

describe('codex: byre-codex-launch', () => {
  it('turns every server into -c mcp_servers.<name>.… overrides, before the caller’s arguments', () => {
    const { out } = run('codex', 'byre-codex-launch', 'codex', MCP, ['--yolo', 'a prompt']);
    const args = argv(out);
    const overrides = args.flatMap((a, i) => (args[i - 1] === '-c' ? [a] : []));
    expect(overrides).toEqual([
      'developer_instructions="\\nBAKED CONTEXT"',
      'mcp_servers.docs.url="https://docs.example/mcp"',
      'mcp_servers.docs.bearer_token_env_var="DOCS_TOKEN"',
      'mcp_servers.docs.env_http_headers={"X-Key" = "DOCS_KEY"}',
      'mcp_servers.docs.http_headers={"X-Plain" = "v\\"1"}',
      'mcp_servers.github.command="github-mcp-server"',
      'mcp_servers.github.args=["stdio","--x=\\"y z\\""]',
      'mcp_servers.github.env_vars=["GITHUB_TOKEN"]',
    ]);
    expect(args.slice(-2)).toEqual(['--yolo', 'a prompt']);
  });

  it('names a header it cannot template instead of passing it on', () => {
    const { out, err } = run('codex', 'byre-codex-launch', 'codex', MCP, []);
    expect(out).not.toContain('X-Mixed');
    expect(err).toBe(
      'byre: MCP server docs: codex cannot fill header X-Mixed from a template; it is left out\n',
    );
  });

  it('an empty set adds nothing but the context', () => {
    const { out } = run('codex', 'byre-codex-launch', 'codex', { mcpServers: {} }, ['x']);
    expect(argv(out)).toEqual(['-c', 'developer_instructions="\\nBAKED CONTEXT"', 'x']);
  });
});

describe('opencode: byre-opencode-launch', () => {
  const occ = (out: string): unknown =>
    JSON.parse(
      out
        .split('\n')
        .find((l) => l.startsWith('OCC='))
        ?.slice(4) ?? 'null',
    );

  it('puts the servers in OPENCODE_CONFIG_CONTENT’s mcp, with the instructions', () => {
    const { out } = run('opencode', 'byre-opencode-launch', 'opencode', MCP, ['run']);
    expect(occ(out)).toEqual({
      mcp: {
        docs: {
          type: 'remote',
          url: 'https://docs.example/mcp',
          enabled: true,
          headers: {
            Authorization: 'Bearer {env:DOCS_TOKEN}',
            'X-Key': '{env:DOCS_KEY}',
            'X-Plain': 'v"1',
            'X-Mixed': 'id={env:ORG}',
          },
        },
        github: {
          type: 'local',
          command: ['github-mcp-server', 'stdio', '--x="y z"'],
          enabled: true,
          environment: { GITHUB_TOKEN: '{env:GITHUB_TOKEN}' },
        },
      },
      instructions: [expect.stringMatching(/context\.md$/)],
    });
    expect(argv(out)).toEqual(['run']);
  });

  it('deep-merges with a value already set, which wins key by key', () => {
    const { out } = run('opencode', 'byre-opencode-launch', 'opencode', MCP, [], {
      OPENCODE_CONFIG_CONTENT: '{"theme":"x","mcp":{"github":{"enabled":false}}}',
    });
    const merged = occ(out) as { theme: string; mcp: Record<string, { enabled: boolean }> };
    expect(merged.theme).toBe('x');
    expect(merged.mcp['github']?.enabled).toBe(false);
    expect(merged.mcp['docs']?.enabled).toBe(true);
  });

  it.each([
    [['--auto'], ['--auto']],
    [
      ['--auto', '.'],
      ['--auto', '.'],
    ],
    [
      ['--auto', '-c'],
      ['--auto', '-c'],
    ],
    [
      ['--auto', 'run', 'fix it'],
      ['run', '--auto', 'fix it'],
    ],
    [
      ['--auto', 'mcp', 'list'],
      ['mcp', 'list'],
    ],
    [
      ['--auto', 'auth', 'login'],
      ['auth', 'login'],
    ],
    [
      ['run', 'x'],
      ['run', 'x'],
    ],
  ])('passes %j to opencode as %j (--auto only where opencode takes it)', (given, want) => {
    const { out } = run('opencode', 'byre-opencode-launch', 'opencode', MCP, given);
    expect(argv(out)).toEqual(want);
  });

  it('an empty set adds no mcp table', () => {
    const { out } = run('opencode', 'byre-opencode-launch', 'opencode', { mcpServers: {} }, []);
    expect(occ(out)).toEqual({ instructions: [expect.stringMatching(/context\.md$/)] });
  });
});

describe('gemini: byre-gemini-launch', () => {
  /** Runs the wrapper with a stub gemini that prints its arguments and the settings file it was pointed at. */
  function gemini(
    mcp: string,
    env: Record<string, string> = {},
  ): { args: string[]; path: string; settings: unknown; err: string; home: string } {
    const dir = testTempDir('wrapper');
    const home = path.join(dir, 'home');
    mkdirSync(path.join(dir, 'bin'));
    mkdirSync(home);
    const stub = path.join(dir, 'bin', 'gemini');
    writeFileSync(
      stub,
      '#!/bin/sh\nfor a in "$@"; do printf "[%s]\\n" "$a"; done\n' +
        'echo "PATH=${GEMINI_CLI_SYSTEM_SETTINGS_PATH:-}"\n' +
        '[ -z "${GEMINI_CLI_SYSTEM_SETTINGS_PATH:-}" ] || cat "$GEMINI_CLI_SYSTEM_SETTINGS_PATH"\n',
    );
    chmodSync(stub, 0o755);
    writeFileSync(path.join(dir, 'mcp.json'), mcp);
    const r = spawnSync('sh', [wrapper('gemini', 'byre-gemini-launch'), '--yolo', 'a "b"'], {
      encoding: 'utf8',
      env: {
        PATH: `${path.join(dir, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: home,
        BYRE_MCP_CONFIG: path.join(dir, 'mcp.json'),
        ...env,
      },
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('PATH='));
    const rest = lines
      .slice(at + 1)
      .join('\n')
      .trim();
    return {
      args: argv(r.stdout),
      path: lines[at]?.slice('PATH='.length) ?? '',
      settings: rest === '' ? null : JSON.parse(rest),
      err: r.stderr,
      home,
    };
  }

  it('points gemini at system settings holding every server; the arguments pass unchanged', () => {
    const r = gemini(JSON.stringify(MCP), { GITHUB_TOKEN: 'set' });
    expect(r.args).toEqual(['--yolo', 'a "b"']);
    expect(r.settings).toEqual({
      mcpServers: {
        docs: { httpUrl: 'https://docs.example/mcp', headers: MCP.mcpServers.docs.headers },
        github: {
          command: 'github-mcp-server',
          args: ['stdio', '--x="y z"'],
          env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
        },
      },
    });
    expect(r.err).toBe('');
  });

  it('names only the env the box sets, in a private directory under the home', () => {
    const r = gemini(JSON.stringify(MCP));
    expect(r.settings).toMatchObject({ mcpServers: { github: { env: {} } } });
    expect(path.dirname(path.dirname(r.path))).toBe(path.join(r.home, '.cache'));
    expect(statSync(path.dirname(r.path)).mode & 0o077).toBe(0);
  });

  it('an unreadable mcp.json: gemini starts without byre’s servers, and stderr says so', () => {
    const r = gemini('{not json');
    expect(r.args).toEqual(['--yolo', 'a "b"']);
    expect(r.path).toBe('');
    expect(r.err).toContain("gemini starts without byre's MCP servers");
    expect(readdirSync(path.join(r.home, '.cache'))).toEqual([]);
  });
});
