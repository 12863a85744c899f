// The session steps' own decisions, table-driven: the params a session
// derives and seals, the wall's and the credentials' plans, the outcome a
// session ends with, and the image and volume names; the steps that ask an
// engine run on the fake. The claim's refusals are develop's (develop.test.ts).

import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FakeEngine } from '../../test/support/fake-engine.js';
import { fakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { fakeConfig, fakeSkill, sourced } from '../../test/support/config.js';
import type { BindPins } from '../containment/bind-pins.js';
import { pinSource } from '../host/path-pin.js';
import { ByreError, PassthroughExit, RefusedError } from '../errors.js';
import { BIND_PROOF_EXIT } from '../gen/bind-proof.js';
import { postureFacts } from '../gen/posture.js';
import type { PortChoice } from '../gen/port-block.js';
import type { RunParams } from '../gen/run-argv.js';
import { sessionOutcome } from './attach.js';
import { createBox } from './create.js';
import { credentialDelivery } from './credentials.js';
import { imageDigest, projectImage } from './image.js';
import { portBanner } from './ports.js';
import { sealRunParams, sessionRunParams } from './run-params.js';
import { plannedVolumes } from './volumes.js';
import { netnsPlan } from './wall.js';

const shared: RunParams = {
  engine: 'docker',
  worktreeId: 'app-1a2b3c',
  projectId: 'app-1a2b3c',
  uid: 1000,
  gid: 1000,
  skillEnv: {},
  hostEnv: {},
  workspaceDir: '/tmp',
  home: '/home/u',
  configMounts: [],
  skillMounts: [],
  extraBinds: [{ host: '/git', target: '/git', mode: 'rw' }],
  configVolumes: [],
  skillVolumes: [],
  ports: [{ container: 3000, host: 0, interface: '127.0.0.1' }],
  caps: [],
  groupAdd: [],
  keepId: false,
  skillRunArgs: [],
  projectRunArgs: [],
  labels: { client: 4242, store: 'st' },
  image: 'byre-app-1a2b3c-u1000-g1000',
};

const okPorts: PortChoice = {
  kind: 'ok',
  ports: [{ container: 3000, host: 3100, interface: '127.0.0.1' }],
  block: 1,
};
const selfEdit = { host: '/store/p', target: '/byre-store', mode: 'rw' as const };

describe('sessionRunParams', () => {
  it.each([
    [
      'nothing chosen',
      {
        run: undefined,
        ports: okPorts,
        selfEdit: null,
        groupAdd: [],
        walled: false,
        edgeHosts: [] as string[],
        edgeKeys: [] as string[],
      },
    ],
    [
      'a nonce, the store and a group, walled, an edge',
      {
        run: 'n1',
        ports: okPorts,
        selfEdit,
        groupAdd: [998],
        walled: true,
        edgeHosts: ['api.x.test:127.31.0.1'],
        edgeKeys: ['GH'],
      },
    ],
  ])('%s: the shared params with this session’s choices, the shared ones untouched', (_n, c) => {
    const before = structuredClone(shared);
    const out = sessionRunParams(shared, c);
    expect(shared).toEqual(before);
    expect(out.labels).toEqual(
      c.run === undefined ? shared.labels : { ...shared.labels, run: 'n1' },
    );
    expect(out.ports).toEqual(okPorts.ports);
    expect(out.extraBinds).toEqual([
      ...shared.extraBinds,
      ...(c.selfEdit === null ? [] : [selfEdit]),
    ]);
    expect(out.groupAdd).toEqual(c.groupAdd);
    // A box the wall's helper joins is byre's to remove; any other, the engine's.
    expect(out.removedBy).toBe(c.walled ? 'byre' : undefined);
    // Only an injecting session points names at its edge.
    expect(out.edgeHosts).toEqual(c.edgeHosts.length === 0 ? undefined : c.edgeHosts);
    expect(out.edgeKeys).toEqual(c.edgeKeys.length === 0 ? undefined : c.edgeKeys);
    const rest = {
      labels: 0,
      ports: 0,
      extraBinds: 0,
      groupAdd: 0,
      removedBy: 0,
      edgeHosts: 0,
      edgeKeys: 0,
    };
    expect({ ...out, ...rest }).toEqual({ ...shared, ...rest });
  });

  it('keeps the configured ports when the plan did not choose any', () => {
    const choices = {
      run: undefined,
      selfEdit: null,
      groupAdd: [],
      walled: false,
      edgeHosts: [],
      edgeKeys: [],
    };
    const refused: PortChoice = {
      kind: 'collision',
      port: '127.0.0.1:3000',
      holder: 'x',
      block: null,
    } as PortChoice;
    expect(sessionRunParams(shared, { ...choices, ports: refused }).ports).toBe(shared.ports);
  });
});

describe('sealRunParams', () => {
  it('labels the params with the record’s hash; without pins, proves nothing', () => {
    const sealed = sealRunParams(shared, 'h1', null);
    expect(sealed.proof).toBeNull();
    expect(sealed.params.labels).toEqual({ ...shared.labels, launch: 'h1' });
    expect(sealed.params.bindProof).toBeUndefined();
  });

  it('with pins, the proof covers the workspace and rides on the params', () => {
    const pins: BindPins = new Map([['/tmp', pinSource('/tmp')]]);
    const sealed = sealRunParams({ ...shared, extraBinds: [] }, 'h1', pins);
    expect(sealed.proof?.binds.map((b) => b.target)).toContain('/workspace');
    expect(sealed.proof?.proven.map((b) => b.target)).toEqual(['/workspace']);
    expect(sealed.params.bindProof).toMatch(/^\d+:\d+:\/workspace$/);
    expect(sealed.params.labels.launch).toBe('h1');
  });
});

describe('the plans beside the start', () => {
  const walled = [
    fakeSkill('byre/firewall', 'bundled', {
      runtime: {
        ...fakeSkill('x', 'bundled').runtime,
        networkPosture: 'deny-by-default',
        netnsInit: '/opt/wall',
      },
    }),
  ];
  const target = { box: 'byre-box', boxId: 'c0ffee', project: 'p-1a2b3c', keepId: true };
  it.each([
    ['no posture skill', [], false],
    ['a posture skill', walled, true],
  ] as const)('netnsPlan: %s', (_n, skills, planned) => {
    const plan = netnsPlan(shared, postureFacts(fakeConfig(), [...skills]), target);
    expect(plan !== null).toBe(planned);
    if (plan !== null) {
      expect(plan).toMatchObject({
        boxId: 'c0ffee',
        box: 'byre-box',
        hook: '/opt/wall',
        image: shared.image,
        joinUserns: true,
      });
      expect(plan.env['BYRE_EGRESS']).toBeDefined();
      expect(plan.env['BYRE_EDGE_HOSTS']).toBeUndefined();
    }
  });

  it("netnsPlan: an injecting box's wall is told the edge's hosts and user", () => {
    const facts = postureFacts(fakeConfig(), [...walled]);
    const plan = netnsPlan(shared, facts, {
      ...target,
      keepId: false,
      edgeHosts: ['api.example.com:443'],
    });
    expect(plan?.env['BYRE_EDGE_HOSTS']).toBe('api.example.com:443');
    expect(plan?.env['BYRE_EDGE_UID']).toBe('65534');
  });

  it.each([
    ['no values', [], null],
    ['values', [{ key: 'K', value: 'v' }], 'c0ffee'],
  ] as const)('credentialDelivery: %s', (_n, values, boxId) => {
    const plan = credentialDelivery(shared, 'c0ffee', values.map((v) => ({ ...v })) as never);
    expect(plan?.boxId ?? null).toBe(boxId);
    if (plan !== null) expect(plan).toMatchObject({ uid: 1000, gid: 1000 });
  });
});

describe('sessionOutcome', () => {
  const proof = {
    binds: [{ source: '/p', target: '/workspace', label: 'the project directory /p' }],
    proven: [],
  };
  const failed = { error: new Error('boom') };
  it.each([
    ['a clean exit', 0, null, null, null, null],
    ['the agent’s own status', 3, null, null, null, 'passthrough'],
    ['the proof failed', BIND_PROOF_EXIT, proof, failed, failed, 'bind'],
    [
      '222 with no proof is the box’s own failure',
      BIND_PROOF_EXIT,
      null,
      null,
      null,
      'develop.box-exit',
    ],
    ['credentials before the wall', 0, proof, failed, failed, 'develop.credentials-failed'],
    ['the wall', 0, null, null, failed, 'develop.firewall-failed'],
    ['a killed box', 137, null, null, null, 'develop.box-exit'],
  ] as const)('%s', (_n, code, p, cred, wall, expected) => {
    const out = sessionOutcome(code, p, cred, wall);
    if (expected === null) return expect(out).toBeNull();
    if (expected === 'passthrough') return expect(out).toEqual(new PassthroughExit(code));
    if (expected === 'bind') return expect(out).toBeInstanceOf(RefusedError);
    expect(out).toBeInstanceOf(ByreError);
    expect((out as ByreError).rule).toBe(expected);
  });
});

describe('names and targets', () => {
  const tmp = useTempDir('steps');

  it.each([
    [false, { uid: 1000, gid: 1001 }, 'u1000-g1001'],
    [true, { uid: 2000, gid: 2001 }, null],
  ])('projectImage keepId=%s', (keepId, host, suffix) => {
    const image = projectImage('app-1a2b3c', keepId, host);
    expect(image.tag).toContain('app-1a2b3c');
    if (suffix !== null) expect(image).toEqual({ tag: expect.stringContaining(suffix), ...host });
    else expect(image.uid).not.toBe(2000);
  });

  it('plannedVolumes: the config’s, then each skill’s, by engine name', () => {
    const decl = (name: string) =>
      ({ name, target: `/v/${name}`, scope: 'project', role: 'state', sharing: 'shared' }) as never;
    const volumes = plannedVolumes('app-1a2b3c', 1000, {
      config: fakeConfig({ volumes: [sourced(decl('a'))] }),
      skills: [fakeSkill('s', 'bundled', { volumes: [decl('b')] })],
    });
    expect(volumes.map((v) => v.decl.target)).toEqual(['/v/a', '/v/b']);
    expect(new Set(volumes.map((v) => v.name)).size).toBe(2);
  });

  it('createBox makes a mount point in the project for each volume and enabled mount', async () => {
    const m = (target: string, disabled?: boolean) =>
      ({ host: '/h', target, mode: 'rw', ...(disabled ? { disabled } : {}) }) as never;
    const engine = new FakeEngine();
    await createBox(
      { io: fakeIo(), ctx: { worktreeDir: tmp.path } as never, engine, selfEdit: false },
      {
        ...shared,
        configMounts: [m('/workspace/a'), m('/workspace/off', true)],
        skillMounts: [m('/workspace/b')],
      },
      [{ name: 'v', decl: { target: '/workspace/v' } } as never],
    );
    expect(readdirSync(tmp.path).sort()).toEqual(['a', 'b', 'v']);
    expect(engine.callsTo('create')).toHaveLength(1);
  });

  it('portBanner: the mapping and a linked worktree’s block, nothing without ports', () => {
    expect(portBanner({ kind: 'ok', ports: [], block: null })).toEqual([]);
    expect(portBanner(okPorts)[0]).toMatch(/^byre: ports: .*3100.*port block 1\)$/);
  });
});

describe('imageDigest on the fake', () => {
  it('a skipped build names the existing image without asking', async () => {
    const engine = new FakeEngine();
    expect(
      await imageDigest(engine, 't', { built: false, digest: 'd', imageId: 'sha256:1' }),
    ).toEqual({ digest: 'sha256:1' });
    expect(engine.calls).toEqual([]);
  });

  it('a build asks the image’s id; one that cannot be asked is recorded as such', async () => {
    const engine = new FakeEngine();
    engine.images.set('t', { id: 'sha256:2', labels: {} });
    expect(await imageDigest(engine, 't', { built: true, digest: null })).toEqual({
      digest: 'sha256:2',
    });
    const missing = await imageDigest(engine, 'gone', { built: true, digest: null });
    expect(missing.digest).toBe('');
    expect(missing.digestError).toBeTruthy();
  });
});
