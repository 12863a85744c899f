// Runs the real receiver script under sh against a temp directory that a fake
// mounts table calls a tmpfs.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  credentialPayload,
  RECEIVER_DONE,
  receiverCommand,
  type DeliveredValue,
} from './channel.js';

let root: string;
let dir: string;
let mounts: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'byre-channel-'));
  dir = path.join(root, 'credentials');
  spawnSync('mkdir', ['-m', '0700', dir]);
  mounts = path.join(root, 'mounts');
  writeFileSync(mounts, `proc /proc proc rw 0 0\ntmpfs ${dir} tmpfs rw,mode=700 0 0\n`);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function receive(
  input: string,
  mountsFile = mounts,
): { code: number | null; out: string; err: string } {
  const [cmd, ...args] = receiverCommand(dir, mountsFile);
  const r = spawnSync(cmd as string, args, { input, encoding: 'utf8', env: {} });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const VALUES: DeliveredValue[] = [
  { key: 'API_KEY', kind: 'encrypted', value: text('sk-123 with spaces\n\n') },
  { key: 'CERT', kind: 'encrypted-file', value: Uint8Array.from([0, 255, 10, 32, 0]) },
];

describe('the receiver', () => {
  it('lands every value 0600 byte-exact and opens the gate last', () => {
    const r = receive(credentialPayload(VALUES));
    expect(r).toMatchObject({ code: 0, out: `${RECEIVER_DONE}\n` });
    const env = path.join(dir, 'env', 'API_KEY');
    const file = path.join(dir, 'file', 'CERT');
    expect(readFileSync(env, 'utf8')).toBe('sk-123 with spaces\n\n');
    expect([...readFileSync(file)]).toEqual([0, 255, 10, 32, 0]);
    for (const p of [env, file]) expect(statSync(p).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, 'env')).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(dir, 'ready'))).toBe(true);
  });

  it('refuses a directory that is not a tmpfs', () => {
    writeFileSync(mounts, `/dev/sda1 / ext4 rw 0 0\n`);
    const r = receive(credentialPayload(VALUES));
    expect(r.code).toBe(3);
    expect(r.err).toContain('not a tmpfs');
    expect(existsSync(path.join(dir, 'env'))).toBe(false);
  });

  it('refuses a second delivery', () => {
    expect(receive(credentialPayload(VALUES)).code).toBe(0);
    const again = receive(credentialPayload(VALUES));
    expect(again.code).toBe(3);
    expect(again.err).toContain('already delivered');
  });

  it('opens no gate when the stream is cut before its end line', () => {
    const payload = credentialPayload(VALUES);
    const r = receive(payload.slice(0, payload.indexOf('\nend')));
    expect(r.code).toBe(5);
    expect(existsSync(path.join(dir, 'ready'))).toBe(false);
  });

  it.each([
    ['an unknown protocol', 'byre-credentials 2\nend\n'],
    ['an unknown kind', 'byre-credentials 1\nexec KEY YQ==\nend\n'],
    ['a key that is not a name', 'byre-credentials 1\nenv ../x YQ==\nend\n'],
    ['a key starting with a digit', 'byre-credentials 1\nenv 1X YQ==\nend\n'],
  ])('refuses %s', (_why, payload) => {
    const r = receive(payload);
    expect(r.code).toBe(4);
    expect(existsSync(path.join(dir, 'ready'))).toBe(false);
  });

  it('refuses a value that is not base64', () => {
    const r = receive('byre-credentials 1\nenv KEY !!!!\nend\n');
    expect(r.code).not.toBe(0);
    expect(existsSync(path.join(dir, 'ready'))).toBe(false);
  });
});

describe('the payload', () => {
  it('puts no value in clear and refuses a key that is not a name', () => {
    const payload = credentialPayload(VALUES);
    expect(payload).not.toContain('sk-123');
    expect(payload.split('\n')[1]).toMatch(/^env API_KEY [A-Za-z0-9+/=]+$/);
    expect(() => credentialPayload([{ key: 'A B', kind: 'encrypted', value: text('x') }])).toThrow(
      RangeError,
    );
  });
});
