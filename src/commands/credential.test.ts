// `byre credential`'s decision table against a temp store (it needs no
// engine): the usage refusals (exit 2) before any file is read, the rows it
// refuses to remove, add sealing into a file that already has an identity
// (and into a layer or the default config), list naming keys and files but
// never a value, and rekey refusing a file without an identity. The
// passphrase questions and the whole flow on the binary are test/cli/credential.test.ts's.

import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';

import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { createIdentity, sealValue } from '../credentials/seal.js';
import type { CredentialTable } from '../config/credential-rows.js';
import { ConfigError, UsageError } from '../errors.js';
import { projectIdFor } from '../project/identity.js';
import {
  credentialAddCommand,
  credentialListCommand,
  credentialRekeyCommand,
  credentialRemoveCommand,
} from './credential.js';
import { failure } from '../../test/support/failure.js';

interface World {
  tmp: string;
  home: string;
  config: string;
  io: FakeIo;
}

let w: World;
let table: CredentialTable;

useTempDir('credential-cmd', (tmp) => {
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'store');
  mkdirSync(dir);
  w = {
    tmp,
    home,
    config: path.join(home, 'projects', projectIdFor(dir), 'byre.config'),
    io: fakeIo({ cwd: dir, env: { BYRE_HOME: home, HOME: tmp } }),
  };
});

beforeEach(async () => {
  // A cheap identity: the work factor is the passphrase's, not what is tested here.
  table ??= (await createIdentity('passphrase', 10)).table;
});

function identityText(t: CredentialTable = table): string {
  return `[credentials]\nrecipient = "${t.recipient}"\nidentity = "${t.identity}"\n`;
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function valueFile(value: string): string {
  const file = path.join(w.tmp, 'value');
  writeFileSync(file, value);
  return file;
}

describe('byre credential: usage refusals, before any file is read or written', () => {
  it.each([
    ['BYRE_TOKEN', 'byre’s own namespace'],
    ['1BAD', 'not a variable name'],
    ['A-B', 'not a variable name'],
  ])('credential.key-invalid: %s (%s)', async (key) => {
    for (const run of [
      credentialAddCommand(w.io, key, { file: valueFile('v') }),
      credentialRemoveCommand(w.io, key, {}),
    ]) {
      const error = await failure(run);
      expect(error).toBeInstanceOf(UsageError);
      expect(error).toMatchObject({ rule: 'credential.key-invalid', exitCode: 2 });
    }
    expect(() => readFileSync(w.config)).toThrow();
  });

  it('credential.target-exclusive: --global with --layer', async () => {
    const error = await failure(credentialListCommand(w.io, { global: true, layer: 'work' }));
    expect(error).toMatchObject({ rule: 'credential.target-exclusive', exitCode: 2 });
  });

  it('credential.layer-name: a layer name that is not one', async () => {
    const error = await failure(credentialListCommand(w.io, { layer: '../escape' }));
    expect(error).toMatchObject({ rule: 'credential.layer-name', exitCode: 2 });
    expect(error.message).toContain('--layer "../escape"');
  });

  it('credential.passphrase-fd: the value and the passphrase cannot both be stdin', async () => {
    write(w.config, '');
    const error = await failure(
      credentialAddCommand(w.io, 'API_KEY', { file: '-', passphraseFd: 0 }),
    );
    expect(error).toMatchObject({ rule: 'credential.passphrase-fd', exitCode: 2 });
  });
});

describe('byre credential add', () => {
  it('seals into the project file’s identity; the value reaches neither the file nor a stream', async () => {
    write(w.config, `# mine\n${identityText()}`);
    await credentialAddCommand(w.io, 'API_KEY', { file: valueFile('sk-secret-value') });
    const text = readFileSync(w.config, 'utf8');
    expect(text.startsWith('# mine\n')).toBe(true);
    expect(text).toMatch(/\[env_from_host\]\nAPI_KEY = "[^"]+"/);
    expect(text).not.toContain('sk-secret-value');
    expect(w.io.err).toContain(`sealed API_KEY as encrypted-file into ${w.config}\n`);
    expect(w.io.err + w.io.out).not.toContain('sk-secret-value');
  });

  it('says when it replaces a row', async () => {
    write(w.config, identityText());
    await credentialAddCommand(w.io, 'API_KEY', { file: valueFile('one') });
    await credentialAddCommand(w.io, 'API_KEY', { file: valueFile('two') });
    expect(w.io.err).toContain('(replacing its previous row)');
  });

  it('--layer and --global write their own files, not the project’s', async () => {
    const layer = path.join(w.home, 'layers', 'work', 'layer.config');
    const global = path.join(w.home, 'default.config');
    write(layer, identityText());
    write(global, identityText());
    await credentialAddCommand(w.io, 'LAYER_KEY', { file: valueFile('a'), layer: 'work' });
    await credentialAddCommand(w.io, 'GLOBAL_KEY', { file: valueFile('b'), global: true });
    expect(readFileSync(layer, 'utf8')).toContain('LAYER_KEY = ');
    expect(readFileSync(global, 'utf8')).toContain('GLOBAL_KEY = ');
    expect(() => readFileSync(w.config)).toThrow();
  });

  it('credential.value-invalid: an empty value seals nothing', async () => {
    write(w.config, identityText());
    const error = await failure(credentialAddCommand(w.io, 'API_KEY', { file: valueFile('') }));
    expect(error.rule).toBe('credential.value-invalid');
    expect(readFileSync(w.config, 'utf8')).toBe(identityText());
  });

  it('a new identity takes its passphrase from --passphrase-fd, and says its key id', async () => {
    const pass = path.join(w.tmp, 'pass');
    writeFileSync(pass, 'a passphrase\n');
    const fd = openSync(pass, 'r');
    try {
      await credentialAddCommand(w.io, 'API_KEY', { file: valueFile('v'), passphraseFd: fd });
    } finally {
      closeSync(fd);
    }
    const text = readFileSync(w.config, 'utf8');
    expect(text).toContain('[credentials]');
    expect(text).toContain('API_KEY = ');
    expect(w.io.err).toMatch(/created a credential identity \(key id [^)]+\) in /);
  }, 30_000);

  it('a project file that does not parse is refused, located, and left alone', async () => {
    write(w.config, 'env_from_host = \n');
    const error = await failure(credentialAddCommand(w.io, 'API_KEY', { file: valueFile('v') }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(readFileSync(w.config, 'utf8')).toBe('env_from_host = \n');
  });
});

describe('byre credential remove, list, rekey', () => {
  it('credential.not-found and credential.not-a-credential: nothing written', async () => {
    const text = `[env_from_host]\nPLAIN = "env:HOST_VAR"\n\n${identityText()}`;
    write(w.config, text);
    expect((await failure(credentialRemoveCommand(w.io, 'MISSING', {}))).rule).toBe(
      'credential.not-found',
    );
    expect((await failure(credentialRemoveCommand(w.io, 'PLAIN', {}))).rule).toBe(
      'credential.not-a-credential',
    );
    expect(readFileSync(w.config, 'utf8')).toBe(text);
  });

  it('removes a sealed row, leaving the passthrough and the identity', async () => {
    const row = await sealValue(table.recipient, 'encrypted', 'API_KEY', Buffer.from('x'));
    write(
      w.config,
      `[env_from_host]\nPLAIN = "env:HOST_VAR"\nAPI_KEY = "${row}"\n\n${identityText()}`,
    );
    await credentialRemoveCommand(w.io, 'API_KEY', {});
    const text = readFileSync(w.config, 'utf8');
    expect(text).not.toContain('API_KEY');
    expect(text).toContain('PLAIN = "env:HOST_VAR"');
    expect(text).toContain(table.recipient);
    expect(w.io.err).toContain(`removed API_KEY from ${w.config}`);
  });

  it('list: one tab-separated line per sealed key with its file, never a value', async () => {
    const row = await sealValue(table.recipient, 'encrypted', 'API_KEY', Buffer.from('sk-x'));
    write(
      w.config,
      `[env_from_host]\nPLAIN = "env:HOST_VAR"\nAPI_KEY = "${row}"\n\n${identityText()}`,
    );
    await credentialListCommand(w.io, {});
    expect(w.io.out).toBe(`API_KEY\tencrypted\tproject ${w.config}\n`);
    expect(w.io.out).not.toContain(row);
  });

  it('list with no rows says so on stderr, stdout empty', async () => {
    await credentialListCommand(w.io, {});
    expect(w.io.out).toBe('');
    expect(w.io.err).toContain('no credential rows here');
  });

  it('credential.no-identity: rekey of a file without one names the flag that creates one', async () => {
    write(path.join(w.home, 'layers', 'work', 'layer.config'), '');
    const error = await failure(credentialRekeyCommand(w.io, { layer: 'work' }));
    expect(error.rule).toBe('credential.no-identity');
    expect(error.remedy).toBe('byre credential add KEY --layer work creates one');
  });
});
