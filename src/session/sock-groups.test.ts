import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { DROP_PRIVILEGES } from '../engine/argv.js';
import { fakeSkill } from '../../test/support/config.js';
import { FakeEngine, runExited } from '../../test/support/fake-engine.js';
import { loadHostTree } from '../../test/support/host-tree.js';
import { useTempDir } from '../../test/support/temp.js';
import { ByreError } from '../errors.js';
import { provenScript } from '../gen/bind-proof.js';
import { pinSources } from '../containment/bind-pins.js';
import { probeSockGroups, sockProbes } from './sock-groups.js';

/** The bind check as byre's helpers carry it: what a proven script puts in front. */
const BIND_PROOF_SH = provenScript('', []);

type SockProbe = Parameters<typeof probeSockGroups>[1][number];

/** The kernel's overflowgid (its default): the group a socket shows when its own is not mapped in. */
const UNMAPPED = 65534;

const dockerHost = fakeSkill('byre/docker-host', 'bundled', {
  runtime: {
    ...fakeSkill('x', 'bundled').runtime,
    mounts: [
      { host: '/var/run/docker.sock', target: '/var/run/docker.sock', mode: 'rw', disabled: false },
      { host: '~/sock/x', target: '/run/x.sock/', mode: 'rw', disabled: false },
    ],
    sockGroups: ['/var/run/docker.sock', '/run/x.sock'],
  },
});
const PROBE: SockProbe = {
  skill: 'byre/docker-host',
  host: '/var/run/docker.sock',
  target: '/var/run/docker.sock',
};
/** Each probe's helper is named afresh. */
const NAME = expect.stringMatching(/^byre-sockprobe-[0-9a-f]{16}$/) as string;
const tmp = useTempDir('sock-groups');

/** The argv the probe of `probe` runs, answered with a group id. */
async function probeArgv(
  probe: SockProbe,
  keepId: boolean,
  pins: Parameters<typeof probeSockGroups>[4] = null,
): Promise<string[]> {
  const engine = new FakeEngine();
  engine.onRun = () => ({ stdout: '105\n', stderr: '' });
  await probeSockGroups(engine, [probe], 'img:1', keepId, pins);
  return engine.callsTo('run')[0]?.[0] as string[];
}

describe('sockProbes', () => {
  it('pairs each sock_groups path with the bind that brings it in, ~ expanded', () => {
    expect(sockProbes([fakeSkill('byre/claude', 'bundled'), dockerHost], '/home/u')).toEqual([
      PROBE,
      { skill: 'byre/docker-host', host: '/home/u/sock/x', target: '/run/x.sock/' },
    ]);
  });
});

describe("the probe's argv", () => {
  it('runs stat as a root with no capability, network or new privileges in the box image, over the bind, printing the group', async () => {
    expect(await probeArgv(PROBE, false)).toEqual([
      'run',
      '--rm',
      '--pull=never',
      '--name',
      NAME,
      '--user',
      '0:0',
      '--network',
      'none',
      ...DROP_PRIVILEGES,
      '--entrypoint',
      'stat',
      '--mount',
      'type=bind,source=/var/run/docker.sock,target=/var/run/docker.sock',
      'img:1',
      '-c',
      '%g',
      '/var/run/docker.sock',
    ]);
  });
  it('with a proof (adr/0045), proves the bind in sh first, then runs the same stat', async () => {
    const sock = path.join(tmp.path, 'docker.sock');
    writeFileSync(sock, '');
    const st = statSync(sock, { bigint: true });
    expect(await probeArgv({ ...PROBE, host: sock }, false, pinSources([sock]))).toEqual([
      'run',
      '--rm',
      '--pull=never',
      '--name',
      NAME,
      '--user',
      '0:0',
      '--network',
      'none',
      ...DROP_PRIVILEGES,
      '--entrypoint',
      'sh',
      '-e',
      `BYRE_BIND_PROOF=${st.dev}:${st.ino}:/var/run/docker.sock`,
      '--mount',
      `type=bind,source=${sock},target=/var/run/docker.sock`,
      'img:1',
      '-c',
      `${BIND_PROOF_SH}exec stat -c %g "$1"`,
      'byre-sock-probe',
      '/var/run/docker.sock',
    ]);
  });
  it('joins the keep-id mapping on rootless podman', async () => {
    expect(await probeArgv(PROBE, true)).toContain('--userns=keep-id:uid=1000,gid=1000');
  });
});

describe("the probe's answer", () => {
  it.each<[string, number | null]>([
    ['105\n', 105],
    ['0', 0],
    [' 65534 \n', 65534],
    ['', null],
    ['abc', null],
    ['-1', null],
    ['1 2', null],
    ['99999999999', null],
  ])('%j -> %s', async (stdout, want) => {
    const engine = new FakeEngine();
    engine.onRun = () => ({ stdout, stderr: '' });
    const probed = probeSockGroups(engine, [PROBE], 'img', false);
    if (want === null) {
      await expect(probed).rejects.toMatchObject({ rule: 'develop.sock-probe-failed' });
    } else if (want === UNMAPPED) {
      expect((await probed).gids).toEqual([]);
      expect((await probed).warnings).toHaveLength(1);
    } else {
      expect(await probed).toEqual({ gids: [want], warnings: [] });
    }
  });
});

describe('probeSockGroups', () => {
  it('adds each socket group once, sorted', async () => {
    const engine = new FakeEngine();
    const answers = ['999\n', '105\n', '999\n'];
    engine.onRun = () => ({ stdout: answers.shift() ?? '', stderr: '' });
    const probes = [PROBE, { ...PROBE, target: '/b' }, { ...PROBE, target: '/c' }];
    expect(await probeSockGroups(engine, probes, 'img', false)).toEqual({
      gids: [105, 999],
      warnings: [],
    });
    expect(engine.calls.filter((c) => c.method === 'run')).toHaveLength(3);
  });

  it('does not add an unmapped group, and says why', async () => {
    const engine = new FakeEngine();
    engine.onRun = () => ({ stdout: `${UNMAPPED}\n`, stderr: '' });
    const result = await probeSockGroups(engine, [PROBE], 'img', true);
    expect(result.gids).toEqual([]);
    expect(result.warnings[0]).toMatch(/not mapped into this engine's user namespace/);
  });

  it('fails the launch, naming the skill and socket, when the probe fails', async () => {
    const engine = new FakeEngine();
    engine.failNext('run');
    const failure = await probeSockGroups(engine, [PROBE], 'img', false).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ByreError);
    expect(failure).toMatchObject({ rule: 'develop.sock-probe-failed' });
    expect((failure as Error).message).toContain('byre/docker-host mounts /var/run/docker.sock');
  });

  it('bind.changed: a probe whose bind was not the pinned object is a refusal, not a probe failure', async () => {
    const sock = path.join(tmp.path, 'docker.sock');
    writeFileSync(sock, '');
    const probe = { ...PROBE, host: sock };
    const engine = new FakeEngine();
    engine.failNext('run', runExited(222));
    const failure = await probeSockGroups(engine, [probe], 'img', false, pinSources([sock])).catch(
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({ rule: 'bind.changed', exitCode: 3 });
    const argv = engine.callsTo('run')[0]?.[0] as string[];
    const st = statSync(sock, { bigint: true });
    expect(argv).toContain(`BYRE_BIND_PROOF=${st.dev}:${st.ino}:/var/run/docker.sock`);
  });

  it('refuses an answer that is not a group id', async () => {
    const engine = new FakeEngine();
    engine.onRun = () => ({ stdout: 'stat: cannot stat\n', stderr: '' });
    await expect(probeSockGroups(engine, [PROBE], 'img', false)).rejects.toMatchObject({
      rule: 'develop.sock-probe-failed',
    });
  });

  it('reads each socket’s group as the engine shows it: joined, or said unmapped', async () => {
    const engine = new FakeEngine();
    engine.host.mkdirp('/var/run');
    engine.host.nodes.set('/var/run/docker.sock', { kind: 'socket', gid: 989 });
    engine.host.mkdirp('/home/u/sock');
    engine.host.nodes.set('/home/u/sock/x', { kind: 'socket', gid: UNMAPPED });
    const probed = await probeSockGroups(engine, sockProbes([dockerHost], '/home/u'), 'img', true);
    expect(probed.gids).toEqual([989]);
    expect(probed.warnings).toEqual([
      expect.stringMatching(/^\/run\/x\.sock\/ \(byre\/docker-host\): its group is not mapped/),
    ]);
  });

  it('a socket the engine cannot bind fails the launch with the engine’s own words', async () => {
    const engine = new FakeEngine();
    const failure = await probeSockGroups(engine, [PROBE], 'img', false).catch((e: unknown) => e);
    expect(failure).toMatchObject({ rule: 'develop.sock-probe-failed' });
    expect((failure as Error).message).toContain('and probing its group failed');
    expect((failure as { cause?: { stderr?: string } }).cause?.stderr).toContain(
      'bind source path does not exist: /var/run/docker.sock',
    );
  });

  it('with the proof, the socket pinned on the host is probed; the group is the engine’s view of it', async () => {
    const sock = path.join(tmp.path, 'docker.sock');
    writeFileSync(sock, '');
    const engine = new FakeEngine();
    loadHostTree(engine.host, tmp.path);
    // Under a VM the engine shows another group than the host file has (adr/0021).
    const pinned = engine.host.lstat(sock);
    if (pinned === undefined) throw new Error('not loaded');
    engine.host.nodes.set(sock, { ...pinned, gid: 4242 });
    const probe = { ...PROBE, host: sock };
    expect(await probeSockGroups(engine, [probe], 'img', false, pinSources([sock]))).toEqual({
      gids: [4242],
      warnings: [],
    });
  });

  it('asks nothing when no skill declares a socket', async () => {
    const engine = new FakeEngine();
    expect(await probeSockGroups(engine, [], 'img', false)).toEqual({ gids: [], warnings: [] });
    expect(engine.calls).toEqual([]);
  });
});
