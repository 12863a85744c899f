// systemExecutable reads real files: a podman client byre trusts to keep its
// containers' monitors under this user is native and only root can change it.

import { chmodSync, chownSync, copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { useTempDir } from '../../test/support/temp.js';
import { systemExecutable } from './idle-probe.js';

describe.skipIf(process.getuid?.() !== 0)('systemExecutable (needs root to own files)', () => {
  let dir: string;
  let client: string;
  useTempDir('sysexe', (tmp) => {
    dir = tmp;
    chmodSync(dir, 0o755);
    client = path.join(dir, 'podman');
    copyFileSync('/bin/true', client);
    chmodSync(client, 0o755);
  });

  it('holds for a native program of root, in a directory of root', () => {
    expect(systemExecutable(client)).toBe(true);
  });

  it('does not hold for a script, even one of root', () => {
    writeFileSync(client, '#!/bin/sh\nexec sudo /usr/bin/podman "$@"\n');
    expect(systemExecutable(client)).toBe(false);
  });

  it('does not hold when anyone but root could change the program or its directory', () => {
    chmodSync(client, 0o775);
    expect(systemExecutable(client)).toBe(false);
    chmodSync(client, 0o755);
    chownSync(client, 4242, 4242);
    expect(systemExecutable(client)).toBe(false);
    chownSync(client, 0, 0);
    chmodSync(dir, 0o777);
    expect(systemExecutable(client)).toBe(false);
    chmodSync(dir, 0o755);
    chownSync(dir, 4242, 4242);
    expect(systemExecutable(client)).toBe(false);
  });

  it('does not hold for a missing file', () => {
    expect(systemExecutable(path.join(dir, 'nothing'))).toBe(false);
  });
});
