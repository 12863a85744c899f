// Engine tier for the wiring byre delivers (docker and podman, as root; one
// image per engine for every check): a config made with the verbs (one stdio
// MCP server, one Claude Skill, one [[context]] block) bakes
// /etc/byre/mcp.json, the Claude Skill tree and the context text into the
// image, and the agents' own launch paths carry the delivery: claude's
// command flags, codex's -c overrides, opencode's OPENCODE_CONFIG_CONTENT.
// The agents are the bundled skills with their CLI swapped for a stub that
// prints its argv (their real wrapper, command and vouches; no npm install),
// and seed_prefs copies the claude skill's [agent.prefs] into its fresh
// state volume.

import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyEdits, documentData, getValue, parseDocument } from '../../src/tomldoc/index.js';
import { shQuote } from '../../src/gen/quote.js';
import { flavorsUnderTest } from './engines.js';
import { engineCli, runByre, testScope, type TestProject } from './harness.js';

const rootFlavors = flavorsUnderTest().filter((f) => f.user === null);
const scope = testScope('all');

const STUB = `#!/bin/sh
echo "STUB $(basename "$0")"
for a in "$@"; do printf 'ARG %s\\n' "$a"; done
echo "OCC: \${OPENCODE_CONFIG_CONTENT:-}"
`;

/**
 * The bundled agent skill `agent`, as the local skill `stub-<agent>`: its
 * [agent] table, wrapper and prefs as shipped, its CLI a stub, no installer.
 */
function installStubAgent(
  project: TestProject,
  agent: string,
  cli: string,
  apt: string[],
  extra: Record<string, string> = {},
): void {
  const dir = path.join(project.home, 'skills', `stub-${agent}`);
  mkdirSync(dir, { recursive: true });
  for (const name of Object.keys(extra)) writeFileSync(path.join(dir, name), `${name}\n`);
  const wrapper = `byre-${agent}-launch`;
  cpSync(path.resolve('skills', agent, wrapper), path.join(dir, wrapper));
  writeFileSync(path.join(dir, 'stub'), STUB);
  chmodSync(path.join(dir, 'stub'), 0o755);
  const text = readFileSync(path.resolve('skills', agent, 'skill.toml'), 'utf8');
  const lines = getValue(parseDocument(text), ['build', 'dockerfile']);
  const kept = (Array.isArray(lines) ? lines : []).filter(
    (l): l is string => typeof l === 'string' && !l.includes('npm install'),
  );
  const manifest = applyEdits(text, [
    { op: 'set', path: ['package', 'id'], value: `stub-${agent}` },
    { op: 'set', path: ['build', 'apt'], value: apt },
    // The stub needs no node: no hoisted node layer (adr/0062).
    { op: 'delete', path: ['build', 'node'] },
    {
      op: 'set',
      path: ['build', 'files'],
      value: { [wrapper]: `/usr/local/bin/${wrapper}`, stub: `/usr/local/bin/${cli}`, ...extra },
    },
    {
      op: 'set',
      path: ['build', 'dockerfile'],
      value: [...kept, `RUN chmod 0755 /usr/local/bin/${cli}`],
    },
  ]);
  expect(documentData(parseDocument(manifest))['agent']).toEqual(
    documentData(parseDocument(text))['agent'],
  );
  writeFileSync(path.join(dir, 'skill.toml'), manifest);
}

// Names each builder reads its own way in a plain COPY line: whitespace splits
// it, `$` expands, quotes and backslashes are removed, `[*?` glob.
const PROJECT_FILE = "seed [v1] it's $HOME *?.txt";
const PROJECT_FILE_DEST = '/opt/seed dir/"q" \\ $HOME [v1].txt';
const SKILL_FILE = 'notes\\back $X [draft].md';
const SKILL_FILE_DEST = "/opt/skill notes/it's ${X}.md";

const STAMP = '/opt/project-block-stamp';

const argsOf = (out: string): string[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('ARG '))
    .map((l) => l.slice(4));

describe.skipIf(rootFlavors.length === 0).each(rootFlavors)(
  'wiring delivered on $label',
  (flavor) => {
    let project: TestProject;
    let image: string;
    let develop: { status: number | null; stdout: string; stderr: string };
    let userHome: string;

    const inImage = (script: string): string =>
      engineCli(project, [
        'run',
        '--rm',
        '--pull=never',
        '--label',
        'byre.test=1',
        '--entrypoint',
        'sh',
        image,
        '-c',
        script,
      ]);
    const launch = (...argv: string[]): string =>
      engineCli(project, [
        'run',
        '--rm',
        '-i',
        '--pull=never',
        '--label',
        'byre.test=1',
        image,
        ...argv,
      ]);

    beforeAll(() => {
      project = scope.project(flavor, 'wiring');
      image = `byre-${project.id}-u0-g0`;
      userHome = path.join(project.root, 'user');
      mkdirSync(path.join(userHome, '.claude', 'themes'), { recursive: true });
      writeFileSync(path.join(userHome, '.claude', 'keybindings.json'), '{"ctrl+k":"kill"}\n');
      writeFileSync(path.join(userHome, '.claude', 'themes', 'dark.json'), '{"bg":"black"}\n');
      writeFileSync(path.join(userHome, '.claude', '.credentials.json'), 'SECRET\n');
      const skillDir = path.join(project.root, 'cs', 'tdd');
      mkdirSync(path.join(skillDir, 'refs'), { recursive: true });
      writeFileSync(
        path.join(skillDir, 'SKILL.md'),
        '---\nname: tdd\ndescription: tests first\n---\nWrite the test first.\n',
      );
      writeFileSync(path.join(skillDir, 'refs', 'loop.md'), 'red, green, refactor\n');

      installStubAgent(project, 'claude', 'claude', []);
      installStubAgent(project, 'codex', 'codex', ['jq']);
      installStubAgent(project, 'opencode', 'opencode', [], { [SKILL_FILE]: SKILL_FILE_DEST });
      writeFileSync(path.join(project.dir, PROJECT_FILE), `${PROJECT_FILE}\n`);
      project.writeConfig(
        '# made for the wiring test\nagent = "stub-claude"\nskills = ["stub-codex", "stub-opencode"]\nseed_prefs = true\n' +
          // The project block's last layer: a stamp a re-run would change.
          `dockerfile_post = ["RUN date +%s%N > ${STAMP}"]\n` +
          `[files]\n${JSON.stringify(PROJECT_FILE)} = ${JSON.stringify(PROJECT_FILE_DEST)}\n`,
      );
      const env = { HOME: userHome };
      for (const args of [
        ['mcp', 'add', 'fs', '--env', 'FS_TOKEN', '--', 'fs-mcp', '--root', '/workspace'],
        ['claude-skill', 'add', skillDir],
        ['context', 'add', 'house', '--text', 'HOUSE-RULES-CONTEXT: run the linter.'],
      ]) {
        const r = runByre(project, args, { env });
        expect(r.status, r.stderr).toBe(0);
      }
      develop = runByre(project, ['develop'], { env });
    });

    it('develop launches claude with its delivery flags, and seeds its prefs', () => {
      expect(develop.status, develop.stderr.slice(-3000)).toBe(0);
      expect(develop.stdout).toContain('STUB claude');
      const args = argsOf(develop.stdout);
      expect(args).toContain('--append-system-prompt-file');
      const at = (flag: string): string | undefined => args[args.indexOf(flag) + 1];
      expect(at('--mcp-config')).toBe('/etc/byre/mcp.json');
      expect(at('--add-dir')).toBe('/etc/byre/claude-skills');
      expect(develop.stderr).toContain(
        "seeded stub-claude's prefs into its fresh state volume: keybindings.json, themes",
      );
    });

    it('the image holds /etc/byre/mcp.json, the Claude Skill tree and the context text', () => {
      expect(JSON.parse(inImage('cat /etc/byre/mcp.json'))).toEqual({
        mcpServers: {
          fs: {
            type: 'stdio',
            command: 'fs-mcp',
            args: ['--root', '/workspace'],
            x_byre_env: ['FS_TOKEN'],
          },
        },
      });
      expect(
        inImage(
          'cd /etc/byre/claude-skills/.claude/skills && find . -type f | sort && cat tdd/refs/loop.md',
        ),
      ).toBe('./tdd/SKILL.md\n./tdd/refs/loop.md\nred, green, refactor\n');
      expect(inImage('cat /etc/byre/agent-context.md')).toContain(
        'HOUSE-RULES-CONTEXT: run the linter.',
      );
    });

    it('files and skill files with names a plain COPY would mangle land byte for byte', () => {
      const cat = (dest: string) => inImage(`cat ${shQuote(dest)}`);
      expect(cat(PROJECT_FILE_DEST)).toBe(`${PROJECT_FILE}\n`);
      expect(cat(SKILL_FILE_DEST)).toBe(`${SKILL_FILE}\n`);
    });

    it('codex gets the server as -c overrides, beside its context', () => {
      const out = launch('byre-codex-launch', '--dangerously-bypass-approvals-and-sandbox');
      const args = argsOf(out);
      const overrides = args.filter((_, i) => args[i - 1] === '-c');
      expect(overrides).toEqual(
        expect.arrayContaining([
          'mcp_servers.fs.command="fs-mcp"',
          'mcp_servers.fs.args=["--root","/workspace"]',
          'mcp_servers.fs.env_vars=["FS_TOKEN"]',
        ]),
      );
      expect(overrides.some((o) => o.includes('HOUSE-RULES-CONTEXT'))).toBe(true);
      expect(args[args.length - 1]).toBe('--dangerously-bypass-approvals-and-sandbox');
    });

    it('opencode gets the server in OPENCODE_CONFIG_CONTENT', () => {
      const out = launch('byre-opencode-launch');
      const occ =
        out
          .split('\n')
          .find((l) => l.startsWith('OCC: '))
          ?.slice(5) ?? 'null';
      expect(JSON.parse(occ)).toMatchObject({
        mcp: {
          fs: {
            type: 'local',
            command: ['fs-mcp', '--root', '/workspace'],
            enabled: true,
            environment: { FS_TOKEN: '{env:FS_TOKEN}' },
          },
        },
        instructions: ['/etc/byre/agent-context.md'],
      });
    });

    it('the seeded state volume holds the listed prefs and nothing else from that directory', () => {
      const out = engineCli(project, [
        'run',
        '--rm',
        '--pull=never',
        '--label',
        'byre.test=1',
        '--mount',
        `type=volume,source=byre-${project.id}-.claude,target=/v`,
        '--entrypoint',
        'sh',
        image,
        '-c',
        'cd /v && find . -type f | sort && cat keybindings.json',
      ]);
      expect(out).toBe('./keybindings.json\n./themes/dark.json\n{"ctrl+k":"kill"}\n');
    });

    it('status says all three deliver MCP, and list agrees', () => {
      const status = JSON.parse(
        runByre(project, ['status', '--data'], { env: { HOME: userHome } }).stdout,
      ) as {
        mcp_delivery: string;
        claude_skills_delivery: string;
        instructions_delivery: string;
      };
      expect(status.mcp_delivery).toBe('delivered to stub-claude');
      expect(status.claude_skills_delivery).toBe('delivered to stub-claude');
      expect(status.instructions_delivery).toBe('delivered to stub-claude');
      const list = runByre(project, ['mcp', 'list'], { env: { HOME: userHome } }).stdout;
      for (const agent of ['stub-claude (the agent)', 'stub-codex', 'stub-opencode']) {
        expect(list).toContain(`  ${agent}: delivers it`);
      }
    });

    // The wiring is one directory COPY into /etc/byre after USER dev (adr/0069):
    // it leaves the directory and the chassis files in it as they were, writes
    // root-owned files, and the tail's settings still hold.
    it('the wiring COPY, last, writes root-owned files and keeps /etc/byre and the tail', () => {
      // The tests bake uid 0 (they run as root), so the box user's write
      // refusal shows only as the owner and mode here.
      const out = inImage(
        'stat -c "%n %U %a" /etc/byre /etc/byre/mcp.json /etc/byre/agent-context.md /etc/byre/claude-skills /etc/byre/agent-cmd; ' +
          'test -f /etc/byre/image-path && echo PATH-KEPT',
      ).split('\n');
      expect(out).toEqual([
        '/etc/byre root 755',
        '/etc/byre/mcp.json root 644',
        '/etc/byre/agent-context.md root 644',
        '/etc/byre/claude-skills root 755',
        '/etc/byre/agent-cmd root 755',
        'PATH-KEPT',
        '',
      ]);
      // Podman keeps the healthcheck beside the OCI config, docker inside it.
      const health = flavor.engine === 'docker' ? '.Config.Healthcheck' : '.HealthCheck';
      const [user, entrypoint, healthcheck] = engineCli(project, [
        'image',
        'inspect',
        '--format',
        `{{json .Config.User}}|{{json .Config.Entrypoint}}|{{json ${health}}}`,
        image,
      ])
        .trim()
        .split('|')
        .map((j) => JSON.parse(j) as unknown);
      expect(user).toBe('dev');
      expect(entrypoint).toEqual(['/usr/local/bin/byre-launch']);
      expect(healthcheck).toMatchObject({ Test: ['NONE'] });
    });

    // Last: it changes the image the checks above read.
    const imageId = (ref: string): string =>
      engineCli(project, ['image', 'inspect', '--format', '{{.Id}}', ref]).trim();

    it('a wiring change rebuilds only the wiring COPY, on the same base image (adr/0056, adr/0069, adr/0073)', () => {
      const stamp = inImage(`cat ${STAMP}`);
      const base = imageId(`${image}-base`);
      const box = imageId(image);
      const env = { HOME: userHome };
      for (const args of [
        ['mcp', 'add', 'web', 'http://127.0.0.1:9/mcp'],
        ['context', 'add', 'second', '--text', 'SECOND-CONTEXT'],
        ['claude-skill', 'remove', 'tdd'],
      ]) {
        const r = runByre(project, args, { env });
        expect(r.status, r.stderr).toBe(0);
      }
      const again = runByre(project, ['develop'], { env });
      expect(again.status, again.stderr.slice(-3000)).toBe(0);
      // The wiring is new, and the project block (the layer before it) came from the cache.
      const [servers, context, skills, after] = inImage(
        `cat /etc/byre/mcp.json; echo '#--'; cat /etc/byre/agent-context.md; echo '#--'; find /etc/byre/claude-skills -type f; echo '#--'; cat ${STAMP}`,
      ).split('#--\n');
      expect(Object.keys(JSON.parse(servers ?? '{}').mcpServers)).toEqual(['fs', 'web']);
      expect(context).toContain('SECOND-CONTEXT');
      expect(skills).toBe('');
      expect(after).toBe(stamp);
      // The base image was not built again: the second build was the wiring's alone.
      expect(imageId(`${image}-base`)).toBe(base);
      expect(imageId(image)).not.toBe(box);
    });

    // Last of all: it removes what the checks above read.
    it('forget removes the box image and the base image under it', () => {
      const r = runByre(project, ['forget', '-y'], { env: { HOME: userHome } });
      expect(r.status, r.stderr).toBe(0);
      const left = engineCli(project, [
        'images',
        '-a',
        '--filter',
        `label=byre.project=${project.id}`,
        '--format',
        '{{.ID}} {{.Repository}}:{{.Tag}}',
      ]);
      const named = engineCli(project, ['images', '--format', '{{.Repository}}:{{.Tag}}'])
        .split('\n')
        .filter((ref) => ref.includes(project.id));
      expect({ left: left.trim(), named }).toEqual({ left: '', named: [] });
    });
  },
);

// Where the wiring comes from per engine (adr/0073, adr/0075): docker and root
// podman bake it into the box image, so a wiring change builds that image
// again; rootless podman binds it read-only from a directory of byre's store
// named by its digest, so a wiring change builds nothing. On every flavour
// the box reads the new wiring.
const deliveryFlavors = flavorsUnderTest().filter((f) => f.engine === 'podman' || f.user === null);

describe.skipIf(deliveryFlavors.length === 0).each(deliveryFlavors)(
  'a wiring change on $label',
  (flavor) => {
    const bound = flavor.engine === 'podman' && flavor.user !== null;
    let project: TestProject;
    let image: string;
    const session = (): string => {
      const r = runByre(project, ['develop'], {
        input: [
          "cat /etc/byre/mcp.json; echo '#--'",
          '(echo x > /etc/byre/mcp.json) 2>/dev/null && echo WROTE-MCP || echo REFUSED-MCP',
          '(touch /etc/byre/claude-skills/x) 2>/dev/null && echo WROTE-SKILLS || echo REFUSED-SKILLS',
          'echo \'#--\'; awk \'$5 ~ "^/etc/byre" { print $5 " " $4 }\' /proc/self/mountinfo | sort',
          'exit',
        ].join('\n'),
      });
      expect(r.status, r.stderr.slice(-3000)).toBe(0);
      return r.stdout;
    };
    const imageId = (): string =>
      engineCli(project, ['image', 'inspect', '--format', '{{.Id}}', image]).trim();
    const wiringRoot = (): string => path.join(project.home, 'wiring', project.id);

    beforeAll(() => {
      project = scope.project(flavor, 'delivery');
      image = `byre-${project.id}-${flavor.user === null ? 'u0-g0' : 'u1000-g1000'}`;
      project.writeConfig('template = "none"\nagent = "none"\n');
    });

    it('the box reads each wiring change; bound, it can write none of it and the image stays', () => {
      const add = (name: string): void => {
        const r = runByre(project, ['mcp', 'add', name, `http://127.0.0.1:9/${name}`]);
        expect(r.status, r.stderr).toBe(0);
      };
      add('one');
      const [servers, writes, mounts] = session().split('#--\n');
      expect(Object.keys(JSON.parse(servers ?? '{}').mcpServers)).toEqual(['one']);
      const before = imageId();
      add('two');
      const [servers2, writes2, mounts2] = session().split('#--\n');
      expect(Object.keys(JSON.parse(servers2 ?? '{}').mcpServers)).toEqual(['one', 'two']);
      if (bound) {
        // The box user owns the files here (keep-id maps the host user to it):
        // only the read-only binds refuse the writes. (The root flavours bake
        // uid 0, which owns the image's root-owned wiring: their refusal is the
        // owner and mode checked above.)
        for (const w of [writes, writes2]) {
          expect(w).toContain('REFUSED-MCP');
          expect(w).toContain('REFUSED-SKILLS');
        }
        // Two read-only binds, of the wiring's entries alone; the image did not change.
        for (const m of [mounts, mounts2]) {
          const lines = (m ?? '').trim().split('\n');
          expect(lines.map((l) => l.split(' ')[0])).toEqual([
            '/etc/byre/claude-skills',
            '/etc/byre/mcp.json',
          ]);
          for (const l of lines)
            expect(l.split(' ')[1]).toMatch(/\/wiring\/(claude-skills|mcp\.json)$/);
        }
        expect(imageId()).toBe(before);
        expect(readdirSync(wiringRoot())).toHaveLength(2);
      } else {
        expect({ mounts, mounts2 }).toEqual({ mounts: '', mounts2: '' });
        expect(imageId()).not.toBe(before);
        expect(existsSync(wiringRoot())).toBe(false);
      }
    });

    it('forget removes the image and the bound wiring', () => {
      const r = runByre(project, ['forget', '-y']);
      expect(r.status, r.stderr).toBe(0);
      expect(existsSync(wiringRoot())).toBe(false);
      const named = engineCli(project, ['images', '--format', '{{.Repository}}:{{.Tag}}'])
        .split('\n')
        .filter((ref) => ref.includes(project.id));
      expect(named).toEqual([]);
    });
  },
);
