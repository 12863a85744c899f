import { describe, expect, it } from 'vitest';

import { fakeConfig, fakeSkill, sourced } from '../../test/support/config.js';
import type { VolumeSpec } from '../config/types.js';
import { rootShellHelperArgv } from '../engine/argv.js';
import type { ResolvedSkill } from '../skills/types.js';
import { planPrefsSeed, seedPrefsArgv, type EntryKind } from './seed-prefs.js';
import type { PlannedVolume } from './volumes.js';

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

describe('seedPrefsArgv', () => {
  it('binds each entry read-only on its own and copies it to its place, owned by the box user', () => {
    const seed = planPrefsSeed(
      fakeConfig({ agent: sourced('claude'), seedPrefs: sourced(true) }),
      [claude],
      volumes,
      '/home/ada',
      kind,
    );
    if (seed === null) throw new Error('no seed');
    const argv = seedPrefsArgv(seed, {
      image: 'img',
      uid: 1000,
      gid: 1000,
      keepId: true,
      home: '/home/ada',
    });
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
});
