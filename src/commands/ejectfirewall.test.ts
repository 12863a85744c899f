// `byre ejectfirewall`'s decision table: refused (exit 1, before detection)
// without a network-posture skill; with one, a script on stdout for the
// engine detection pins, naming the project's image under the ids that
// engine bakes, carrying the posture's egress lists and the host's
// BYRE_WALL_UPSTREAM, and joining the box's user namespace only under keep-id.
// It asks the engine nothing and makes no adapter.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FAKE_FACTS } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { projectDirs } from '../../test/support/project-world.js';
import type { EngineFacts } from '../engine/types.js';
import { ByreError } from '../errors.js';
import { imageTag } from '../gen/names.js';
import type { CommandDeps } from './deps.js';
import { ejectfirewallCommand } from './ejectfirewall.js';
import { createIdentity, sealInjected } from '../credentials/seal.js';

interface World {
  store: string;
  id: string;
  io: FakeIo;
  detected: number;
  facts: EngineFacts;
  deps: CommandDeps;
}

let w: World;

useTempDir('eject-cmd', (tmp) => {
  const p = projectDirs(tmp);
  w = {
    ...p,
    io: fakeIo({ cwd: p.dir, env: p.env, uid: 1234, gid: 1235 }),
    detected: 0,
    facts: FAKE_FACTS,
    deps: {
      detect: async () => {
        w.detected += 1;
        return w.facts;
      },
      createEngine: () => {
        throw new Error('ejectfirewall made an engine adapter');
      },
    },
  };
});

function writeConfig(text: string): void {
  mkdirSync(w.store, { recursive: true });
  writeFileSync(path.join(w.store, 'byre.config'), text);
}

async function eject(io: FakeIo = w.io): Promise<string> {
  await ejectfirewallCommand(io, w.deps);
  return io.out;
}

describe('byre ejectfirewall', () => {
  it('says the edge is not carried either, one comment per injected key, after the script', async () => {
    const { table } = await createIdentity('passphrase', 10);
    const rules = [
      { hosts: [{ name: 'api.github.com', port: 443 }], presentation: { kind: 'bearer' as const } },
    ];
    const row = await sealInjected(table.recipient, 'GH_TOKEN', rules, Buffer.from('ghp-x'));
    writeConfig(
      `skills = ["firewall"]\n[env_from_host]\nGH_TOKEN = "${row}"\n\n[[inject.GH_TOKEN]]\nhosts = ["api.github.com"]\nbearer = true\n\n[credentials]\nrecipient = "${table.recipient}"\nidentity = "${table.identity}"\n`,
    );
    const out = await eject();
    expect(out.trimEnd().split('\n').at(-1)).toBe(
      '# GH_TOKEN: injected at the edge for api.github.com by byre develop; not carried here — this box gets no GH_TOKEN (add -e GH_TOKEN yourself to hand the box the secret)',
    );
    expect(out).not.toContain('ghp-x');
  });

  it('ejectfirewall.no-posture: no posture skill, no script, refused before detection', async () => {
    const error = await ejectfirewallCommand(w.io, w.deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ByreError);
    expect(error).toMatchObject({ rule: 'ejectfirewall.no-posture', exitCode: 1 });
    expect((error as ByreError).remedy).toContain('byre/firewall');
    expect(w.detected).toBe(0);
    expect(w.io.out).toBe('');
  });

  it('firewall: a POSIX script for this project’s image on docker, under the caller’s ids', async () => {
    writeConfig('skills = ["firewall"]\negress = ["example.com"]\n');
    const script = await eject();
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    expect(script).toContain(`(deny-by-default) for ${w.id}`);
    expect(script).toContain(imageTag(w.id, 1234, 1235));
    expect(script).toContain('docker run -d --name "$HELPER"');
    expect(script).toContain('-e BYRE_WALL_POSTURE=deny-by-default');
    expect(script).toContain('-e BYRE_BOX_UID=1234');
    expect(script).toMatch(/-e BYRE_EGRESS=\S*example\.com:443/);
    expect(script).not.toContain('--userns');
    expect(script).not.toContain('BYRE_WALL_UPSTREAM');
  });

  it('firewall-open on rootless podman: keep-id’s generic ids, the box’s user namespace joined', async () => {
    writeConfig('skills = ["firewall-open"]\n');
    w.facts = { ...FAKE_FACTS, name: 'podman', rootless: true, keepId: true };
    const script = await eject();
    expect(script).toContain('podman run -d');
    expect(script).toContain(imageTag(w.id, 1000, 1000));
    expect(script).toContain('--userns "container:$BOX"');
    expect(script).toContain('-e BYRE_BOX_UID=1000');
    expect(script).toContain('BYRE_WALL_POSTURE=open-denylist');
  });

  it('the host’s BYRE_WALL_UPSTREAM is handed to the wall’s resolver', async () => {
    writeConfig('skills = ["firewall"]\n');
    const io = fakeIo({
      cwd: w.io.cwd,
      env: { ...w.io.env, BYRE_WALL_UPSTREAM: '192.0.2.53#5353' },
    });
    expect(await eject(io)).toContain("-e 'BYRE_WALL_UPSTREAM=192.0.2.53#5353'");
  });
});
