// Agent contract tier (BYRE_AGENT_TESTS=1; slow: real installs from the npm
// registry): for each npm-published agent skill, a box builds from the local
// debian:bookworm on docker, `<cli> --version` answers inside it as dev, and
// the launcher execs the wrapper with byre's context flag — checked with a
// stub standing in for the real CLI, which would need a login.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { flavorsUnderTest } from './engines.js';
import { cleanupProject, makeProject, runByre, type TestProject } from './harness.js';

const enabled = process.env['BYRE_AGENT_TESTS'] === '1';
const docker = flavorsUnderTest().find((f) => f.engine === 'docker' && f.user === null);

interface AgentCase {
  name: string;
  cli: string;
  /** What the stubbed launch must show. */
  expect: (out: string) => void;
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
  },
  {
    name: 'codex',
    cli: 'codex',
    expect: (out) => {
      expect(out).toMatch(/ARGS: -c developer_instructions=".*/);
      expect(out).toContain(CHASSIS);
      expect(out).toContain('--dangerously-bypass-approvals-and-sandbox');
    },
  },
  {
    name: 'gemini',
    cli: 'gemini',
    expect: (out) => {
      expect(out).toContain('ARGS: --yolo --include-directories /etc/byre/context');
      expect(out).toContain(`MEMORY: ${CHASSIS}`);
    },
  },
  {
    name: 'opencode',
    cli: 'opencode',
    expect: (out) => {
      expect(out).toMatch(/OCC: \{.*"instructions":\["\/etc\/byre\/agent-context\.md"\]/);
    },
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

const projects: TestProject[] = [];
afterAll(() => {
  for (const p of projects.splice(0)) cleanupProject(p);
});

describe.skipIf(!enabled || docker === undefined).each(cases)(
  'agent skill byre/$name on docker',
  (c) => {
    it('builds, answers --version as dev, and launches through its wrapper with the context flag', () => {
      const p = makeProject(docker ?? 'docker', c.name);
      projects.push(p);
      p.writeConfig(`agent = "${c.name}"\n`);
      const build = runByre(p, ['rebuild']);
      expect(build.stderr.slice(-2000)).toContain('byre: rebuilt');
      expect(build.status).toBe(0);
      const image = `byre-${p.id}-u0-g0`;

      const version = spawnSync(
        'docker',
        ['run', '--rm', '--label', 'byre.test=1', '--entrypoint', c.cli, image, '--version'],
        {
          encoding: 'utf8',
        },
      );
      expect(version.stderr).not.toMatch(/not found/);
      expect(version.status).toBe(0);
      expect(version.stdout).toMatch(/\d+\.\d+\.\d+/);

      const stubDir = path.join(p.root, 'stub');
      mkdirSync(stubDir);
      writeFileSync(path.join(stubDir, c.cli), STUB);
      chmodSync(path.join(stubDir, c.cli), 0o755);
      const launched = spawnSync(
        'docker',
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
    });
  },
);
