// `byre credential add KEY --inject …` and `remove KEY --inject HOST`
// (adr/0070) against a temp store: the usage refusals before anything is
// read or written, the sealed row and its rules written together, a rule
// added and a host dropped by opening the row with the passphrase (value and
// every rule sealed again, the file still loading), and rekey re-sealing an
// injected frame at the command level. No value reaches a file or a stream.

import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';

import { failure } from '../../test/support/failure.js';
import { fakeIo, typedOn, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import type { CredentialTable } from '../config/credential-rows.js';
import { parseInjectedRow } from '../config/credential-rows.js';
import { parseLayer } from '../config/parse.js';
import { openInjected, sealInjected, unlockIdentity, createIdentity } from '../credentials/seal.js';
import { UsageError } from '../errors.js';
import { projectIdFor } from '../project/identity.js';
import {
  credentialAddCommand,
  credentialRekeyCommand,
  credentialRemoveCommand,
} from './credential.js';
import { credentialInjectAddCommand, credentialInjectRemoveCommand } from './credential-inject.js';

const PASSPHRASE = 'passphrase';
const SECRET = 'sk-secret-value';

interface World {
  tmp: string;
  config: string;
  io: FakeIo;
}

let w: World;
let table: CredentialTable;

useTempDir('credential-inject', (tmp) => {
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'store');
  mkdirSync(dir);
  w = {
    tmp,
    config: path.join(home, 'projects', projectIdFor(dir), 'byre.config'),
    io: fakeIo({ cwd: dir, env: { BYRE_HOME: home, HOME: tmp } }),
  };
});

beforeEach(async () => {
  table ??= (await createIdentity(PASSPHRASE, 10)).table;
});

function identityText(t: CredentialTable = table): string {
  return `[credentials]\nrecipient = "${t.recipient}"\nidentity = "${t.identity}"\n`;
}

function write(text: string): void {
  mkdirSync(path.dirname(w.config), { recursive: true });
  writeFileSync(w.config, text);
}

/** Run with the passphrase (and more lines) on a descriptor, as --passphrase-fd does. */
async function withFd<T>(lines: string, run: (fd: number) => Promise<T>): Promise<T> {
  const file = path.join(w.tmp, `pass-${Math.random()}`);
  writeFileSync(file, lines);
  const fd = openSync(file, 'r');
  try {
    return await run(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file as the loader reads it, and the rules sealed in KEY's row. */
async function readBack(key: string) {
  const text = readFileSync(w.config, 'utf8');
  const parsed = parseLayer(text, { file: w.config, kind: 'project', name: 'project' });
  expect(parsed.issues).toEqual([]);
  const t = parsed.value?.credentials as CredentialTable;
  const unlocked = await unlockIdentity(
    { recipient: t.recipient, identity: t.identity },
    PASSPHRASE,
  );
  if (!unlocked.ok) throw new Error('identity does not open');
  const row = parseInjectedRow(parsed.value?.env_from_host?.[key] ?? '');
  if (!row.ok) throw new Error(row.problem);
  const opened = await openInjected(unlocked.identity, key, row.row);
  if (!opened.ok) throw new Error(opened.message);
  return {
    text,
    raw: parsed.value,
    binding: opened.binding,
    value: Buffer.from(opened.value).toString(),
  };
}

async function injectedFile(): Promise<string> {
  const rules = [
    { hosts: [{ name: 'api.github.com', port: 443 }], presentation: { kind: 'bearer' as const } },
  ];
  const row = await sealInjected(table.recipient, 'GH', rules, Buffer.from(SECRET));
  return `[env_from_host]\nGH = "${row}"\n\n[[inject.GH]]\nhosts = ["api.github.com"]\nbearer = true\n\n${identityText()}`;
}

/** `add GH --inject github.com --basic x-access-token` on the injected file: a second rule. */
function addGitHost(): Promise<void> {
  return withFd(`${PASSPHRASE}\n`, (fd) =>
    credentialInjectAddCommand(w.io, 'GH', {
      inject: 'github.com',
      basic: 'x-access-token',
      passphraseFd: fd,
    }),
  );
}

describe('byre credential add --inject: usage refusals, nothing read or written', () => {
  it.each([
    [
      'no presentation',
      { inject: 'api.x.com' },
      'credential.inject-presentation',
      /say how the edge presents/,
    ],
    [
      'two presentations',
      { inject: 'api.x.com', bearer: true, header: 'x-k' },
      'credential.inject-presentation',
      /--header and --bearer/,
    ],
    [
      'a presentation without --inject',
      { bearer: true },
      'credential.inject-presentation',
      /injected value/,
    ],
    [
      'a URL for a host',
      { inject: 'https://api.x.com/v1', bearer: true },
      'credential.inject-host',
      /^--inject: inject host "https:\/\/api.x.com\/v1": not a host name/,
    ],
    [
      'an address',
      { inject: '10.0.0.1', bearer: true },
      'credential.inject-host',
      /not a host name/,
    ],
    [
      'an empty host',
      { inject: 'api.x.com,', bearer: true },
      'credential.inject-host',
      /not a host name/,
    ],
    [
      'a host twice',
      { inject: 'api.x.com,API.x.com:443', bearer: true },
      'credential.inject-host-twice',
      /already given/,
    ],
    [
      'a header that routes',
      { inject: 'api.x.com', header: 'Host' },
      'credential.inject-presentation',
      /^--header: .*frames or routes/,
    ],
    [
      'a Basic user with a colon',
      { inject: 'github.com', basic: 'a:b' },
      'credential.inject-presentation',
      /^--basic: .*colon/,
    ],
    [
      '--file',
      { inject: 'api.x.com', bearer: true, file: '/dev/null' },
      'credential.inject-file',
      /--file and --inject/,
    ],
  ])('%s', async (_why, opts, rule, message) => {
    const error = await failure(credentialInjectAddCommand(w.io, 'API_KEY', opts));
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ rule, exitCode: 2 });
    expect(error.message).toMatch(message);
    expect(() => readFileSync(w.config)).toThrow();
  });
});

describe('byre credential add --inject', () => {
  it('seals the value with its rule and writes both; the file loads and the value is nowhere', async () => {
    write(`# mine\n${identityText()}`);
    const io = fakeIo({ cwd: w.io.cwd, env: w.io.env, terminal: typedOn(`${SECRET}\r`) });
    await credentialInjectAddCommand(io, 'GH', { inject: 'API.github.com', bearer: true });
    const back = await readBack('GH');
    expect(back.text.startsWith('# mine\n')).toBe(true);
    expect(back.raw?.inject?.['GH']).toEqual([{ hosts: ['api.github.com'], bearer: true }]);
    // The rule in the form docs/CONFIG.md shows, as a hand-written file has it.
    expect(back.text).toContain('\n[[inject.GH]]\nhosts = ["api.github.com"]\nbearer = true\n');
    expect(back.binding).toBe('[["api.github.com:443","bearer"]]');
    expect(back.value).toBe(SECRET);
    expect(back.text).not.toContain(SECRET);
    expect(io.err + io.out).not.toContain(SECRET);
    expect(io.err).toContain(
      `sealed GH for injection at the edge for api.github.com into ${w.config}`,
    );
  });

  it('credential.value-invalid: a value that cannot travel in a header is refused, unquoted; nothing written', async () => {
    write(identityText());
    const io = fakeIo({ cwd: w.io.cwd, env: w.io.env, terminal: typedOn(' sk-padded\r') });
    const error = await failure(
      credentialInjectAddCommand(io, 'GH', { inject: 'api.github.com', bearer: true }),
    );
    expect(error.rule).toBe('credential.value-invalid');
    expect(error.message).not.toContain('sk-padded');
    expect(readFileSync(w.config, 'utf8')).toBe(identityText());
  });

  it('on a key already injected, adds a rule: the passphrase opens the row, value and rules sealed again', async () => {
    write(await injectedFile());
    await addGitHost();
    const back = await readBack('GH');
    expect(back.raw?.inject?.['GH']).toEqual([
      { hosts: ['api.github.com'], bearer: true },
      { hosts: ['github.com'], basic: 'x-access-token' },
    ]);
    // The hand-written [[inject.GH]] form stays that form, one block per rule.
    expect(back.text.match(/^\[\[inject\.GH\]\]$/gm)).toHaveLength(2);
    expect(back.binding).toBe(
      '[["api.github.com:443","bearer"],["github.com:443","basic x-access-token"]]',
    );
    expect(back.value).toBe(SECRET);
    expect(w.io.err).toContain('added github.com to GH');
  });

  it('credential.inject-host-twice: a host the key is already injected for; nothing written', async () => {
    const text = await injectedFile();
    write(text);
    const error = await withFd(`${PASSPHRASE}\n`, (fd) =>
      failure(
        credentialInjectAddCommand(w.io, 'GH', {
          inject: 'api.github.com',
          header: 'x-k',
          passphraseFd: fd,
        }),
      ),
    );
    expect(error.rule).toBe('credential.inject-host-twice');
    expect(readFileSync(w.config, 'utf8')).toBe(text);
  });

  it('credential.binding-changed: rules edited by hand are not sealed again; nothing written', async () => {
    const text = (await injectedFile()).replace(
      'hosts = ["api.github.com"]',
      'hosts = ["evil.example.com"]',
    );
    write(text);
    const error = await withFd(`${PASSPHRASE}\n`, (fd) =>
      failure(
        credentialInjectAddCommand(w.io, 'GH', {
          inject: 'github.com',
          bearer: true,
          passphraseFd: fd,
        }),
      ),
    );
    expect(error).toMatchObject({
      rule: 'credential.binding-changed',
      location: { file: w.config, key: 'inject.GH' },
    });
    expect(readFileSync(w.config, 'utf8')).toBe(text);
  });
});

describe('byre credential remove KEY --inject HOST, remove KEY, rekey', () => {
  it('drops one host and seals the rest with the value again', async () => {
    write(await injectedFile());
    await addGitHost();
    await withFd(`${PASSPHRASE}\n`, (fd) =>
      credentialInjectRemoveCommand(w.io, 'GH', 'api.github.com', { passphraseFd: fd }),
    );
    const back = await readBack('GH');
    expect(back.raw?.inject?.['GH']).toEqual([{ hosts: ['github.com'], basic: 'x-access-token' }]);
    expect(back.binding).toBe('[["github.com:443","basic x-access-token"]]');
    expect(back.value).toBe(SECRET);
  });

  it.each([
    ['api.github.com', 'credential.inject-last-host'],
    ['other.example.com', 'credential.inject-host-missing'],
    ['https://x', 'credential.inject-host'],
  ])('refuses %s (%s); nothing written', async (host, rule) => {
    const text = await injectedFile();
    write(text);
    const error = await withFd(`${PASSPHRASE}\n`, (fd) =>
      failure(credentialInjectRemoveCommand(w.io, 'GH', host, { passphraseFd: fd })),
    );
    expect(error.rule).toBe(rule);
    expect(readFileSync(w.config, 'utf8')).toBe(text);
  });

  it('credential.not-injected: --inject on a key the file does not inject', async () => {
    write(identityText());
    const error = await failure(credentialInjectRemoveCommand(w.io, 'GH', 'api.github.com', {}));
    expect(error.rule).toBe('credential.not-injected');
  });

  it('remove KEY takes the injected row and its rules together', async () => {
    write(await injectedFile());
    await credentialRemoveCommand(w.io, 'GH', {});
    const text = readFileSync(w.config, 'utf8');
    // Read as TOML: the identity's random text left in the file may spell "GH".
    const layer = parseLayer(text, { file: w.config, kind: 'project', name: 'project' });
    expect(layer.issues).toEqual([]);
    expect(layer.value?.env_from_host ?? {}).not.toHaveProperty('GH');
    expect(layer.value).not.toBeNull();
    expect(layer.value?.inject).toBeUndefined();
    expect(text).not.toMatch(/^\s*\[+inject|^GH\s*=/m);
    expect(text).toContain(table.recipient);
  });

  it('add KEY (delivered) over an injected row takes its rules away with it', async () => {
    write(await injectedFile());
    const file = path.join(w.tmp, 'value');
    writeFileSync(file, 'v');
    await credentialAddCommand(w.io, 'GH', { file });
    const text = readFileSync(w.config, 'utf8');
    expect(text).toMatch(/GH = "encrypted-file:/);
    expect(text).not.toContain('inject');
    expect(parseLayer(text, { file: w.config, kind: 'project', name: 'project' }).issues).toEqual(
      [],
    );
  });

  it('rekey re-seals an injected frame as it was, under the new passphrase', async () => {
    write(await injectedFile());
    const before = readFileSync(w.config, 'utf8');
    await withFd(`${PASSPHRASE}\nnew passphrase\nnew passphrase\n`, (fd) =>
      credentialRekeyCommand(w.io, { passphraseFd: fd }),
    );
    const text = readFileSync(w.config, 'utf8');
    expect(text).not.toBe(before);
    const parsed = parseLayer(text, { file: w.config, kind: 'project', name: 'project' });
    expect(parsed.issues).toEqual([]);
    const t = parsed.value?.credentials as CredentialTable;
    expect(t.recipient).not.toBe(table.recipient);
    expect((await unlockIdentity(t, PASSPHRASE)).ok).toBe(false);
    const unlocked = await unlockIdentity(t, 'new passphrase');
    if (!unlocked.ok) throw new Error('the new passphrase does not open it');
    const row = parseInjectedRow(parsed.value?.env_from_host?.['GH'] ?? '');
    if (!row.ok) throw new Error(row.problem);
    const opened = await openInjected(unlocked.identity, 'GH', row.row);
    if (!opened.ok) throw new Error(opened.message);
    expect(opened.binding).toBe('[["api.github.com:443","bearer"]]');
    expect(Buffer.from(opened.value).toString()).toBe(SECRET);
    expect(parsed.value?.inject?.['GH']).toEqual([{ hosts: ['api.github.com'], bearer: true }]);
    expect(w.io.err).toContain('1 row(s) re-sealed');
  }, 30_000);
});
