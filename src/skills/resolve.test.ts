import { describe, expect, it } from 'vitest';
import { fakeConfig, fakeSkill, PROJECT_LAYER, sourced } from '../../test/support/config.js';
import type { ValueLocation } from '../config/check-effective.js';
import type { LayerRef } from '../config/types.js';
import { ByreError } from '../errors.js';
import { resolveEnabledSkills, type SkillCatalog } from './resolve.js';

const claude = fakeSkill('byre/claude', 'bundled', {
  agent: {
    command: 'claude',
    state: '.claude',
    context: true,
    mcp: true,
    claudeSkills: true,
  },
});
const firewall = fakeSkill('byre/firewall', 'bundled');
const CATALOG: SkillCatalog = {
  lookup: (r) =>
    ({ 'byre/claude': claude, claude, 'byre/firewall': firewall, firewall })[r] ?? null,
  ids: () => ['byre/claude', 'byre/firewall'],
};
const DIGEST = `sha256:${'0'.repeat(64)}`;
const LAYER: LayerRef = { kind: 'layer', name: 'work', path: '/h/.byre/layers/work/layer.config' };

/** Records what was asked, answering with a line per key path. */
function recordingLocate(): { locate: ValueLocation; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    locate: (from, path) => {
      const raw = { skills: ['x', 'me/tool', 'me/tool'], agent: 'firewall' };
      const at = path(raw);
      asked.push(`${from.name}:${at.join('.')}`);
      return { file: from.path ?? '', line: 7, column: 3, key: at.join('.') };
    },
  };
}

function failure(run: () => unknown): ByreError {
  try {
    run();
  } catch (error) {
    if (error instanceof ByreError) return error;
    throw error;
  }
  throw new Error('expected a ByreError');
}

describe('resolveEnabledSkills', () => {
  it('resolves skills then appends the agent, once each', () => {
    const config = fakeConfig({
      skills: [sourced('firewall'), sourced('byre/claude')],
      agent: sourced('claude'),
    });
    expect(resolveEnabledSkills(config, CATALOG).map((s) => s.id)).toEqual([
      'byre/firewall',
      'byre/claude',
    ]);
  });

  it('places a missing skill at its (last) entry in the layer that set it', () => {
    const { locate, asked } = recordingLocate();
    const config = fakeConfig({ skills: [sourced('me/tool', LAYER)] });
    const error = failure(() => resolveEnabledSkills(config, CATALOG, locate));
    expect(error.rule).toBe('skills.not-found');
    expect(asked).toEqual(['work:skills.2']);
    expect(error.location).toEqual({ file: LAYER.path, line: 7, column: 3, key: 'skills.2' });
    expect(error.remedy).toMatch(/known skills: byre\/claude, byre\/firewall/);
  });

  it.each([
    ['firewal', 'firewall'],
    ['byre/firewal', 'byre/firewall'],
    ['Claud', 'claude'],
    ['clade', 'claude'],
    ['fierwall', 'firewall'],
    ['byre/cluade', 'byre/claude'],
    ['me/tool', null],
    ['docker', null],
  ])('an unknown skill %j gets a did-you-mean (%s) as unknown keys do', (reference, typo) => {
    const error = failure(() =>
      resolveEnabledSkills(fakeConfig({ skills: [sourced(reference)] }), CATALOG),
    );
    expect(error.rule).toBe('skills.not-found');
    if (typo === null) {
      expect(error.message).toBe(`skill "${reference}" is not available`);
      expect(error.remedy).toMatch(/^known skills: /);
    } else {
      expect(error.message).toBe(`skill "${reference}" is not available — did you mean ${typo}?`);
      expect(error.remedy).toMatch(new RegExp(`^write "${typo}", or known skills: `));
    }
  });

  it('an unknown agent gets one too', () => {
    const error = failure(() =>
      resolveEnabledSkills(fakeConfig({ agent: sourced('claud') }), CATALOG),
    );
    expect(error.message).toBe('skill "claud" is not available — did you mean claude?');
  });

  it('prints the [sources] hint as an install command, naming the layer that hinted it', () => {
    const config = fakeConfig({
      skills: [sourced('me/tool')],
      sources: {
        'me/tool': sourced({ uri: 'https://x.example/skill.toml', digest: DIGEST }, LAYER),
      },
    });
    const error = failure(() => resolveEnabledSkills(config, CATALOG));
    expect(error).toMatchObject({
      rule: 'skills.not-found',
      message: 'skill "me/tool" is not installed',
    });
    expect(error.remedy).toBe(
      `install it: byre skill install https://x.example/skill.toml --digest ${DIGEST}  (hint from layer work)`,
    );
  });

  // The reference's tombstones, byte for byte: the pinned manifest and digest to install.
  const PINNED = {
    codereview:
      'byre skill install https://raw.githubusercontent.com/pjlsergeant/pjlsergeant-byre-skills/v1.0.2/skills/codereview/skill.toml --digest sha256:3d0bf433dfab52ad947e125987d50b44aa47000414bbe14023bbcf80277ade86',
    devlog:
      'byre skill install https://raw.githubusercontent.com/pjlsergeant/pjlsergeant-byre-skills/v1.0.0/skills/devlog/skill.toml --digest sha256:9ecb65b18386ceea0dc54b7bb040b42e29a9872ab8fed4f9b1f86d5562926c12',
  };

  it.each([
    [
      'codereview',
      'was moved out of byre, and lives on as pjlsergeant/codereview',
      PINNED.codereview,
      'pjlsergeant/codereview',
    ],
    [
      'byre/codereview',
      'was moved out of byre, and lives on as pjlsergeant/codereview',
      PINNED.codereview,
      'pjlsergeant/codereview',
    ],
    [
      'devlog',
      'was moved out of byre, and lives on as pjlsergeant/devlog',
      PINNED.devlog,
      'pjlsergeant/devlog',
    ],
    [
      'devloop',
      'was renamed to devlog, then moved out of byre, and lives on as pjlsergeant/devlog',
      PINNED.devlog,
      'pjlsergeant/devlog',
    ],
    [
      'byre/devloop',
      'was renamed to devlog, then moved out of byre, and lives on as pjlsergeant/devlog',
      PINNED.devlog,
      'pjlsergeant/devlog',
    ],
  ])(
    'a retired bundled name (%s) gets its tombstone: the story and the pinned install',
    (name, story, install, successor) => {
      const { locate, asked } = recordingLocate();
      const error = failure(() =>
        resolveEnabledSkills(fakeConfig({ skills: [sourced(name, LAYER)] }), CATALOG, locate),
      );
      expect(error).toMatchObject({
        rule: 'skills.retired',
        message: `skill "${name}" is no longer bundled with byre: it ${story}`,
        remedy: `install it: ${install}, then write "${successor}" in place of "${name}"`,
        location: { line: 7, column: 3 },
      });
      expect(asked).toEqual(['work:skills']);
    },
  );

  it('a retired agent name gets the tombstone too, located at agent', () => {
    const { locate, asked } = recordingLocate();
    const error = failure(() =>
      resolveEnabledSkills(fakeConfig({ agent: sourced('devloop', LAYER) }), CATALOG, locate),
    );
    expect(error.rule).toBe('skills.retired');
    expect(error.remedy).toContain(PINNED.devlog);
    expect(asked).toEqual(['work:agent']);
  });

  it('a [sources] hint naming another copy of the successor is shown beside the pin', () => {
    const config = fakeConfig({
      skills: [sourced('devloop')],
      sources: { 'pjlsergeant/devlog': sourced({ uri: 'https://mirror.example/devlog.toml' }) },
    });
    const error = failure(() => resolveEnabledSkills(config, CATALOG));
    expect(error.remedy).toBe(
      `install it: ${PINNED.devlog}, then write "pjlsergeant/devlog" in place of "devloop"; [sources] names another copy: byre skill install https://mirror.example/devlog.toml  (hint from project)`,
    );
  });

  it('a [sources] hint that is the pin itself adds nothing', () => {
    const config = fakeConfig({
      skills: [sourced('codereview')],
      sources: {
        'pjlsergeant/codereview': sourced({
          uri: 'https://raw.githubusercontent.com/pjlsergeant/pjlsergeant-byre-skills/v1.0.2/skills/codereview/skill.toml',
          digest: 'sha256:3d0bf433dfab52ad947e125987d50b44aa47000414bbe14023bbcf80277ade86',
        }),
      },
    });
    expect(failure(() => resolveEnabledSkills(config, CATALOG)).remedy).toBe(
      `install it: ${PINNED.codereview}, then write "pjlsergeant/codereview" in place of "codereview"`,
    );
  });

  it('refuses an agent that names a skill with no [agent], located at agent', () => {
    const { locate, asked } = recordingLocate();
    const config = fakeConfig({ agent: sourced('firewall', LAYER) });
    const error = failure(() => resolveEnabledSkills(config, CATALOG, locate));
    expect(error.rule).toBe('agent.not-an-agent');
    expect(asked).toEqual(['work:agent']);
    expect(error.location).toMatchObject({ line: 7, column: 3, key: 'agent' });
  });

  it('a missing agent is a missing package, located at agent', () => {
    const { locate, asked } = recordingLocate();
    const error = failure(() =>
      resolveEnabledSkills(fakeConfig({ agent: sourced('nope') }), CATALOG, locate),
    );
    expect(error.rule).toBe('skills.not-found');
    expect(asked).toEqual(['project:agent']);
  });

  it('without the file texts it still names the file and key', () => {
    const error = failure(() =>
      resolveEnabledSkills(fakeConfig({ agent: sourced('nope') }), CATALOG),
    );
    expect(error.location).toEqual({
      file: PROJECT_LAYER.path,
      key: 'agent',
    });
  });
});
