// The ssh legs, run against a stand-in ssh (a script at an absolute path):
// the remote's listing parsed, its stderr relayed escaped under `remote:`,
// the archive streamed to ssh's stdin, and an ssh that cannot start rejected.

import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp.js';
import { INBOX } from '../box-scripts.js';
import { listRemoteBoxes, uploadArchive, type RemoteContext } from './session.js';

const tmp = useTempDir('remote-session');

function fakeSsh(body: string): string {
  const file = path.join(tmp.path, 'ssh');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

function context(ssh: string, said: string[]): RemoteContext {
  return {
    target: { raw: 'ssh://host', host: 'host', dest: 'host' },
    ssh,
    env: { PATH: '/usr/bin:/bin', OUT: path.join(tmp.path, 'got') },
    stderr: { write: (t: string) => said.push(t) },
    skipUidCheck: false,
  };
}

describe('the ssh legs', () => {
  it("lists the remote's boxes and relays its stderr as the remote's", async () => {
    const said: string[] = [];
    const ssh = fakeSsh(
      `printf 'aaaaaaaaaaaa\\tdocker\\tp1\\tw1\\t\\n'; printf 'hi\\033[31m\\n' >&2; exit 4`,
    );
    const r = await listRemoteBoxes(context(ssh, said));
    expect(r.partial).toBe(true);
    expect(r.boxes.map((b) => b.id)).toEqual(['aaaaaaaaaaaa']);
    expect(said.join('')).toMatch(/^remote: hi/);
    expect(said.join('')).not.toContain('\x1b');
  });

  it('streams the archive into ssh and reads back what landed', async () => {
    const ssh = fakeSsh(`cat > "$OUT"; echo "${INBOX}/file.txt"`);
    const r = await uploadArchive(
      { ...context(ssh, []), box: 'b' },
      Readable.from([Buffer.from('archive bytes')]),
      Promise.resolve(),
    );
    expect(r.landed).toEqual([`${INBOX}/file.txt`]);
    expect(readFileSync(path.join(tmp.path, 'got'), 'utf8')).toBe('archive bytes');
  });

  it('rejects when ssh cannot start', async () => {
    await expect(listRemoteBoxes(context(path.join(tmp.path, 'no-ssh'), []))).rejects.toThrow();
  });
});
