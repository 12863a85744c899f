// `byre dockerrun`'s decision table: it prints the run command develop would
// use, on the engine detection pins, less the byre.client label (adr/0024);
// it refuses what develop refuses before detection (a box reaching byre's
// store); and it says on stderr what the printed command cannot carry (a
// posture skill's wall, a socket's group, sealed credentials). It asks the
// engine nothing: detection is injected, and no engine adapter is made.

import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FAKE_FACTS } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { projectDirs } from '../../test/support/project-world.js';
import { createIdentity, sealInjected, sealValue } from '../credentials/seal.js';
import type { EngineFacts } from '../engine/types.js';
import { ByreError } from '../errors.js';
import { imageTag, LABEL } from '../gen/names.js';
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
  const p = projectDirs(tmp);
  w = {
    ...p,
    io: fakeIo({ cwd: p.dir, env: p.env }),
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

  it('rootless podman: binds the wiring develop would, staged in the store, read-only, and says so (adr/0075)', async () => {
    w.facts = {
      ...FAKE_FACTS,
      name: 'podman',
      path: '/usr/bin/podman',
      rootless: true,
      keepId: true,
    };
    const out = await dockerrun();
    const root = path.join(w.home, 'wiring', w.id);
    const [dir] = readdirSync(root);
    const wiring = path.join(root, dir ?? '', 'wiring');
    expect(out).toContain(`type=bind,source=${wiring}/mcp.json,target=/etc/byre/mcp.json,readonly`);
    expect(w.io.err).toContain(`binds the box's wiring`);
    expect(w.io.err).toContain(path.join(root, dir ?? ''));
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

  it('a posture skill on podman: prints no --rm, and says to remove the wall helper, then the box (adr/0063)', async () => {
    writeConfig('skills = ["firewall"]\n');
    w.facts = { ...FAKE_FACTS, name: 'podman', path: '/usr/bin/podman' };
    const out = await dockerrun();
    expect(out.startsWith('podman run -i ')).toBe(true);
    expect(out).not.toContain('--rm');
    const box = /--name (\S+)/.exec(out)?.[1] ?? '';
    expect(w.io.err).toContain(`podman rm -f ${box}-wall; podman rm -f ${box}`);
  });

  it('a posture skill on docker keeps --rm: docker removes a box its wall helper joins', async () => {
    writeConfig('skills = ["firewall"]\n');
    expect(await dockerrun()).toMatch(/^docker run --rm -i /);
    expect(w.io.err).not.toContain('podman rm');
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

  it('injected credentials: one comment per key, and the box gets no value, not even the sentinel', async () => {
    const { table } = await createIdentity('passphrase', 10);
    const rules = [
      { hosts: [{ name: 'api.github.com', port: 443 }], presentation: { kind: 'bearer' as const } },
    ];
    const row = await sealInjected(table.recipient, 'GH_TOKEN', rules, Buffer.from('sk-secret'));
    writeConfig(
      `[env_from_host]\nGH_TOKEN = "${row}"\n\n[[inject.GH_TOKEN]]\nhosts = ["api.github.com"]\nbearer = true\n\n[credentials]\nrecipient = "${table.recipient}"\nidentity = "${table.identity}"\n`,
    );
    const out = await dockerrun();
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      '# GH_TOKEN: injected at the edge for api.github.com by byre develop; not carried here — this box gets no GH_TOKEN (add -e GH_TOKEN yourself to hand the box the secret)',
    );
    expect(lines[1]).not.toContain('GH_TOKEN');
    expect(out).not.toContain('byre-edge-sentinel');
    expect(out).not.toContain('BYRE_EDGE_SENTINELS');
    // No edge opens the gate develop's image bakes (adr/0084): the box skips it.
    expect(lines[1]).toContain(' -e BYRE_EDGE_GATE_FILE=/dev/null ');
    expect(out + w.io.err).not.toContain('sk-secret');
    expect(out + w.io.err).not.toContain(row.slice(20, 60));
  });

  it('no injection: the edge gate is not mentioned', async () => {
    writeConfig('');
    expect(await dockerrun()).not.toContain('BYRE_EDGE_GATE_FILE');
  });
});
