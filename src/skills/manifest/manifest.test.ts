import { describe, expect, it } from 'vitest';
import { parseSkillManifest, parseTemplatePackage, satisfiesRequiresByre } from './index.js';

const FILE = '/h/skills/demo/skill.toml';

describe('parseSkillManifest', () => {
  it('accepts a full agent skill', () => {
    const text = `description = "demo agent"
shared_auth_for = "claude"

[package]
id = "me/demo"
version = "1.2.3"
kind = "skill"
package_api = 1
requires_byre = ">=0.0.1"

[build]
apt = ["curl"]
node = 22
dockerfile = ["RUN true"]
files = { "bin/tool" = "/usr/local/bin/tool", "." = "/opt/demo" }

[runtime]
env = { DEMO = "1" }
env_docs = { DEMO_TOKEN = "the token" }
run_args = ["--hostname", "x"]
caps = ["NET_ADMIN"]
mounts = [{ host = "/var/run/docker.sock", target = "/var/run/docker.sock", mode = "rw" }]
network_posture = "deny-by-default"
netns_init = "/usr/local/bin/fw"
egress = ["api.example.com"]
egress_offered = ["example.org:80"]
sock_groups = ["/var/run/docker.sock"]
containment = "opens the docker socket"

[agent]
command = "demo --yolo"
state = ".demo"
context = "inject"
mcp = "inject"
claude_skills = "inject"
context_target = "retired"

[agent.prefs]
from = "~/.demo"
files = ["settings.json"]

[[mcp]]
name = "gh"
url = "https://api.example.com/mcp"

[[claude_skills]]
name = "tdd"
from = "claude/tdd"

[[volumes]]
name = ".demo"
role = "state"
target = "/home/dev/.demo"

[context]
file = "context.md"
`;
    const result = parseSkillManifest(text, FILE);
    expect(result.issues).toEqual([]);
    const m = result.value;
    expect(m?.package?.id).toBe('me/demo');
    expect(m?.agent).toMatchObject({ command: 'demo --yolo', state: '.demo', context: true });
    expect(m?.runtime.mounts[0]).toEqual({
      host: '/var/run/docker.sock',
      target: '/var/run/docker.sock',
      mode: 'rw',
      disabled: false,
    });
    expect(m?.build.files).toEqual({ 'bin/tool': '/usr/local/bin/tool', '.': '/opt/demo' });
    expect(m?.build.node).toBe(22);
  });

  it.each([
    ['absent', '', null],
    ['the lowest', 'node = 1\n', 1],
    ['a current major', 'node = 22\n', 22],
    ['the highest', 'node = 999\n', 999],
  ])('[build] node %s reads as %s', (_name, line, want) => {
    const result = parseSkillManifest(`[build]\n${line}`, FILE);
    expect(result.issues).toEqual([]);
    expect(result.value?.build.node).toBe(want);
  });

  it.each([
    ['unknown top-level key', 'colour = "red"\n', 'skill.unknown-key', 1, 'colour'],
    ['a typo of a key', '[agent]\ncomand = "x"\n', 'skill.unknown-key', 2, 'agent.comand'],
    [
      'unknown key in a table',
      '[runtime]\nmounts_x = []\n',
      'skill.unknown-key',
      2,
      'runtime.mounts_x',
    ],
    ['wrong type', '[build]\napt = "curl"\n', 'skill.wrong-type', 2, 'build.apt'],
    [
      'payload escapes with ..',
      '[build]\nfiles = { "../x" = "/x" }\n',
      'skill.payload-escapes',
      2,
      'build.files["../x"]',
    ],
    [
      'absolute payload src',
      '[build]\nfiles = { "/etc/passwd" = "/x" }\n',
      'skill.payload-escapes',
      2,
      'build.files["/etc/passwd"]',
    ],
    [
      'relative dest',
      '[build]\nfiles = { "a" = "x" }\n',
      'skill.files-dest-not-absolute',
      2,
      'build.files.a',
    ],
    [
      'one dest two sources',
      '[build]\nfiles = { "a" = "/x", "b" = "/x/" }\n',
      'skill.files-dest-duplicate',
      2,
      'build.files.b',
    ],
    ['bad apt name', '[build]\napt = ["ok", "b@d pkg"]\n', 'skill.apt-invalid', 2, 'build.apt[1]'],
    // [build] node (adr/0062): an integer node major, 1 to 999.
    ['node as a string', '[build]\nnode = "22"\n', 'skill.wrong-type', 2, 'build.node'],
    ['node as a float', '[build]\nnode = 22.5\n', 'skill.wrong-type', 2, 'build.node'],
    ['node as a list', '[build]\napt = []\nnode = [22]\n', 'skill.wrong-type', 3, 'build.node'],
    ['node zero', '[build]\nnode = 0\n', 'skill.node-invalid', 2, 'build.node'],
    ['node negative', '[build]\nnode = -22\n', 'skill.node-invalid', 2, 'build.node'],
    ['node too high', '[build]\nnode = 1000\n', 'skill.node-invalid', 2, 'build.node'],
    [
      'BYRE_ env',
      '[runtime]\nenv = { BYRE_X = "1" }\n',
      'skill.env-reserved',
      2,
      'runtime.env.BYRE_X',
    ],
    [
      'bad posture',
      '[runtime]\nnetwork_posture = "Deny"\n',
      'skill.network-posture-invalid',
      2,
      'runtime.network_posture',
    ],
    [
      'relative netns_init',
      '[runtime]\nnetns_init = "fw"\n',
      'skill.netns-init-not-absolute',
      2,
      'runtime.netns_init',
    ],
    [
      'sock group not mounted',
      '[runtime]\nsock_groups = ["/run/x.sock"]\n',
      'skill.sock-group-not-mounted',
      2,
      'runtime.sock_groups[0]',
    ],
    [
      'containment too long',
      `[runtime]\ncontainment = "${'x'.repeat(301)}"\n`,
      'skill.containment-too-long',
      2,
      'runtime.containment',
    ],
    [
      'bad egress',
      '[runtime]\negress = ["not a host"]\n',
      'skill.egress-invalid',
      2,
      'runtime.egress[0]',
    ],
    [
      'egress closure',
      '[runtime]\negress = ["!example.com"]\n',
      'skill.removal-marker',
      2,
      'runtime.egress[0]',
    ],
    [
      'agent without command',
      '[agent]\nstate = "x"\n',
      'skill.agent-command-missing',
      1,
      'agent.command',
    ],
    [
      'agent state names no state volume',
      '[agent]\ncommand = "x"\nstate = ".x"\n\n[[volumes]]\nname = ".x"\nrole = "cache"\ntarget = "/c"\n',
      'skill.agent-state-unknown',
      3,
      'agent.state',
    ],
    [
      'agent prefs without a state volume',
      '[agent]\ncommand = "x"\n\n[agent.prefs]\nfrom = "~/.x"\nfiles = ["a.json"]\n',
      'skill.agent-prefs-without-state',
      4,
      'agent.prefs',
    ],
    ...['.', './', 'x/..', 'a/./b/../..'].map((f): [string, string, string, number, string] => [
      `agent prefs file ${JSON.stringify(f)} names the whole source`,
      `[agent]\ncommand = "x"\nstate = ".x"\n\n[agent.prefs]\nfrom = "~/.x"\nfiles = ["ok.json", ${JSON.stringify(f)}]\n\n[[volumes]]\nname = ".x"\nrole = "state"\ntarget = "/home/dev/.x"\n`,
      'skill.agent-prefs-whole-source',
      7,
      'agent.prefs.files[1]',
    ]),
    [
      'empty env_docs guidance',
      '[runtime]\nenv_docs = { TOKEN = "" }\n',
      'skill.env-docs-empty',
      2,
      'runtime.env_docs.TOKEN',
    ],
    [
      'blank env_docs guidance',
      '[runtime.env_docs]\nTOKEN = "   "\n',
      'skill.env-docs-empty',
      2,
      'runtime.env_docs.TOKEN',
    ],
    [
      'env_docs guidance with a C1 control',
      '[runtime]\nenv_docs = { TOKEN = "a\\u0085b" }\n',
      'skill.env-docs-invalid',
      2,
      'runtime.env_docs.TOKEN',
    ],
    [
      'mcp with an empty program',
      '[[mcp]]\nname = "m"\ncommand = [""]\n',
      'skill.mcp-command-empty',
      3,
      'mcp[0].command[0]',
    ],
    [
      'mcp with an empty argument',
      '[[mcp]]\nname = "m"\ncommand = ["srv", ""]\n',
      'skill.mcp-command-empty',
      3,
      'mcp[0].command[1]',
    ],
    [
      'mcp with a blank program',
      '[[mcp]]\nname = "m"\ncommand = [" ", "stdio"]\n',
      'skill.mcp-command-blank',
      3,
      'mcp[0].command[0]',
    ],
    [
      'mcp url with no host',
      '[[mcp]]\nname = "m"\nurl = "https:///mcp"\n',
      'skill.mcp-url-invalid',
      3,
      'mcp[0].url',
    ],
    [
      'agent delivery not inject',
      '[agent]\ncommand = "x"\ncontext = "write"\n',
      'skill.agent-delivery-invalid',
      3,
      'agent.context',
    ],
    [
      'companion and shared auth',
      'companion_for = "claude"\nshared_auth_for = "claude"\n',
      'skill.companion-and-shared-auth',
      2,
      'shared_auth_for',
    ],
    [
      'context text and file',
      '[context]\ntext = "a"\nfile = "b"\n',
      'skill.context-text-or-file',
      1,
      'context',
    ],
    [
      'context file escapes',
      '[context]\nfile = "../b.md"\n',
      'skill.payload-escapes',
      2,
      'context.file',
    ],
    [
      'claude skill from escapes',
      '[[claude_skills]]\nname = "x"\nfrom = "/abs"\n',
      'skill.payload-escapes',
      3,
      'claude_skills[0].from',
    ],
    [
      'volume seed on machine',
      '[[volumes]]\nname = "v"\nrole = "state"\ntarget = "/v"\nscope = "machine"\n[volumes.seed]\nhost = "~/x"\n',
      'skill.volume-seed-on-machine',
      6,
      'volumes[0].seed',
    ],
    [
      'volume removal marker',
      '[[volumes]]\nname = "!v"\n',
      'skill.removal-marker',
      2,
      'volumes[0].name',
    ],
    [
      'mcp both command and url',
      '[[mcp]]\nname = "m"\ncommand = ["x"]\nurl = "https://a.b"\n',
      'skill.mcp-command-and-url',
      1,
      'mcp[0]',
    ],
    [
      'target collision',
      '[runtime]\nmounts = [{ host = "/a", target = "/t" }]\n\n[[volumes]]\nname = "v"\nrole = "cache"\ntarget = "/t"\n',
      'skill.target-collision',
      7,
      'volumes[0].target',
    ],
    [
      'package kind mismatch',
      '[package]\nkind = "template"\n',
      'package.kind-mismatch',
      2,
      'package.kind',
    ],
    [
      'package api',
      '[package]\npackage_api = 2\n',
      'package.api-unsupported',
      2,
      'package.package_api',
    ],
    ['package id', '[package]\nid = "a/b/c"\n', 'package.id-invalid', 2, 'package.id'],
    [
      'package file dest escapes',
      '[[package.files]]\nsrc = "a"\ndest = "../a"\nsha256 = "' + '0'.repeat(64) + '"\n',
      'skill.payload-escapes',
      3,
      'package.files[0].dest',
    ],
    [
      'package file sha',
      '[[package.files]]\nsrc = "a"\ndest = "a"\nsha256 = "abc"\n',
      'package.file-sha256-invalid',
      4,
      'package.files[0].sha256',
    ],
    [
      'unknown key in package.files',
      '[[package.files]]\nsrc = "a"\nmode = 1\n',
      'skill.unknown-key',
      3,
      'package.files[0].mode',
    ],
  ])('%s', (_name, text, rule, line, key) => {
    const result = parseSkillManifest(text, FILE);
    expect(result.value).toBeNull();
    const issue = result.issues.find((i) => i.rule === rule);
    expect(issue, JSON.stringify(result.issues)).toBeDefined();
    expect(issue?.location).toMatchObject({ file: FILE, line, key });
    expect(issue?.fix).toBeTruthy();
  });

  it('names the key an unknown key is a typo of', () => {
    const [issue] = parseSkillManifest('[agent]\ncomand = "x"\n', FILE).issues;
    expect(issue?.message).toContain('did you mean command?');
    expect(issue?.fix).toBe('rename it to command');
  });

  it('reports TOML syntax with a position', () => {
    const result = parseSkillManifest('[build\n', FILE);
    expect(result.issues[0]?.rule).toBe('skill.toml-syntax');
    expect(result.issues[0]?.location.line).toBe(1);
  });

  it.each([
    ['top level', 'npm_global = ["x"]\n', 1, 'npm_global'],
    ['in [build]', '[build]\napt = ["curl"]\nnpm_global = ["x"]\n', 3, 'build.npm_global'],
  ])('a removed key (%s) says it was removed, not unknown', (_where, text, line, key) => {
    const result = parseSkillManifest(text, FILE);
    expect(result.value).toBeNull();
    expect(result.issues).toEqual([
      expect.objectContaining({
        rule: 'skill.key-removed',
        location: expect.objectContaining({ line, key }),
      }),
    ]);
    expect(result.issues[0]?.fix).toContain('dockerfile');
  });

  it('a removed key is reported beside other shape problems', () => {
    const result = parseSkillManifest('npm_global = []\ncolour = 1\n', FILE);
    expect(result.issues.map((i) => i.rule)).toEqual(['skill.key-removed', 'skill.unknown-key']);
  });

  it('the retired [agent] context_target is accepted and ignored', () => {
    const result = parseSkillManifest(
      '[agent]\ncommand = "x"\ncontext_target = "CLAUDE.md"\n',
      FILE,
    );
    expect(result.issues).toEqual([]);
    expect(result.value?.agent?.command).toBe('x');
  });

  // The reference's fixture: a Dockerfile heredoc whose text holds a
  // `[package]`-shaped line. It is data in the string, and the real table
  // after it is the package (adr/0059).
  it.each([
    ['basic', '"""'],
    ['literal', "'''"],
  ])('a [package]-shaped line inside a multi-line %s string is data', (_kind, quote) => {
    const heredoc = "RUN cat <<'EOF' > /etc/demo.toml\n[package]\npayload text\n[other]\nEOF\n";
    const text = [
      'description = "heredoc"',
      '[build]',
      `dockerfile = [${quote}`,
      `${heredoc}${quote}]`,
      '',
      '[package]',
      'id = "owner/example"',
      'version = "1"',
      '',
      '[runtime]',
      'env = { K = "v" }',
      '',
    ].join('\n');
    const result = parseSkillManifest(text, FILE);
    expect(result.issues).toEqual([]);
    expect(result.value?.build.dockerfile).toEqual([heredoc]);
    expect(result.value?.package).toMatchObject({ id: 'owner/example', version: '1' });
    expect(result.value?.runtime.env).toEqual({ K: 'v' });
  });

  it('a raw build line may span lines but carries no carriage return', () => {
    const ok = parseSkillManifest('[build]\ndockerfile = ["RUN a \\\\\\n  && b"]\n', FILE);
    expect(ok.issues).toEqual([]);
    expect(ok.value?.build.dockerfile).toEqual(['RUN a \\\n  && b']);
    const crlf = parseSkillManifest('[build]\ndockerfile = ["""\r\nRUN a\r\n"""]\r\n', FILE);
    expect(crlf.issues).toEqual([
      expect.objectContaining({
        rule: 'skill.dockerfile-line-invalid',
        location: expect.objectContaining({ line: 2, key: 'build.dockerfile[0]' }),
      }),
    ]);
  });

  it('names the key and both lines of a redefined table', () => {
    const result = parseSkillManifest('[runtime]\ncaps = []\n\n[runtime]\nenv = {}\n', FILE);
    expect(result.issues).toEqual([
      expect.objectContaining({
        rule: 'skill.toml-redefined',
        location: { file: FILE, line: 4, column: 2, key: 'runtime' },
      }),
    ]);
    expect(result.issues[0]?.message).toContain('at line 1 and again at line 4');
  });
});

describe('parseTemplatePackage', () => {
  it('reads the [package] table of a template', () => {
    const result = parseTemplatePackage(
      'base = "x"\n\n[package]\nid = "me/t"\nversion = "1.0.0"\nkind = "template"\n',
      'f',
    );
    expect(result.value?.id).toBe('me/t');
  });

  it('refuses a skill kind in a template', () => {
    const result = parseTemplatePackage('[package]\nkind = "skill"\n', 'f');
    expect(result.issues[0]).toMatchObject({
      rule: 'package.kind-mismatch',
      location: { line: 2 },
    });
  });
});

describe('satisfiesRequiresByre', () => {
  it.each([
    ['>=0.1.0', '0.1.0', true],
    ['>=0.2.0', '0.1.9', false],
    ['1.0.0', '1.10.0', true],
    ['>=1.0.0', '1.0.0-rc.1', false],
    ['>=1.0.0', '1.0.1-rc.1', true],
    ['>=0.9.0', '0.10.0', true],
    ['>=1.0.0', '1.0.0+build.7', true],
    ['>=1.0.0', 'dev', false],
  ])('%s on %s -> %s', (req, version, ok) => {
    expect(satisfiesRequiresByre(req, version)).toBe(ok);
  });
});
