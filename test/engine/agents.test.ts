// Agent contract tier (BYRE_AGENT_TESTS=1; slow: real installs from the npm
// registry): for each npm-published agent skill, develop builds its image
// from the local debian:bookworm on root docker (with the layer cache, as a
// user's would: the agents share one node layer), `<cli> --version` answers
// inside it as dev,
// and the launcher execs the wrapper with byre's context flag — checked with a
// stub standing in for the real CLI, which would need a login. For the agents
// whose skill vouches MCP delivery, the same image also proves the real CLI,
// started through byre's agent command, connects to the MCP servers byre baked
// into /etc/byre/mcp.json: a probe server (test/fixtures/mcp-probe.mjs) over
// stdio and over HTTP on the box's loopback logs the CLI's own initialize and
// tools/list. That runs with no network (`--network none`) and no API key:
// each CLI is given a command that starts its MCP clients before, or without,
// asking a model.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { flavorsUnderTest } from './engines.js';
import {
  cleanupProject,
  engineCli,
  makeProject,
  startByre,
  waitFor,
  type TestProject,
} from './harness.js';

const enabled = process.env['BYRE_AGENT_TESTS'] === '1';
// Root docker only: what this tier proves is the skills' install and the
// agents' own CLIs, which no engine changes; the launcher's agent path on
// podman and rootless podman is develop's (test/engine/develop.test.ts), and
// each agent build here costs minutes of npm installs.
const dockerFlavors = flavorsUnderTest().filter((f) => f.user === null && f.engine === 'docker');

interface AgentCase {
  name: string;
  cli: string;
  /** What the stubbed launch must show. */
  expect: (out: string) => void;
  /**
   * For an agent byre delivers MCP to: arguments after its command that make
   * the real CLI start its MCP clients offline, the client name it
   * announces, and box env byre's run would set (the skill's runtime env) or
   * that gets the CLI past its login check.
   */
  mcp?: { args: string[]; client: RegExp; env?: string[] };
  /**
   * Options the skill's command passes that the real CLI would ignore if it
   * did not know them (its parser is not strict): its `--help` must list them.
   */
  helpLists?: string[];
}

const CHASSIS = 'arrive in /inbox';

const cases: AgentCase[] = [
  {
    name: 'claude',
    cli: 'claude',
    expect: (out) => {
      expect(out).toMatch(
        /ARGS: --append-system-prompt-file \S+ --dangerously-skip-permissions --mcp-config \/etc\/byre\/mcp\.json --add-dir \/etc\/byre\/claude-skills/,
      );
      expect(out).toContain(`FILE: ${CHASSIS}`);
    },
    // Print mode connects every MCP server before it asks the model (and,
    // with no key, fails after).
    mcp: { args: ['-p', 'say hi'], client: /claude/ },
  },
  {
    name: 'codex',
    cli: 'codex',
    expect: (out) => {
      expect(out).toMatch(/ARGS: -c developer_instructions=".*/);
      expect(out).toContain(CHASSIS);
      expect(out).toContain('--dangerously-bypass-approvals-and-sandbox');
    },
    // A non-interactive session starts its MCP servers while it retries a
    // model it cannot reach.
    mcp: { args: ['exec', '--skip-git-repo-check', 'say hi'], client: /codex/ },
  },
  {
    name: 'gemini',
    cli: 'gemini',
    expect: (out) => {
      expect(out).toContain('ARGS: --yolo --include-directories /etc/byre/context');
      expect(out).toContain(`MEMORY: ${CHASSIS}`);
    },
    // Headless mode connects every MCP server, then fails to reach the model.
    mcp: {
      args: ['-p', 'say hi'],
      client: /gemini/,
      env: ['GEMINI_API_KEY=not-a-key', 'GEMINI_CLI_TRUST_WORKSPACE=true'],
    },
  },
  {
    name: 'opencode',
    cli: 'opencode',
    expect: (out) => {
      expect(out).toContain('ARGS: --auto');
      expect(out).toMatch(/OCC: \{.*"instructions":\["\/etc\/byre\/agent-context\.md"\]/);
    },
    helpLists: ['--auto'],
    // `mcp list` connects to each configured server to show its status.
    mcp: { args: ['mcp', 'list'], client: /opencode/ },
  },
];

const STUB = `#!/bin/sh
echo "ARGS: $*"
prev=""
for a in "$@"; do
  if [ "$prev" = "--append-system-prompt-file" ]; then echo "FILE: $(grep -o 'arrive in /inbox' "$a" | head -1)"; fi
  prev=$a
done
if [ -r /etc/byre/context/GEMINI.md ]; then echo "MEMORY: $(grep -o 'arrive in /inbox' /etc/byre/context/GEMINI.md | head -1)"; fi
echo "OCC: \${OPENCODE_CONFIG_CONTENT:-}"
`;

// Two servers through byre's own config: stdio with an argument and a token
// NAME, HTTP with a bearer token, a templated header and a literal one.
const PROBE = path.resolve('test/fixtures/mcp-probe.mjs');
const PROBE_PORT = 8765;
const MCP_CONFIG = `
[[mcp]]
name = "probe"
command = ["node", "/probe/mcp-probe.mjs", "--stdio-arg"]
env = ["PROBE_TOKEN"]

[[mcp]]
name = "probehttp"
url = "http://127.0.0.1:${PROBE_PORT}/mcp"
headers = { Authorization = "Bearer \${PROBE_TOKEN}", X-Team = "\${PROBE_TEAM}", X-Api-Version = "7" }
`;

/**
 * Run inside the box by its launcher: the HTTP probe, then the agent command
 * with the case's arguments in the background, until both probes have seen
 * tools/list (or two minutes pass); the log is the output.
 */
const MCP_RUN = `log=/tmp/byre-mcp-probe.log
node /probe/mcp-probe.mjs --http ${PROBE_PORT} &
i=0
while [ ! -e "$log.ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
/etc/byre/agent-cmd "$@" </dev/null >/tmp/agent.out 2>&1 &
i=0
while [ "$(cat "$log" 2>/dev/null | grep -c '"rpc":"tools/list"')" -lt 2 ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
cat "$log" 2>/dev/null
echo "--- agent output" >&2
tail -c 4000 /tmp/agent.out >&2
`;

interface ProbeLine {
  via: 'stdio' | 'http';
  argv?: string[];
  env?: Record<string, string>;
  rpc?: string | null;
  client?: string | null;
  authorization?: string | null;
  team?: string | null;
  version?: string | null;
}

// The box develop starts runs the real CLI, which would reach for its
// vendor's servers: it gets no network (the build still has one).
const NO_NETWORK = 'run_args = ["--network=none"]';

/**
 * Builds the project's image the way a user's develop does, with the layer
 * cache (so the agents share the node layer, adr/0062), then stops the
 * session and removes its box: the tests run the image themselves.
 */
async function buildByDevelop(p: TestProject, tag: string): Promise<void> {
  const session = startByre(p, ['develop']);
  let code: number | null | undefined;
  void session.exited.then((c) => (code = c));
  try {
    await waitFor(
      `the ${tag} image`,
      () => {
        const built = spawnSync(p.flavor.engine, ['image', 'inspect', tag], { stdio: 'ignore' });
        if (built.status === 0) return true;
        if (code !== undefined) {
          throw new Error(`develop exited ${code} before the image existed:\n${session.stderr()}`);
        }
        return null;
      },
      1_500_000,
    );
  } finally {
    await session.kill();
    // The engine may be removing the box already (its --rm, once byre's
    // attached client is gone): a removal "already in progress" is awaited, not an error.
    const left = (): string[] =>
      engineCli(p, ['ps', '-aq', '--filter', `label=byre.project=${p.id}`])
        .split('\n')
        .filter((id) => id.trim() !== '');
    // Asked again at every look: the engine client byre ran may still have
    // been creating the box when byre was killed, and a box created but never
    // started is no --rm's to remove (seen: one left past the wait).
    await waitFor(
      'the session’s box to be gone',
      () => {
        const ids = left();
        for (const id of ids) spawnSync(p.flavor.engine, ['rm', '-f', id], { stdio: 'ignore' });
        return ids.length === 0 ? true : null;
      },
      60_000,
    );
  }
}

const projects: TestProject[] = [];
afterAll(() => {
  for (const p of projects.splice(0)) cleanupProject(p);
});

const runs = cases.flatMap((c) =>
  dockerFlavors.map((flavor) => ({ ...c, flavor, engine: flavor.engine })),
);

if (runs.length === 0) {
  // A lane without root docker (the podman lane) has no runs, and vitest
  // fails a file with no suite: it reports the tier skipped instead.
  describe.skip('agent skills (root docker only)', () => {
    it.skip('needs root docker among the engines under test', () => {});
  });
}

describe.skipIf(!enabled || runs.length === 0).each(runs)(
  'agent skill byre/$name on $engine',
  (c) => {
    let image: string | null = null;

    it('builds, answers --version as dev, and launches through its wrapper with the context flag', async () => {
      const p = makeProject(c.flavor, c.name);
      projects.push(p);
      p.writeConfig(`agent = "${c.name}"\n${NO_NETWORK}\n${c.mcp === undefined ? '' : MCP_CONFIG}`);
      const tag = `byre-${p.id}-u0-g0`;
      await buildByDevelop(p, tag);
      image = tag;

      // The agent's own CLI as the entrypoint, with one argument.
      const cli = (arg: string) =>
        spawnSync(
          c.engine,
          [
            'run',
            '--rm',
            '--pull=never',
            '--label',
            'byre.test=1',
            '--entrypoint',
            c.cli,
            tag,
            arg,
          ],
          { encoding: 'utf8' },
        );
      const version = cli('--version');
      expect(version.stderr).not.toMatch(/not found/);
      expect(version.status).toBe(0);
      expect(version.stdout).toMatch(/\d+\.\d+\.\d+/);
      if (c.helpLists !== undefined) {
        const help = cli('--help');
        for (const option of c.helpLists) expect(`${help.stdout}${help.stderr}`).toContain(option);
      }

      const stubDir = path.join(p.root, 'stub');
      mkdirSync(stubDir);
      writeFileSync(path.join(stubDir, c.cli), STUB);
      chmodSync(path.join(stubDir, c.cli), 0o755);
      const launched = spawnSync(
        c.engine,
        [
          'run',
          '--rm',
          '--label',
          'byre.test=1',
          '--mount',
          `type=bind,source=${stubDir},target=/stub,readonly`,
          '-e',
          'PATH=/stub:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
          image,
        ],
        { encoding: 'utf8', input: '' },
      );
      expect(launched.status).toBe(0);
      c.expect(launched.stdout);
    }, 1_800_000);

    it.skipIf(c.mcp === undefined)(
      'the real CLI, started by the agent command, connects to both MCP servers byre baked',
      () => {
        expect(image).not.toBeNull();
        const run = spawnSync(
          c.engine,
          [
            'run',
            '--rm',
            '--label',
            'byre.test=1',
            '--network',
            'none',
            '--mount',
            `type=bind,source=${PROBE},target=/probe/mcp-probe.mjs,readonly`,
            '-e',
            'PROBE_TOKEN=tok-7f3a',
            '-e',
            'PROBE_TEAM=blue',
            ...(c.mcp?.env ?? []).flatMap((e) => ['-e', e]),
            // The tier builds as root, so the box's dev user is uid 0: claude
            // starts only because its launcher says it runs in a sandbox
            // (no IS_SANDBOX is passed here).
            image ?? '',
            'sh',
            '-c',
            MCP_RUN,
            'mcp-run',
            ...(c.mcp?.args ?? []),
          ],
          { encoding: 'utf8', input: '' },
        );
        const lines = run.stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as ProbeLine);
        const context = `probe log:\n${run.stdout}\n${run.stderr}`;
        const client = c.mcp?.client ?? /^$/;
        for (const via of ['stdio', 'http'] as const) {
          const seen = lines.filter((l) => l.via === via);
          const init = seen.find((l) => l.rpc === 'initialize');
          expect(init?.client, context).toMatch(client);
          expect(
            seen.some((l) => l.rpc === 'tools/list'),
            context,
          ).toBe(true);
        }
        // The stdio server got its argv and the token it reads by NAME.
        const start = lines.find((l) => l.via === 'stdio' && l.argv !== undefined);
        expect(start?.argv, context).toEqual(['--stdio-arg']);
        expect(start?.env?.['PROBE_TOKEN'], context).toBe('tok-7f3a');
        // Every HTTP request carried the headers, ${VAR} filled from the box env.
        for (const l of lines.filter((x) => x.via === 'http')) {
          expect([l.authorization, l.team, l.version], context).toEqual([
            'Bearer tok-7f3a',
            'blue',
            '7',
          ]);
        }
      },
    );
  },
);
