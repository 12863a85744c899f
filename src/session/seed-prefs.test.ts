import { describe, expect, it } from 'vitest';

import { fakeConfig, fakeSkill, sourced } from '../../test/support/config.js';
import type { VolumeSpec } from '../config/types.js';
import { rootShellHelperArgv } from '../engine/argv.js';
import type { ResolvedSkill } from '../skills/types.js';
import { mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { FakeNode } from '../../test/support/fake-box.js';
import { FakeEngine, runExited } from '../../test/support/fake-engine.js';
import { loadHostTree } from '../../test/support/host-tree.js';
import { useTempDir } from '../../test/support/temp.js';
import { provenScript } from '../gen/bind-proof.js';
import type { BindPins } from '../containment/bind-pins.js';
import type { EntryKind } from '../host/path-view.js';
import { planPrefsSeed, seedAgentPrefs, type PrefsSeed } from './seed-prefs.js';
import type { PlannedVolume, SeedContext } from './volume-ops.js';

/** The bind check as byre's helpers carry it: what a proven script puts in front. */
const BIND_PROOF_SH = provenScript('', []);

const STATE: VolumeSpec = {
  name: '.claude',
  role: 'state',
  target: '/home/dev/.claude',
  scope: 'project',
  sharing: 'shared',
};

const claude: ResolvedSkill = fakeSkill('byre/claude', 'bundled', {
  agent: {
    command: 'claude',
    state: '.claude',
    context: true,
    mcp: true,
    claudeSkills: true,
    prefs: { from: '~/.claude', files: ['keybindings.json', 'themes', 'link.json', 'gone.json'] },
  },
  volumes: [STATE],
});

const volumes: PlannedVolume[] = [{ name: 'byre-app-1a2b3c-.claude', decl: STATE }];

const HOST: Record<string, EntryKind> = {
  '/home/ada/.claude/keybindings.json': 'file',
  '/home/ada/.claude/themes': 'dir',
  '/home/ada/.claude/link.json': 'link',
};
const kind = (p: string): EntryKind => HOST[p] ?? 'missing';

/** The fake engine's host as HOST describes it, with a theme in the directory and a login token beside the prefs. */
function withHost(engine: FakeEngine): FakeEngine {
  engine.host.mkdirp('/home/ada/.claude/themes');
  engine.host.writeFile('/home/ada/.claude/keybindings.json', '{"vim":true}');
  engine.host.writeFile('/home/ada/.claude/themes/dark.json', '{"bg":"#000"}');
  engine.host.nodes.set('/home/ada/.claude/link.json', { kind: 'link', target: '/etc/passwd' });
  engine.host.writeFile('/home/ada/.claude/.credentials.json', 'token');
  return engine;
}

describe('planPrefsSeed', () => {
  const on = fakeConfig({ agent: sourced('claude'), seedPrefs: sourced(true) });

  it('lists the entries that are a plain file or directory; a link is left out, a missing one silently', () => {
    expect(planPrefsSeed(on, [claude], volumes, '/home/ada', kind)).toEqual({
      skill: 'byre/claude',
      volume: 'byre-app-1a2b3c-.claude',
      from: '~/.claude',
      entries: [
        { host: '/home/ada/.claude/keybindings.json', rel: 'keybindings.json' },
        { host: '/home/ada/.claude/themes', rel: 'themes' },
      ],
      skipped: [{ rel: 'link.json', why: 'a symbolic link' }],
    });
  });

  it.each([
    ['seed_prefs unset', fakeConfig({ agent: sourced('claude') })],
    ['seed_prefs = false', fakeConfig({ agent: sourced('claude'), seedPrefs: sourced(false) })],
    ['no agent', fakeConfig({ seedPrefs: sourced(true) })],
  ])('nothing when %s', (_what, config) => {
    expect(planPrefsSeed(config, [claude], volumes, '/home/ada', kind)).toBeNull();
  });

  it('nothing for an agent without [agent.prefs]', () => {
    const bare = fakeSkill('byre/claude', 'bundled', {
      agent: { command: 'c', state: '.claude', context: true, mcp: true, claudeSkills: true },
      volumes: [STATE],
    });
    expect(planPrefsSeed(on, [bare], volumes, '/home/ada', kind)).toBeNull();
  });
});

/** claude's prefs seed for /home/ada, as develop plans it. */
function claudeSeed(): NonNullable<ReturnType<typeof planPrefsSeed>> {
  const seed = planPrefsSeed(
    fakeConfig({ agent: sourced('claude'), seedPrefs: sourced(true) }),
    [claude],
    volumes,
    '/home/ada',
    kind,
  );
  if (seed === null) throw new Error('no seed');
  return seed;
}

describe('seedAgentPrefs', () => {
  it('binds each entry read-only on its own and copies it to its place, owned by the box user', async () => {
    const seed = claudeSeed();
    const engine = withHost(new FakeEngine());
    await seedAgentPrefs(engine, seed, new Set([seed.volume]), {
      image: 'img',
      uid: 1000,
      gid: 1000,
      keepId: true,
      home: '/home/ada',
    });
    const argv = engine.callsTo('run')[0]?.[0] as string[];
    const head = rootShellHelperArgv(true);
    expect(head).toContain('--userns=keep-id:uid=1000,gid=1000');
    expect(argv.slice(0, head.length)).toEqual(head);
    expect(argv).toContain('type=volume,source=byre-app-1a2b3c-.claude,target=/dest');
    expect(argv).toContain(
      'type=bind,source=/home/ada/.claude/keybindings.json,target=/src/0,readonly',
    );
    expect(argv).toContain('type=bind,source=/home/ada/.claude/themes,target=/src/1,readonly');
    expect(argv.join(' ')).not.toContain('/home/ada/.claude,');
    expect(argv.slice(-3)).toEqual(['byre-seed-prefs', 'keybindings.json', 'themes']);
    expect(argv[argv.length - 4]).toContain('chown -R 1000:1000 /dest');
  });
  it('the fresh volume holds each entry at its place, and nothing else of the directory', async () => {
    const seed = claudeSeed();
    const engine = withHost(new FakeEngine());
    const ctx = { image: 'img', uid: 1000, gid: 1000, keepId: false, home: '/home/ada' };
    await seedAgentPrefs(engine, seed, new Set([seed.volume]), ctx);
    const held = engine.volumeData.get(seed.volume) ?? new Map<string, FakeNode>();
    expect([...held.keys()].sort()).toEqual(['keybindings.json', 'themes', 'themes/dark.json']);
    expect(held.get('keybindings.json')).toEqual({
      kind: 'file',
      bytes: Buffer.from('{"vim":true}'),
    });
    // A copy: the host's prefs are left as they were.
    expect(engine.host.lstat('/home/ada/.claude/keybindings.json')).toMatchObject({ kind: 'file' });
  });
});

describe('seedAgentPrefs with the bind proof (adr/0045)', () => {
  const tmp = useTempDir('seed-prefs');
  const ctx = (pins: BindPins | null): SeedContext => ({
    image: 'img',
    uid: 1000,
    gid: 1000,
    keepId: false,
    home: tmp.path,
    pins,
  });

  function planned(): PrefsSeed {
    const from = path.join(tmp.path, '.claude');
    mkdirSync(path.join(from, 'themes'), { recursive: true });
    writeFileSync(path.join(from, 'keybindings.json'), '{}');
    writeFileSync(path.join(from, 'settings.json'), '{}');
    return {
      skill: 'byre/claude',
      volume: 'byre-app-1a2b3c-.claude',
      from: '~/.claude',
      entries: ['keybindings.json', 'settings.json', 'themes'].map((rel) => ({
        host: path.join(from, rel),
        rel,
      })),
      skipped: [],
    };
  }

  it('pins each entry not following a last link, leaves out one that became a link, and proves the rest', async () => {
    const seed = planned();
    const settings = seed.entries[1]?.host ?? '';
    // The entry was a file when planned; a box that can write ~/.claude swaps it before the copy.
    rmSync(settings);
    symlinkSync('/etc/shadow', settings);
    const engine = new FakeEngine();
    loadHostTree(engine.host, tmp.path);
    const done = await seedAgentPrefs(engine, seed, new Set([seed.volume]), ctx(new Map()));
    expect(done?.entries.map((e) => e.rel)).toEqual(['keybindings.json', 'themes']);
    expect(done?.skipped).toEqual([{ rel: 'settings.json', why: 'a symbolic link' }]);
    const argv = engine.callsTo('run')[0]?.[0] as string[];
    const kb = statSync(seed.entries[0]?.host ?? '', { bigint: true });
    const th = statSync(seed.entries[2]?.host ?? '', { bigint: true });
    expect(argv).toContain(`BYRE_BIND_PROOF=${kb.dev}:${kb.ino}:/src/0,${th.dev}:${th.ino}:/src/1`);
    expect(argv.join(' ')).not.toContain('settings.json,');
    expect(argv[argv.indexOf('byre-seed-prefs') - 1]?.startsWith(BIND_PROOF_SH)).toBe(true);
  });

  it('a copy whose bind was swapped after the pin is a refusal, and nothing was copied', async () => {
    const engine = new FakeEngine();
    engine.failNext('run', runExited(222));
    const seed = planned();
    const failure = await seedAgentPrefs(
      engine,
      seed,
      new Set([seed.volume]),
      ctx(new Map()),
    ).catch((e: unknown) => e);
    expect(failure).toMatchObject({ rule: 'bind.changed' });
  });

  it('without a proof (an engine elsewhere), copies what was planned, unchecked', async () => {
    const engine = new FakeEngine();
    const seed = planned();
    loadHostTree(engine.host, tmp.path);
    await seedAgentPrefs(engine, seed, new Set([seed.volume]), ctx(null));
    const argv = engine.callsTo('run')[0]?.[0] as string[];
    expect(argv.some((a) => a.startsWith('BYRE_BIND_PROOF='))).toBe(false);
    expect(argv[argv.indexOf('byre-seed-prefs') - 1]?.startsWith('set -e;')).toBe(true);
  });

  it('copies the entries that prove to be the objects pinned; one the engine sees as another refuses, and nothing lands', async () => {
    const seed = planned();
    writeFileSync(path.join(tmp.path, '.claude', 'themes', 'dark.json'), '{}');
    const engine = new FakeEngine();
    loadHostTree(engine.host, tmp.path);
    await seedAgentPrefs(engine, seed, new Set([seed.volume]), ctx(new Map()));
    const held = engine.volumeData.get(seed.volume);
    expect([...(held?.keys() ?? [])].sort()).toEqual([
      'keybindings.json',
      'settings.json',
      'themes',
      'themes/dark.json',
    ]);

    // The same paths, but the engine resolves keybindings.json to another object than byre pinned.
    const swapped = new FakeEngine();
    loadHostTree(swapped.host, tmp.path);
    const kb = seed.entries[0]?.host ?? '';
    swapped.host.nodes.set(kb, { kind: 'file', bytes: Buffer.from('{}'), dev: 1n, ino: 1n });
    const failure = await seedAgentPrefs(
      swapped,
      seed,
      new Set([seed.volume]),
      ctx(new Map()),
    ).catch((e: unknown) => e);
    expect(failure).toMatchObject({ rule: 'bind.changed', exitCode: 3 });
    expect(swapped.volumeData.get(seed.volume)?.size ?? 0).toBe(0);
  });
});
