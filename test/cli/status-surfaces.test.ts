// The built binary's surfaces say only what is true (adr/0024), with no engine
// on PATH: the Egress row under a firewall (offered hosts, how to open one),
// closures per posture, MCP env provision and reachability, declared egress
// and unknown outbound, the no-agent wiring rows, --full text as text, --data
// for an open network, and grab's remedy naming grab.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../support/cli.js';
import { useTempDir } from '../support/temp.js';
import { projectIdFor } from '../../src/project/identity.js';

let root: string;
let project: string;
let home: string;
let configFile: string;

useTempDir('cli-surfaces', (tmp) => {
  root = tmp;
  project = path.join(root, 'proj');
  home = path.join(root, 'store');
  mkdirSync(project, { recursive: true });
  const dir = path.join(home, 'projects', projectIdFor(project));
  mkdirSync(dir, { recursive: true });
  configFile = path.join(dir, 'byre.config');
});

/** No engine on PATH: every surface here is the page byre computes, not an engine's answer. */
function byre(args: string[], env: Record<string, string> = {}) {
  return runBin(args, {
    cwd: project,
    home,
    inherit: false,
    env: { HOME: path.join(root, 'userhome'), PATH: path.join(root, 'no-engines'), ...env },
  });
}

function projectConfig(lines: readonly string[]): void {
  writeFileSync(configFile, `${lines.join('\n')}\n`);
}

/** The lines of one labelled section of a status page, continuation lines joined by a space. */
function section(page: string, label: string): string {
  const lines = page.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${label}:`));
  if (start < 0) return '';
  const out = [lines[start]?.slice(label.length + 1).trim() ?? ''];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith(' ')) break;
    out.push(line.trim());
  }
  return out.join(' ');
}

describe('status under a firewall', () => {
  it('always shows Egress, the offered hosts and the file that opens one; closures are enforced; MCP rows say what is missing', () => {
    projectConfig([
      'template = "go"',
      'skills = ["byre/firewall"]',
      'egress = ["!github.com", "!api.gh.com"]',
      '[env_from_host]',
      'GH_TOKEN = "env:GH_TOKEN"',
      '[[mcp]]',
      'name = "gh"',
      'url = "https://api.gh.com/mcp"',
      'env = ["GH_TOKEN", "GH_OTHER"]',
      '[[mcp]]',
      'name = "fs"',
      'command = ["mcp-fs"]',
      'egress = ["github.com"]',
    ]);
    const r = byre(['status'], { GH_TOKEN: 'x' });
    expect(r.status).toBe(0);
    const egress = section(r.stdout, 'Egress');
    expect(egress).toMatch(/^none — the box reaches no host/);
    expect(egress).toContain(
      'offered, not open: proxy.golang.org, sum.golang.org  (template byre/go)',
    );
    expect(egress).toContain('objects.githubusercontent.com');
    // Closed on purpose, and the names under a closed name with it: not offered.
    expect(egress).not.toMatch(/[ ,]github\.com,/);
    expect(egress).not.toMatch(/api\.github\.com|codeload\.github\.com/);
    expect(egress).toContain(
      `to open a host: byre config (Egress), or add it to egress in ${configFile}`,
    );
    expect(section(r.stdout, 'Closed')).toBe(
      '!github.com  (project) — enforced: outside the allowlist !api.gh.com  (project) — enforced: outside the allowlist',
    );
    const mcp = section(r.stdout, 'MCP servers');
    expect(mcp).toContain(
      "↳ NOT operational: its endpoint api.gh.com:443 is closed by project's '!api.gh.com' under the allowlist",
    );
    expect(mcp).toContain('↳ env GH_TOKEN: provided by env_from_host env:GH_TOKEN');
    expect(mcp).toContain('↳ env GH_OTHER: NOT provided — nothing sets it;');
    // A stdio server's declared API host, closed on purpose.
    expect(mcp).toContain(
      "↳ NOT operational: its egress github.com:443 is closed by project's '!github.com' under the allowlist",
    );

    const data = JSON.parse(byre(['status', '--data'], { GH_TOKEN: 'x' }).stdout) as {
      project_config: string;
      network: { offered: { host: string }[]; closed: { state: string }[] };
      mcp_servers: { operational: boolean; env: { key: string; provided_by: string | null }[] }[];
    };
    expect(data.project_config).toBe(configFile);
    expect(data.network.offered.map((o) => o.host)).toContain('proxy.golang.org');
    expect(data.network.closed.map((c) => c.state)).toEqual(['enforced', 'enforced']);
    expect(data.mcp_servers.map((m) => m.operational)).toEqual([false, false]);
    expect(data.mcp_servers[0]?.env).toEqual([
      { key: 'GH_TOKEN', provided_by: 'env_from_host env:GH_TOKEN', missing: null },
      {
        key: 'GH_OTHER',
        provided_by: null,
        missing: 'nothing sets it; add it to env_from_host or [env]',
      },
    ]);
  });
});

describe('status on an open network', () => {
  it('lists no skill egress as a grant, marks closures unenforced, and --data does not warrant run_args', () => {
    projectConfig([
      'skills = ["byre/claude"]',
      'egress = ["pypi.org", "!statsig.anthropic.com"]',
      'run_args = ["--network=host"]',
      '[env_from_host]',
      'TZ = ""',
    ]);
    const r = byre(['status']);
    expect(r.status).toBe(0);
    expect(section(r.stdout, 'Network')).toBe(
      'open  (declared; raw run_args present — not guaranteed)',
    );
    expect(section(r.stdout, 'Egress')).toBe('pypi.org:443  (config) — unenforced, network open');
    expect(r.stdout).not.toContain('api.anthropic.com');
    expect(section(r.stdout, 'Closed')).toBe(
      '!statsig.anthropic.com  (project) — unenforced, network open',
    );
    expect(r.stdout).not.toMatch(/TZ disabled/);

    const data = JSON.parse(byre(['status', '--data']).stdout) as {
      network: { warranted: boolean; degraded_by: string[]; egress: { host: string }[] };
      host_env: { key: string }[];
    };
    expect(data.network.warranted).toBe(false);
    expect(data.network.degraded_by).toEqual(['raw run_args']);
    expect(data.network.egress.map((e) => e.host)).toEqual(['pypi.org']);
    expect(data.host_env.map((e) => e.key)).not.toContain('TZ');
  });
});

describe('status: the wiring rows say what the reference says (adr/0059)', () => {
  it("an MCP server's declared egress is on its row on an open network, where the Egress rows leave it out", () => {
    projectConfig([
      '[[mcp]]',
      'name = "linear"',
      'url = "https://mcp.linear.app/mcp"',
      'egress = ["auth.linear.app"]',
    ]);
    const r = byre(['status']);
    expect(r.status, r.stderr).toBe(0);
    expect(section(r.stdout, 'Network')).toBe('open');
    expect(section(r.stdout, 'MCP servers')).toMatch(
      /^linear {2}https:\/\/mcp\.linear\.app\/mcp {2}\(project; \+egress auth\.linear\.app\)/,
    );
    expect(section(r.stdout, 'Egress')).toBe('');
    const data = JSON.parse(byre(['status', '--data']).stdout) as {
      mcp_servers: { egress: string[]; outbound_unknown: string | null }[];
    };
    expect(data.mcp_servers).toMatchObject([
      { egress: ['auth.linear.app'], outbound_unknown: null },
    ]);
  });

  it('a stdio server that declares no egress says its outbound traffic is unknown under an allowlist', () => {
    projectConfig(['skills = ["byre/firewall"]', '[[mcp]]', 'name = "fs"', 'command = ["mcp-fs"]']);
    const r = byre(['status']);
    expect(r.status, r.stderr).toBe(0);
    expect(section(r.stdout, 'MCP servers')).toContain(
      '↳ outbound unknown: under deny-by-default only allowlisted hosts leave the box, and this server declares none; if it needs the network, declare its hosts in its egress',
    );
  });

  it('with no agent, the Claude Skills row says no agent is selected rather than failing on a path', () => {
    projectConfig([
      'agent = "none"',
      '[[claude_skills]]',
      'name = "tdd"',
      `path = "${path.join(root, 'nowhere', 'tdd')}"`,
    ]);
    const r = byre(['status']);
    expect(r.status, r.stderr).toBe(0);
    expect(section(r.stdout, 'Claude Skills')).toMatch(
      /^tdd {2}\S+ {2}\(project\) declared; NOT delivered: no agent is selected \(baked at \/etc\/byre\/claude-skills for anything that wants it\); develop refuses to bake tdd: /,
    );
  });
});

describe('status --full', () => {
  it('prints instruction text line by line and keeps the raw build caveat', () => {
    projectConfig([
      'dockerfile_post = ["RUN echo hi"]',
      '[[context]]',
      'name = "house"',
      'text = """',
      'Be terse.',
      'Run the tests.',
      '"""',
    ]);
    const r = byre(['status', '--full']);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('\\n');
    expect(r.stdout).toMatch(
      /^Instructions: house {2}\(project\): Be terse\.\n {16}Run the tests\.$/m,
    );
    expect(section(r.stdout, 'Raw build')).toBe('1 line  (not introspected): RUN echo hi');
  });
});

describe('grab with no box', () => {
  it('says to grab again, not deliver again', () => {
    const r = byre(['grab', 'notes.txt']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('then grab again');
    expect(r.stderr).not.toContain('deliver again');
  });
});
