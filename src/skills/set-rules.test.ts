import { describe, expect, it } from 'vitest';
import { fakeConfig, fakeSkill, sourced, text } from '../../test/support/config.js';
import { ByreError } from '../errors.js';
import { assertSkillSet } from './set-rules.js';
import type { ResolvedSkill } from './types.js';

const runtime = (over: Partial<ResolvedSkill['runtime']>): ResolvedSkill['runtime'] => ({
  ...fakeSkill('x', 'local').runtime,
  ...over,
});

const file = (dest: string, content: string) => ({
  staged: `skills/x/${dest}`,
  dest,
  executable: false,
  content: text(content),
});

/** The first set-level problem of `skills` under `config`, as the launch refuses it; null when none. */
function firstProblem(
  skills: readonly ResolvedSkill[],
  config: Parameters<typeof assertSkillSet>[1],
): ByreError | null {
  try {
    assertSkillSet(skills, config);
    return null;
  } catch (error) {
    if (error instanceof ByreError) return error;
    throw error;
  }
}

describe('the skill set rules', () => {
  it('passes a compatible set', () => {
    const a = fakeSkill('a', 'bundled', { runtime: runtime({ env: { X: '1' } }) });
    const b = fakeSkill('b', 'local', { runtime: runtime({ env: { X: '1' } }) });
    expect(firstProblem([a, b], fakeConfig())).toBeNull();
  });

  it.each([
    [
      'two postures',
      [
        fakeSkill('byre/firewall', 'bundled', { runtime: runtime({ networkPosture: 'deny' }) }),
        fakeSkill('byre/firewall-open', 'bundled', {
          runtime: runtime({ networkPosture: 'open' }),
        }),
      ],
      'skills.posture-conflict',
      /byre\/firewall.*byre\/firewall-open/,
    ],
    [
      'two netns_init',
      [
        fakeSkill('a', 'local', { runtime: runtime({ netnsInit: '/a' }) }),
        fakeSkill('b', 'local', { runtime: runtime({ netnsInit: '/b' }) }),
      ],
      'skills.netns-init-conflict',
      /"a" and "b"/,
    ],
    [
      'env tug of war',
      [
        fakeSkill('a', 'local', { runtime: runtime({ env: { X: '1' } }) }),
        fakeSkill('b', 'local', { runtime: runtime({ env: { X: '2' } }) }),
      ],
      'skills.env-conflict',
      /X/,
    ],
    [
      'one destination, different bytes',
      [
        fakeSkill('a', 'local', {
          build: { apt: [], node: null, dockerfile: [], files: [file('/etc/x', '1')] },
        }),
        fakeSkill('b', 'local', {
          build: { apt: [], node: null, dockerfile: [], files: [file('/etc/x/', '2')] },
        }),
      ],
      'skills.destination-conflict',
      /\/etc\/x/,
    ],
    [
      'mcp name twice across skills',
      [
        fakeSkill('a', 'local', { mcp: [{ name: 'gh', env: [], egress: [], headers: {} }] }),
        fakeSkill('b', 'local', { mcp: [{ name: 'gh', env: [], egress: [], headers: {} }] }),
      ],
      'skills.mcp-duplicate',
      /gh/,
    ],
  ])('%s', (_name, skills, rule, message) => {
    const first = firstProblem(skills, fakeConfig());
    expect(first?.rule).toBe(rule);
    expect(first?.message).toMatch(message);
  });

  it('identical bytes on one destination are fine', () => {
    const a = fakeSkill('a', 'local', {
      build: { apt: [], node: null, dockerfile: [], files: [file('/etc/x', '1')] },
    });
    const b = fakeSkill('b', 'local', {
      build: { apt: [], node: null, dockerfile: [], files: [file('/etc/x', '1')] },
    });
    expect(firstProblem([a, b], fakeConfig())).toBeNull();
  });

  it('a config claude skill clashes with a skill one unless closed', () => {
    const skill = fakeSkill('a', 'local', {
      claudeSkills: [{ name: 'tdd', path: 'skills/a/tdd' }],
    });
    const config = fakeConfig({ claudeSkills: [sourced({ name: 'tdd', path: '~/tdd' })] });
    expect(firstProblem([skill], config)?.rule).toBe('skills.claude-skill-duplicate');
    const closed = fakeConfig({
      ...config,
      claudeSkills: [],
      claudeSkillsClosed: [sourced('tdd')],
    });
    expect(firstProblem([skill], closed)).toBeNull();
  });
});
