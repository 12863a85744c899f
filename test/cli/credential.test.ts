// `byre credential add|list|remove|rekey` through the built binary, with no
// engine: the rows land through the config writer, the passphrase comes from
// a descriptor, nothing byre prints or writes holds a value, and every
// refusal is located.

import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { unlockIdentity } from '../../src/credentials/seal.js';
import { projectIdFor } from '../../src/project/identity.js';
import { useSharedTempDir } from '../support/temp.js';

const BIN = path.resolve('dist/byre');
const SECRET = 'sk-cli-planted-7d1e0c';
const FILE_SECRET = '{"cli":"planted-c0ffee"}\n';
const PASS = 'first passphrase';
let root: string;
let project: string;
let home: string;
let outputs: string[];

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs dist/byre; `fd3` is handed over on descriptor 3. */
function byre(args: string[], options: { input?: string; fd3?: string } = {}): Run {
  let fd: number | undefined;
  if (options.fd3 !== undefined) {
    const file = path.join(root, 'fd3');
    writeFileSync(file, options.fd3, { mode: 0o600 });
    fd = openSync(file, 'r');
    rmSync(file);
  }
  try {
    const r = spawnSync(BIN, args, {
      cwd: project,
      input: options.input ?? '',
      encoding: 'utf8',
      env: { ...process.env, BYRE_HOME: home, BYRE_ALLOW_ROOT: '1' },
      stdio: fd === undefined ? 'pipe' : ['pipe', 'pipe', 'pipe', fd],
    });
    outputs.push(r.stdout, r.stderr);
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function projectConfigPath(): string {
  return path.join(home, 'projects', projectIdFor(project), 'byre.config');
}

function setUpProject(text = '# set up\n'): string {
  const file = projectConfigPath();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

function expectNoValue(): void {
  const files = [projectConfigPath(), path.join(home, 'default.config')].flatMap((f) => {
    try {
      return [readFileSync(f, 'utf8')];
    } catch {
      return [];
    }
  });
  for (const text of [...outputs, ...files]) {
    for (const v of [SECRET, FILE_SECRET.trim(), Buffer.from(SECRET).toString('base64')]) {
      expect(text).not.toContain(v);
    }
  }
}

useSharedTempDir('cli-credential', (tmp) => {
  root = tmp;
  project = path.join(root, 'work', 'proj');
  home = path.join(root, 'home');
  mkdirSync(project, { recursive: true });
  outputs = [];
});

// One store shared by the steps below, in order: every identity byre makes
// costs a real scrypt (2^18, about a second), so each is made once.
describe('byre credential', { timeout: 120_000 }, () => {
  let config = '';
  let firstRow = '';

  it('creates the project config before the first develop, which still asks its questions', () => {
    const r = byre(['credential', 'add', 'API_KEY', '--passphrase-fd', '3'], {
      input: `${SECRET}\n`,
      fd3: `${PASS}\n`,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(projectConfigPath(), 'utf8')).toMatch(
      /^# byre project config for [\s\S]*\[env_from_host\]\nAPI_KEY = "encrypted:/,
    );
    // Off a terminal the flags answer the first-run questions (adr/0055).
    const empty = path.join(root, 'no-tools');
    mkdirSync(empty, { recursive: true });
    const dev = spawnSync(BIN, ['develop', '--agent', 'none'], {
      cwd: project,
      input: '',
      encoding: 'utf8',
      env: { BYRE_HOME: home, BYRE_ALLOW_ROOT: '1', PATH: empty, HOME: root },
    });
    expect(dev.stderr).toContain("wrote this project's config");
    expect(readFileSync(projectConfigPath(), 'utf8')).toMatch(/agent = "none"[\s\S]*API_KEY = /);
    expectNoValue();
  });

  it('needs a passphrase for a new identity and will not guess one', () => {
    setUpProject('# my project\nagent = "none"\n');
    const r = byre(['credential', 'add', 'API_KEY'], { input: SECRET });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--passphrase-fd');
  });

  it('adds, lists and removes rows through the config writer', () => {
    config = projectConfigPath();
    const add = byre(['credential', 'add', 'API_KEY', '--passphrase-fd', '3'], {
      input: `${SECRET}\n`,
      fd3: `${PASS}\n`,
    });
    expect(add.stderr).toContain('created a credential identity');
    expect(add).toMatchObject({ status: 0, stdout: '' });
    const text = readFileSync(config, 'utf8');
    expect(text.startsWith('# my project\nagent = "none"\n')).toBe(true);
    expect(text).toMatch(/\[env_from_host\]\nAPI_KEY = "encrypted:[0-9a-f]{16}:/);
    expect(text).toMatch(/\[credentials\]\nrecipient = "age1/);
    firstRow = /API_KEY = "([^"]+)"/.exec(text)?.[1] ?? '';

    // A second row seals to the existing identity: no passphrase needed.
    const valueFile = path.join(root, 'sa.json');
    writeFileSync(valueFile, FILE_SECRET);
    const file = byre(['credential', 'add', 'SERVICE_JSON', '--file', valueFile]);
    expect(file.status).toBe(0);
    expect(file.stderr).toContain('sealed SERVICE_JSON as encrypted-file');

    const list = byre(['credential', 'list']);
    expect(list.status).toBe(0);
    expect(list.stdout).toBe(
      `API_KEY\tencrypted\tproject ${config}\nSERVICE_JSON\tencrypted-file\tproject ${config}\n`,
    );
    const status = byre(['status']);
    expect(status.stdout).toContain('API_KEY <- encrypted  (project)');
    const dockerfile = byre(['dockerfile']);
    expect(dockerfile.stdout).toContain('COPY credential-gate /etc/byre/credential-gate');
    expect(dockerfile.stdout).toContain(
      "expects byre's credential delivery (API_KEY, SERVICE_JSON)",
    );

    expect(byre(['credential', 'remove', 'SERVICE_JSON']).status).toBe(0);
    expect(byre(['credential', 'list']).stdout).not.toContain('SERVICE_JSON');
    expectNoValue();
  });

  it('injects at the edge (adr/0070): the row and its rules, a host added and dropped, status says so', () => {
    const bad = byre([
      'credential',
      'add',
      'GH_TOKEN',
      '--inject',
      'https://api.github.com',
      '--bearer',
    ]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--inject: inject host "https://api.github.com": not a host name');
    const two = byre([
      'credential',
      'add',
      'GH_TOKEN',
      '--inject',
      'api.github.com',
      '--bearer',
      '--header',
      'x-k',
    ]);
    expect(two.status).toBe(2);
    expect(two.stderr).toContain('--header and --bearer name two presentations');

    const add = byre(['credential', 'add', 'GH_TOKEN', '--inject', 'api.github.com', '--bearer'], {
      input: `${SECRET}\n`,
    });
    expect(add.status, add.stderr).toBe(0);
    expect(readFileSync(config, 'utf8')).toMatch(/GH_TOKEN = "injected:[0-9a-f]{16}:/);
    const more = byre(
      [
        'credential',
        'add',
        'GH_TOKEN',
        '--inject',
        'github.com',
        '--basic',
        'x-access-token',
        '--passphrase-fd',
        '3',
      ],
      { fd3: `${PASS}\n` },
    );
    expect(more.status, more.stderr).toBe(0);
    const rules = (parse(readFileSync(config, 'utf8')) as { inject: Record<string, unknown> })
      .inject;
    expect(rules['GH_TOKEN']).toEqual([
      { hosts: ['api.github.com'], bearer: true },
      { hosts: ['github.com'], basic: 'x-access-token' },
    ]);
    expect(byre(['credential', 'list']).stdout).toContain(
      `GH_TOKEN\tinjected\tproject ${config}\n`,
    );

    // The row wraps at the page's width: read it with the wrapping undone.
    const flat = (args: string[]): string => byre(args).stdout.replace(/\s+/g, ' ');
    expect(flat(['status'])).toContain(
      'GH_TOKEN -> injected at the edge for api.github.com, github.com; the box holds a sentinel (project)',
    );
    expect(flat(['status', '--full'])).toContain(
      'github.com as Authorization: Basic (user x-access-token)',
    );
    // dockerrun's comment lines are src/commands/dockerrun.test.ts's (it needs an engine's facts).

    const drop = byre(
      ['credential', 'remove', 'GH_TOKEN', '--inject', 'api.github.com', '--passphrase-fd', '3'],
      {
        fd3: `${PASS}\n`,
      },
    );
    expect(drop.status, drop.stderr).toBe(0);
    expect(flat(['status'])).toContain('GH_TOKEN -> injected at the edge for github.com;');
    expect(byre(['credential', 'remove', 'GH_TOKEN']).status).toBe(0);
    expect(readFileSync(config, 'utf8')).not.toContain('GH_TOKEN');
    expectNoValue();
  });

  it('refuses a wrong passphrase on rekey, and leaves the file as it was', () => {
    const before = readFileSync(config, 'utf8');
    const r = byre(['credential', 'rekey', '--passphrase-fd', '3'], { fd3: 'wrong\nnew\n' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the passphrase does not open this identity');
    expect(r.stderr).toContain('credentials.identity');
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it('keeps one passphrase per project: a new file’s identity must match', () => {
    const r = byre(['credential', 'add', 'OTHER', '--global', '--passphrase-fd', '3'], {
      input: 'v2-value',
      fd3: 'a different one\n',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('that passphrase does not open the credentials in');
    const ok = byre(['credential', 'add', 'OTHER', '--global', '--passphrase-fd', '3'], {
      input: 'v2-value',
      fd3: `${PASS}\n`,
    });
    expect(ok.status).toBe(0);
    expect(byre(['credential', 'list', '--global']).stdout).toMatch(/^OTHER\tencrypted\t/);
  });

  it('refuses a row copied from another file, at its line', () => {
    const global = path.join(home, 'default.config');
    const original = readFileSync(global, 'utf8');
    writeFileSync(global, original.replace(/OTHER = "[^"]+"/, `OTHER = "${firstRow}"`));
    try {
      const r = byre(['status']);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `byre: ${global.replace(/[.]/g, '\\.')}:\\d+:1 \\(key env_from_host\\.OTHER\\): env_from_host OTHER was sealed to another file's identity`,
        ),
      );
      expect(r.stderr).toContain('[config.credential-foreign]');
    } finally {
      writeFileSync(global, original);
    }
  });

  it('rekeys: a new identity and passphrase, every row re-sealed', async () => {
    const rekey = byre(['credential', 'rekey', '--passphrase-fd', '3'], {
      fd3: `${PASS}\nsecond passphrase\n`,
    });
    expect(rekey.status).toBe(0);
    expect(rekey.stderr).toContain('1 row(s) re-sealed');
    const text = readFileSync(config, 'utf8');
    const after = parse(text) as { credentials: { recipient: string; identity: string } };
    expect((await unlockIdentity(after.credentials, 'second passphrase')).ok).toBe(true);
    expect(text).not.toContain(firstRow);
    expectNoValue();
  });

  it.each([
    [['credential', 'add', 'BYRE_X'], 2, 'BYRE_ namespace'],
    [['credential', 'add', '1X'], 2, 'variable name'],
    [['credential', 'add', 'K', '--global', '--layer', 'x'], 2, 'pick one'],
    [['credential', 'add', 'K', '--layer', 'Bad Name'], 2, 'layer name'],
    [['credential', 'add', 'K', '--passphrase-fd', 'x'], 2, 'file descriptor number'],
    [['credential', 'remove', 'NOPE', '--global'], 1, 'has no env_from_host NOPE'],
    [['credential', 'remove', 'TERM', '--layer', 'nolayer'], 1, 'has no env_from_host TERM'],
    [['credential', 'rekey', '--layer', 'nolayer'], 1, 'holds no credential identity'],
  ])('%j exits %i', (args, code, text) => {
    const r = byre(args, { input: 'value' });
    expect(r.status).toBe(code);
    expect(r.stderr).toContain(text);
  });
});
