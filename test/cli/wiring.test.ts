// The declaration verbs through the built binary: mcp, claude-skill and
// context add|remove|list and layer new|list|validate. A hand-written config
// keeps every byte through an add and a remove; remove closes what a lower
// layer declares; every refusal is located (the file, line and column of a
// write the loader refuses, or the argument) and leaves the file as it was.

import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../support/cli.js';
import { useTempDir } from '../support/temp.js';
import { projectIdFor } from '../../src/project/identity.js';

let root: string;
let project: string;
let home: string;

function byre(args: string[], env: Record<string, string> = {}) {
  return runBin(args, { cwd: project, home, env: { HOME: root, ...env } });
}

function projectFile(): string {
  return path.join(home, 'projects', projectIdFor(project), 'byre.config');
}

function writeProject(text: string): void {
  mkdirSync(path.dirname(projectFile()), { recursive: true });
  writeFileSync(projectFile(), text);
}

const read = (file: string): string => readFileSync(file, 'utf8');

useTempDir('cli-wiring', (tmp) => {
  root = tmp;
  project = path.join(tmp, 'work', 'proj');
  home = path.join(tmp, 'home');
  mkdirSync(project, { recursive: true });
});

const HAND_WRITTEN = [
  '# My box. Hand-written; byre must keep every byte of it.',
  'agent   =   "claude"   # the agent I use',
  "apt = [ 'jq',   # json",
  "        'ripgrep' ]",
  '',
  '',
  '# --- servers ---',
  '[[mcp]]',
  "name = 'fs'",
  "command = ['fs-mcp', '--root', '/workspace']   # local",
  '',
  '[env]',
  'RUST_BACKTRACE = "1"',
  '',
  '# trailing comment',
  '',
].join('\n');

describe('byre mcp', () => {
  it('a hand-written config survives add then remove byte for byte', () => {
    writeProject(HAND_WRITTEN);
    const add = byre(['mcp', 'add', 'gh', '--env', 'GH_TOKEN', '--', 'gh-mcp', 'stdio']);
    expect(add.status, add.stderr).toBe(0);
    const added = read(projectFile());
    expect(added).toContain('name = "gh"');
    expect(added.startsWith(HAND_WRITTEN.split('[env]')[0] ?? '')).toBe(true);
    const remove = byre(['mcp', 'remove', 'gh']);
    expect(remove.status, remove.stderr).toBe(0);
    expect(read(projectFile())).toBe(HAND_WRITTEN);
  });

  it('a remote server survives add then remove byte for byte, and lists with its grant', () => {
    writeProject(HAND_WRITTEN);
    const add = byre(['mcp', 'add', 'docs', 'https://docs.example.com/mcp', '--bearer', 'DOCS']);
    expect(add.status, add.stderr).toBe(0);
    expect(add.stderr).toContain('egress mcp:docs: docs.example.com:443');
    const list = byre(['mcp', 'list']);
    expect(list.stdout).toMatch(
      /^docs\s+http\s+https:\/\/docs\.example\.com\/mcp\s+DOCS\(missing\)\s+project$/m,
    );
    expect(list.stdout).toContain('docs: env DOCS: NOT provided — ');
    expect(list.stdout).toMatch(/^fs\s+stdio\s+fs-mcp --root \/workspace\s+-\s+project$/m);
    // Its endpoint is a grant where an allowlist enforces egress (adr/0024): a
    // firewall from the default layer, so the project file stays as written.
    writeFileSync(path.join(home, 'default.config'), 'skills = ["byre/firewall"]\n');
    const status = byre(['status', '--data']);
    const data = JSON.parse(status.stdout) as {
      network: { egress: { host: string; source: string[] }[] };
    };
    expect(data.network.egress).toContainEqual(
      expect.objectContaining({ host: 'docs.example.com', source: ['mcp:docs'] }),
    );
    rmSync(path.join(home, 'default.config'));
    expect(byre(['mcp', 'remove', 'docs']).status).toBe(0);
    expect(read(projectFile())).toBe(HAND_WRITTEN);
  });

  it('list judges each env name as status does: provided from the host, or why not', () => {
    writeProject(
      '[[mcp]]\nname = "gh"\ncommand = ["gh-mcp"]\nenv = ["GH_TOKEN", "GH_HOST"]\n\n[env_from_host]\nGH_TOKEN = "env:MY_GH"\n',
    );
    const set = byre(['mcp', 'list'], { MY_GH: 'secret-value' });
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^gh\s+stdio\s+gh-mcp\s+GH_TOKEN,GH_HOST\(missing\)\s+project$/m);
    expect(set.stdout).toMatch(/^gh: env GH_HOST: NOT provided — /m);
    expect(set.stdout).not.toContain('gh: env GH_TOKEN');
    expect(set.stdout).not.toContain('secret-value');
    const status = JSON.parse(byre(['status', '--data'], { MY_GH: 'secret-value' }).stdout) as {
      mcp_servers: { name: string; env: { key: string; provided_by: string | null }[] }[];
    };
    const gh = status.mcp_servers.find((m) => m.name === 'gh');
    expect(gh?.env.map((e) => [e.key, e.provided_by !== null])).toEqual([
      ['GH_TOKEN', true],
      ['GH_HOST', false],
    ]);
    // Unset on the host: the same name is now missing in both.
    const unset = byre(['mcp', 'list']);
    expect(unset.stdout).toMatch(/^gh: env GH_TOKEN: NOT provided — /m);
  });

  it('list says a server is not operational when a closure shuts its endpoint under an allowlist', () => {
    writeProject('egress = ["!docs.example.com:443"]\n');
    expect(byre(['mcp', 'add', 'docs', 'https://docs.example.com/mcp']).status).toBe(0);
    expect(byre(['mcp', 'list']).stdout).not.toContain('NOT operational');
    writeFileSync(path.join(home, 'default.config'), 'skills = ["byre/firewall"]\n');
    expect(byre(['mcp', 'list']).stdout).toMatch(
      /^docs: NOT operational: its endpoint docs\.example\.com:443 is closed by /m,
    );
    rmSync(path.join(home, 'default.config'));
  });

  it('remove closes a server a lower layer declares, and add re-opens it', () => {
    writeProject(HAND_WRITTEN);
    writeFileSync(path.join(home, 'default.config'), '[[mcp]]\nname = "gh"\ncommand = ["gh"]\n');
    const remove = byre(['mcp', 'remove', 'gh']);
    expect(remove.status, remove.stderr).toBe(0);
    expect(remove.stderr).toContain('default.config declares it');
    expect(read(projectFile())).toBe(
      HAND_WRITTEN.replace('# local\n\n', '# local\n\n[[mcp]]\nname = "!gh"\n\n'),
    );
    expect(byre(['mcp', 'list']).stdout).toContain('closed: !gh  (project)');
    const again = byre(['mcp', 'remove', 'gh']);
    expect(again.stderr).toContain('already closed');
    const add = byre(['mcp', 'add', 'gh', '--', 'gh', 'v2']);
    expect(add.stderr).toContain('re-opened');
    expect(read(projectFile())).not.toContain('!gh');
  });

  it('--global writes default.config, and the list attributes it there', () => {
    expect(byre(['mcp', 'add', 'gh', '--global', '--', 'gh']).status).toBe(0);
    expect(read(path.join(home, 'default.config'))).toContain('name = "gh"');
    expect(byre(['mcp', 'list']).stdout).toMatch(/^gh\s+stdio\s+gh\s+-\s+default$/m);
  });

  it.each([
    [['mcp', 'add', 'GH', '--', 'x'], 2, /mcp name "GH" invalid/],
    [['mcp', 'add', 'gh'], 2, /give the server's URL, or its argv after --/],
    [['mcp', 'add', 'gh', '--header', 'A=b', '--', 'x'], 2, /apply only to a remote/],
    [['mcp', 'add', 'gh', 'https://a.example', '--header', 'Authorization=sk-1'], 2, /tokens/],
    [['mcp', 'add', 'gh', '--global', '--layer', 'x', '--', 'x'], 2, /--global and --layer/],
    [['mcp', 'add', 'gh', '--layer', 'nope', '--', 'x'], 1, /layer nope does not exist/],
    [['mcp', 'remove', 'nope'], 1, /no MCP server named nope/],
  ])('%j exits %i, naming the problem, and writes nothing', (args, code, message) => {
    writeProject(HAND_WRITTEN);
    const r = byre(args);
    expect(r.status).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(read(projectFile())).toBe(HAND_WRITTEN);
  });

  it('a write the loader refuses is located in the file as edited, and the file is unchanged', () => {
    writeProject(HAND_WRITTEN);
    const r = byre(['mcp', 'add', 'gh', 'https://']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `${projectFile().replace(/[.]/g, '\\.')} \\(as edited\\):\\d+:\\d+ \\(key mcp\\[1\\]\\.url\\)`,
      ),
    );
    expect(r.stderr).toContain('[config.mcp-url-invalid]');
    expect(read(projectFile())).toBe(HAND_WRITTEN);
  });

  it('an empty argv element is refused as empty, located at it, and the file is unchanged', () => {
    writeProject(HAND_WRITTEN);
    const r = byre(['mcp', 'add', 'gh', '--', 'gh-mcp', '']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `${projectFile().replace(/[.]/g, '\\.')} \\(as edited\\):\\d+:\\d+ \\(key mcp\\[1\\]\\.command\\[1\\]\\)`,
      ),
    );
    expect(r.stderr).toContain('mcp "gh": command[1] is empty');
    expect(r.stderr).toContain('[config.mcp-command-empty]');
    expect(read(projectFile())).toBe(HAND_WRITTEN);
  });
});

describe('byre context', () => {
  it('add with neither flag opens $EDITOR; comment lines drop; remove gives back the bytes', () => {
    writeProject(HAND_WRITTEN);
    const editor = path.join(root, 'ed.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf "Run the linter.\\n# not this\\n" > "$1"\n');
    chmodSync(editor, 0o755);
    const r = byre(['context', 'add', 'lint'], { EDITOR: editor });
    expect(r.status, r.stderr).toBe(0);
    expect(read(projectFile())).toContain('[[context]]\nname = "lint"\ntext = "Run the linter."\n');
    expect(byre(['context', 'list']).stdout).toMatch(/^lint\s+project\s+Run the linter\.$/m);
    expect(byre(['context', 'remove', 'lint']).status).toBe(0);
    expect(read(projectFile())).toBe(HAND_WRITTEN);
  });

  it('an empty edit aborts and writes nothing', () => {
    writeProject(HAND_WRITTEN);
    const editor = path.join(root, 'empty.sh');
    writeFileSync(editor, '#!/bin/sh\n: > "$1"\n');
    chmodSync(editor, 0o755);
    const r = byre(['context', 'add', 'lint'], { EDITOR: editor });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the text is empty; nothing was written');
    expect(read(projectFile())).toBe(HAND_WRITTEN);
  });

  it('--file stores the path (~/… under home); a missing file is refused', () => {
    writeProject(HAND_WRITTEN);
    writeFileSync(path.join(root, 'rules.md'), 'Be terse.\n');
    expect(byre(['context', 'add', 'rules', '--file', path.join(root, 'rules.md')]).status).toBe(0);
    expect(read(projectFile())).toContain('file = "~/rules.md"');
    const r = byre(['context', 'add', 'x', '--file', path.join(root, 'nope.md')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no such file');
  });

  it('text with a control character is refused, located, and the file is unchanged', () => {
    writeProject(HAND_WRITTEN);
    const r = byre(['context', 'add', 'x', '--text', 'bell\u0007']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/\(as edited\):\d+:\d+ \(key context\[0\]\.text\)/);
    expect(r.stderr).toContain('[config.context-control-chars]');
    expect(read(projectFile())).toBe(HAND_WRITTEN);
  });
});

describe('byre claude-skill', () => {
  function skillDir(name: string, front: string): string {
    const dir = path.join(root, 'cs', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'SKILL.md'), front);
    return dir;
  }

  it('add takes the name from SKILL.md and stores the path; remove gives back the bytes', () => {
    writeProject(HAND_WRITTEN);
    const dir = skillDir('tdd', '---\nname: tdd\ndescription: tests first\n---\nWrite tests.\n');
    const r = byre(['claude-skill', 'add', dir]);
    expect(r.status, r.stderr).toBe(0);
    expect(read(projectFile())).toContain('name = "tdd"\npath = "~/cs/tdd"\n');
    expect(byre(['claude-skill', 'list']).stdout).toMatch(/^tdd\s+~\/cs\/tdd\s+project$/m);
    expect(byre(['claude-skill', 'remove', 'tdd']).status).toBe(0);
    expect(read(projectFile())).toBe(HAND_WRITTEN);
  });

  it.each([
    ['no front matter', 'Just text.\n', [], /does not start with a --- front matter block/],
    [
      'a name that differs',
      '---\nname: tdd\ndescription: d\n---\n',
      ['--name', 'other'],
      /names it "tdd", not "other"/,
    ],
  ])('refuses a directory with %s', (_what, front, extra, message) => {
    writeProject(HAND_WRITTEN);
    const r = byre(['claude-skill', 'add', skillDir('bad', front), ...extra]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(read(projectFile())).toBe(HAND_WRITTEN);
  });
});

describe('byre layer', () => {
  it('new scaffolds a layer a project can extend; list shows chains root first', () => {
    expect(byre(['layer', 'new', 'corp']).status).toBe(0);
    const team = byre(['layer', 'new', 'team', '--extends', 'corp']);
    expect(team.stdout.trim()).toBe(path.join(home, 'layers', 'team', 'layer.config'));
    expect(read(team.stdout.trim())).toContain('extends = "team"'.replace('team', 'corp'));
    expect(byre(['mcp', 'add', 'gh', '--layer', 'corp', '--', 'gh']).status).toBe(0);
    writeProject('extends = "team"\n');
    expect(byre(['mcp', 'list']).stdout).toMatch(/^gh\s+stdio\s+gh\s+-\s+layer corp$/m);
    const list = byre(['layer', 'list']);
    expect(list.stdout).toMatch(/^corp\s+corp\s+ok$/m);
    expect(list.stdout).toMatch(/^team\s+corp -> team\s+ok$/m);
    expect(byre(['layer', 'validate']).status).toBe(0);
  });

  it('a retired bundled name is a legal layer name: new, extend, validate', () => {
    for (const name of ['codereview', 'devloop']) {
      const made = byre(['layer', 'new', name]);
      expect(made.status, made.stderr).toBe(0);
      writeFileSync(path.join(home, 'layers', name, 'layer.config'), 'apt = ["jq"]\n');
      writeProject(`extends = "${name}"\n`);
      const df = byre(['dockerfile']);
      expect(df.status, df.stderr).toBe(0);
      expect(df.stdout).toMatch(/apt-get install .*\bjq\b/);
      expect(byre(['layer', 'validate', name]).status).toBe(0);
    }
  });

  it('validate names the loop, and the file a dangling parent needs', () => {
    byre(['layer', 'new', 'a']);
    byre(['layer', 'new', 'b', '--extends', 'a']);
    writeFileSync(path.join(home, 'layers', 'a', 'layer.config'), 'extends = "b"\n');
    const loop = byre(['layer', 'validate', 'a']);
    expect(loop.status).toBe(1);
    expect(loop.stderr).toContain('extends cycle: a -> b -> a');
    expect(loop.stderr).toContain(`${path.join(home, 'layers', 'b', 'layer.config')}:`);
    writeFileSync(path.join(home, 'layers', 'a', 'layer.config'), 'extends = "gone"\n');
    const dangling = byre(['layer', 'validate', 'b']);
    expect(dangling.status).toBe(1);
    expect(dangling.stderr).toContain(
      `layer "gone" not found — create ${path.join(home, 'layers', 'gone', 'layer.config')}`,
    );
    expect(dangling.stderr).toMatch(/a\/layer\.config:1:1 \[extends\]/);
  });

  it.each([
    [['layer', 'new', 'Corp'], 2, /layer "Corp"/],
    [['layer', 'new', 'node'], 2, /reserved for a bundled package/],
    [['layer', 'new', 'x', '--extends', 'nope'], 1, /create .*nope\/layer\.config/],
    [['layer', 'validate', 'nope'], 1, /layer nope has no layer\.config/],
  ])('%j exits %i', (args, code, message) => {
    const r = byre(args);
    expect(r.status).toBe(code);
    expect(r.stderr).toMatch(message);
  });

  it('new refuses an existing layer and a parent whose chain would loop back', () => {
    byre(['layer', 'new', 'corp']);
    const again = byre(['layer', 'new', 'corp']);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('already exists');
    writeFileSync(path.join(home, 'layers', 'corp', 'layer.config'), 'extends = "team"\n');
    const loop = byre(['layer', 'new', 'team', '--extends', 'corp']);
    expect(loop.status).toBe(1);
    expect(loop.stderr).toContain('extends cycle: team -> corp -> team');
  });
});

describe('verbs before the first develop (adr/0055)', () => {
  const noEngine = (): Record<string, string> => {
    const empty = path.join(root, 'no-tools');
    mkdirSync(empty, { recursive: true });
    return { PATH: empty };
  };
  const marker = (): string => path.join(path.dirname(projectFile()), 'onboarded');

  it.each([
    [['mcp', 'add', 'docs', 'https://docs.example.com/mcp'], 'name = "docs"'],
    [['context', 'add', 'house', '--text', 'Run the linter.'], 'Run the linter.'],
  ])('%j writes the config, and the first develop still asks its questions', (verb, kept) => {
    const r = byre(verb);
    expect(r.status, r.stderr).toBe(0);
    expect(read(projectFile())).toContain(kept);
    // Off a terminal the flags answer the first-run questions; before, they were refused as
    // "only for a project's first develop".
    const dev = byre(['develop', '--agent', 'none'], noEngine());
    expect(dev.stderr).toContain("wrote this project's config");
    expect(dev.stderr).toContain('no container engine found');
    expect(read(projectFile())).toContain(kept);
    expect(read(projectFile())).toContain('agent = "none"');
    expect(read(marker())).toBe('byre develop onboarded this project\n');
    const again = byre(['develop', '--agent', 'none'], noEngine());
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('apply only to a project’s first develop');
  });

  it('claude-skill add writes the config, and the first develop still asks its questions', () => {
    mkdirSync(path.join(root, 'cs', 'tdd'), { recursive: true });
    writeFileSync(
      path.join(root, 'cs', 'tdd', 'SKILL.md'),
      '---\nname: tdd\ndescription: tests first\n---\nWrite tests.\n',
    );
    expect(byre(['claude-skill', 'add', path.join(root, 'cs', 'tdd')]).status).toBe(0);
    const dev = byre(['develop', '--agent', 'none'], noEngine());
    expect(dev.stderr).toContain("wrote this project's config");
    expect(read(projectFile())).toMatch(/agent = "none"[\s\S]*name = "tdd"/);
  });
});
