// `byre dockerrun`'s decision table: it prints the run command develop would
// use, on the engine detection pins, less the byre.client label (adr/0024);
// it refuses what develop refuses before detection (a box reaching byre's
// store); and it says on stderr what the printed command cannot carry (a
// posture skill's wall, a socket's group, sealed credentials). It asks the
// engine nothing: detection is injected, and no engine adapter is made.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FAKE_FACTS } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { createIdentity, sealValue } from '../credentials/seal.js';
import type { EngineFacts } from '../engine/types.js';
import { ByreError } from '../errors.js';
import { imageTag, LABEL } from '../gen/names.js';
import { projectIdFor } from '../project/identity.js';
import type { CommandDeps } from './deps.js';
import { dockerrunCommand } from './dockerrun.js';

interface World {
  dir: string;
  home: string;
  store: string;
  id: string;
  io: FakeIo;
  detected: number;
  facts: EngineFacts;
  deps: CommandDeps;
}

let w: World;

useTempDir('dockerrun-cmd', (tmp) => {
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'store');
  const user = path.join(tmp, 'user');
  mkdirSync(dir);
  mkdirSync(user);
  const id = projectIdFor(dir);
  w = {
    dir,
    home,
    store: path.join(home, 'projects', id),
    id,
    io: fakeIo({ cwd: dir, env: { BYRE_HOME: home, HOME: user, PATH: '/usr/bin:/bin' } }),
    detected: 0,
    facts: FAKE_FACTS,
    deps: {
      detect: async () => {
        w.detected += 1;
        return w.facts;
      },
      createEngine: () => {
        throw new Error('dockerrun made an engine adapter');
      },
    },
  };
});

function writeConfig(text: string): void {
  mkdirSync(w.store, { recursive: true });
  writeFileSync(path.join(w.store, 'byre.config'), text);
}

async function dockerrun(): Promise<string> {
  await dockerrunCommand(w.io, w.deps);
  return w.io.out;
}

describe('byre dockerrun', () => {
  it('prints one shell-quoted run command on stdout: the engine, the labels, the image', async () => {
    const out = await dockerrun();
    expect(out.split('\n')).toHaveLength(2);
    expect(out.startsWith('docker run ')).toBe(true);
    expect(out).toContain(`${LABEL.project}=${w.id}`);
    expect(out).toContain(`--name byre-${w.id}`);
    expect(out).toContain(imageTag(w.id, 1000, 1000));
    // The bind of this directory, quoted for a shell.
    expect(out).toContain(w.dir);
    expect(w.io.err).toBe('');
  });

  it('carries no byre.client label: this byre exits once it prints (adr/0024)', async () => {
    const out = await dockerrun();
    expect(out).not.toContain(`${LABEL.client}=`);
  });

  it('speaks for the engine detection pins: podman under keep-id bakes the generic ids', async () => {
    w.facts = { ...FAKE_FACTS, name: 'podman', rootless: true, keepId: true };
    w.io = fakeIo({ cwd: w.io.cwd, env: w.io.env, uid: 1234, gid: 1234 });
    const out = await dockerrun();
    expect(out.startsWith('podman run ')).toBe(true);
    expect(out).toContain(imageTag(w.id, 1000, 1000));
    expect(out).toContain('keep-id');
  });

  it('a terminal on stdin asks the engine for one', async () => {
    w.io = fakeIo({ cwd: w.io.cwd, env: w.io.env, stdinIsTty: true });
    expect(await dockerrun()).toMatch(/ -it? /);
  });

  it('containment.store: a box that would reach byre’s store is refused before detection, nothing printed', async () => {
    mkdirSync(w.home, { recursive: true });
    writeConfig(`[[mounts]]\nhost = "${w.home}"\ntarget = "/srv/store"\nmode = "rw"\n`);
    const error = await dockerrunCommand(w.io, w.deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ByreError);
    expect(error).toMatchObject({ rule: 'containment.store', exitCode: 3 });
    expect(w.detected).toBe(0);
    expect(w.io.out).toBe('');
  });

  it('a posture skill: notes the launch gate the printed command cannot open', async () => {
    writeConfig('skills = ["firewall"]\n');
    await dockerrun();
    expect(w.io.err).toContain('is on: this box waits at its launch gate and fails closed');
    expect(w.io.err).toContain('byre ejectfirewall');
  });

  it('sealed credentials: notes they are not carried, naming the keys, never a value', async () => {
    const { table } = await createIdentity('passphrase', 10);
    const row = await sealValue(table.recipient, 'encrypted', 'API_KEY', Buffer.from('sk-secret'));
    writeConfig(
      `[env_from_host]\nAPI_KEY = "${row}"\n\n[credentials]\nrecipient = "${table.recipient}"\nidentity = "${table.identity}"\n`,
    );
    const out = await dockerrun();
    expect(w.io.err).toContain('credentials (API_KEY) are not carried');
    expect(out + w.io.err).not.toContain('sk-secret');
  });
});
