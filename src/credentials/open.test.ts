import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import type { EffectiveConfig, LayerRef } from '../config/types.js';
import { fakeConfig } from '../../test/support/config.js';
import { clearSecrets, redactSecrets } from '../output/redact.js';
import type { CredentialTable } from '../config/credential-rows.js';
import type { InjectRule } from '../config/inject.js';
import {
  credentialFiles,
  openCredentials,
  openInjections,
  slowIdentityNotes,
  type UnlockCache,
} from './open.js';
import { createIdentity, DEFAULT_WORK_FACTOR, sealInjected, sealValue } from './seal.js';

const FAST = 10;
const PROJECT: LayerRef = { kind: 'project', name: 'project', path: '/s/projects/p/byre.config' };
const DEFAULT: LayerRef = { kind: 'default', name: 'default', path: '/s/default.config' };
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

let projectTable: CredentialTable;
let defaultTable: CredentialTable;
let apiRow: string;
let certRow: string;
let config: EffectiveConfig;

beforeAll(async () => {
  const p = await createIdentity('one passphrase', FAST);
  const d = await createIdentity('one passphrase', FAST);
  projectTable = p.table;
  defaultTable = d.table;
  apiRow = await sealValue(p.identity.recipient, 'encrypted', 'API_KEY', text('sk-open-test'));
  certRow = await sealValue(d.identity.recipient, 'encrypted-file', 'CERT', text('-----CERT'));
  config = fakeConfig({
    envFromHost: {
      API_KEY: { value: apiRow, from: PROJECT },
      CERT: { value: certRow, from: DEFAULT },
      SKIPPED: { value: apiRow, from: PROJECT },
      TERM: { value: 'env:TERM', from: DEFAULT },
    },
    env: { SKIPPED: { value: 'literal', from: PROJECT } },
    credentials: [
      { value: defaultTable, from: DEFAULT },
      { value: projectTable, from: PROJECT },
    ],
  });
});

afterEach(() => clearSecrets());

describe('openCredentials', () => {
  it('opens each row with its own file’s identity, skipping rows [env] overrides', async () => {
    const values = await openCredentials(config, 'one passphrase');
    expect(values).toEqual([
      { key: 'API_KEY', kind: 'encrypted', value: text('sk-open-test') },
      { key: 'CERT', kind: 'encrypted-file', value: text('-----CERT') },
    ]);
    expect(credentialFiles(config)).toEqual([PROJECT, DEFAULT]);
    // Registered: a failure report can no longer carry them.
    expect(redactSecrets('x sk-open-test x')).not.toContain('sk-open-test');
  });

  it('unlocks each identity once per run', async () => {
    const cache: UnlockCache = new Map();
    await openCredentials(config, 'one passphrase', cache);
    expect(cache.size).toBe(2);
    // A second pass (develop re-reads config under its lock) needs no passphrase work.
    expect(await openCredentials(config, 'not even checked', cache)).toHaveLength(2);
  });

  it('refuses a wrong passphrase at the file whose identity it does not open', async () => {
    await expect(openCredentials(config, 'wrong')).rejects.toMatchObject({
      rule: 'credential.wrong-passphrase',
      location: { file: PROJECT.path, key: 'credentials.identity' },
    });
  });

  it('refuses an altered row at its key, naming no value', async () => {
    const raw = Buffer.from(apiRow.split(':')[2] ?? '', 'base64');
    raw[raw.length - 3] = (raw[raw.length - 3] ?? 0) ^ 1;
    const altered = `encrypted:${apiRow.split(':')[1] ?? ''}:${raw.toString('base64')}`;
    const broken = fakeConfig({
      ...config,
      envFromHost: { API_KEY: { value: altered, from: PROJECT } },
    });
    const failure = openCredentials(broken, 'one passphrase');
    await expect(failure).rejects.toMatchObject({
      rule: 'credential.row-unreadable',
      location: { file: PROJECT.path, key: 'env_from_host.API_KEY' },
    });
    await expect(failure).rejects.not.toThrow(/sk-open-test/);
  });

  it('refuses a row moved to another key', async () => {
    const moved = fakeConfig({
      ...config,
      envFromHost: { OTHER: { value: apiRow, from: PROJECT } },
    });
    await expect(openCredentials(moved, 'one passphrase')).rejects.toMatchObject({
      rule: 'credential.row-moved',
      location: { key: 'env_from_host.OTHER' },
    });
  });
});

describe('openInjections', () => {
  const rules: InjectRule[] = [
    { hosts: [{ name: 'api.example.com', port: 443 }], presentation: { kind: 'bearer' } },
  ];
  const LAYER: LayerRef = { kind: 'layer', name: 'work', path: '/s/layers/work/layer.config' };
  let injectedRow: string;
  let injecting: EffectiveConfig;

  beforeAll(async () => {
    const l = await createIdentity('one passphrase', FAST);
    injectedRow = await sealInjected(l.identity.recipient, 'TOKEN', rules, text('sk-edge-test'));
    injecting = fakeConfig({
      ...config,
      envFromHost: { ...config.envFromHost, TOKEN: { value: injectedRow, from: LAYER } },
      credentials: [...config.credentials, { value: l.table, from: LAYER }],
      injections: [{ key: 'TOKEN', rules, from: LAYER }],
    });
  });

  it('opens each injected row with its file’s identity: the value and the rules sealed with it', async () => {
    expect(await openInjections(injecting, 'one passphrase')).toEqual([
      { key: 'TOKEN', value: text('sk-edge-test'), rules },
    ]);
    // The passphrase opens the injected row’s file too, and only delivered rows are delivered.
    expect(credentialFiles(injecting)).toEqual([PROJECT, DEFAULT, LAYER]);
    expect((await openCredentials(injecting, 'one passphrase')).map((v) => v.key)).toEqual([
      'API_KEY',
      'CERT',
    ]);
    expect(redactSecrets('x sk-edge-test x')).not.toContain('sk-edge-test');
  });

  it('refuses rules that differ from the sealed ones at inject.KEY, naming what moved and no value', async () => {
    const widened = fakeConfig({
      ...injecting,
      injections: [
        {
          key: 'TOKEN',
          rules: [
            ...rules,
            { hosts: [{ name: 'evil.example', port: 443 }], presentation: { kind: 'bearer' } },
          ],
          from: LAYER,
        },
      ],
    });
    const failure = openInjections(widened, 'one passphrase');
    await expect(failure).rejects.toMatchObject({
      rule: 'credential.binding-changed',
      location: { file: LAYER.path, key: 'inject.TOKEN' },
      message: expect.stringContaining('not sealed: evil.example:443 bearer') as string,
    });
    await expect(failure).rejects.not.toThrow(/sk-edge-test/);
  });

  it('refuses a wrong passphrase at the injected row’s file', async () => {
    await expect(openInjections(injecting, 'wrong')).rejects.toMatchObject({
      rule: 'credential.wrong-passphrase',
      location: { file: LAYER.path, key: 'credentials.identity' },
    });
  });
});

describe('slowIdentityNotes', () => {
  it('names each file sealed above today’s work factor, with the rekey that fixes it', async () => {
    const { table: slow } = await createIdentity('one passphrase', DEFAULT_WORK_FACTOR + 1);
    const withTables = (p: CredentialTable, d: CredentialTable): EffectiveConfig =>
      fakeConfig({
        ...config,
        credentials: [
          { value: d, from: DEFAULT },
          { value: p, from: PROJECT },
        ],
      });
    expect(slowIdentityNotes(config)).toEqual([]);
    expect(slowIdentityNotes(withTables(slow, slow))).toEqual([
      `the credentials in ${PROJECT.path} are sealed at scrypt work factor 17, which makes every develop wait for it; byre credential rekey re-seals them at 16`,
      `the credentials in ${DEFAULT.path} are sealed at scrypt work factor 17, which makes every develop wait for it; byre credential rekey --global re-seals them at 16`,
    ]);
  }, 60_000);
});
