import { describe, expect, it } from 'vitest';

import { fakeConfig, fakeSkill, sourced } from '../../test/support/config.js';
import { applyEdits } from '../tomldoc/index.js';
import { mergeLayers } from './merge.js';
import { parseLayer } from './parse.js';
import type { LayerRef } from './types.js';
import { declarersBelow, planAdd, planRemove } from './wiring-edit.js';

const DEFAULT: LayerRef = { kind: 'default', name: 'default', path: '/h/default.config' };
type Declarers = ReturnType<typeof declarersBelow>;

const NOBODY: Declarers = { below: null, skill: null };
const LOWER: Declarers = { below: DEFAULT, skill: null };
const SKILL: Declarers = { below: null, skill: 'acme/gh' };

const HAND = [
  '# my box',
  'agent = "claude"  # the agent',
  '',
  '# servers I use',
  '[[mcp]]',
  'name = "gh"',
  'command = ["gh-mcp", "stdio"]',
  '',
  '[[mcp]]',
  'name = "!telemetry"',
  '',
].join('\n');

const loads = (text: string) =>
  parseLayer(text, { file: 'byre.config', kind: 'project', name: 'project' }).issues;

describe('planRemove', () => {
  it.each([
    ['own block, nothing below', 'gh', NOBODY, 'deleted', false],
    ['own block, a lower layer declares it', 'gh', LOWER, 'deleted-and-closed', true],
    ['own block, a skill declares it', 'gh', SKILL, 'deleted-and-closed', true],
    ['not here, a lower layer declares it', 'docs', LOWER, 'closed', true],
    ['not here, a skill declares it', 'docs', SKILL, 'closed', true],
    ['already closed here', 'telemetry', SKILL, 'already-closed', true],
    ['closed here, nothing below', 'telemetry', NOBODY, 'already-closed', true],
    ['declared nowhere', 'docs', NOBODY, 'not-declared', false],
  ] as const)('%s: %s', (_what, name, declarers, outcome, markerAfter) => {
    const plan = planRemove('mcp', name, HAND, declarers);
    expect(plan.outcome).toBe(outcome);
    const after = applyEdits(HAND, plan.edits);
    expect(loads(after)).toEqual([]);
    const data = parseLayer(after, { file: 'x', kind: 'project', name: 'project' }).value;
    expect(data?.mcp?.some((m) => m.name === name)).toBe(false);
    expect(data?.mcp?.some((m) => m.name === `!${name}`) ?? false).toBe(markerAfter);
  });

  it('a nothing-to-do outcome writes nothing', () => {
    expect(planRemove('mcp', 'telemetry', HAND, SKILL).edits).toEqual([]);
    expect(planRemove('mcp', 'docs', HAND, NOBODY).edits).toEqual([]);
  });

  it('works the same for [[context]] and [[claude_skills]]', () => {
    const text = '[[context]]\nname = "rules"\ntext = "x"\n';
    expect(applyEdits(text, planRemove('context', 'rules', text, NOBODY).edits)).toBe('');
    const closed = applyEdits('', planRemove('claude_skills', 'tdd', '', LOWER).edits);
    expect(closed).toBe('[[claude_skills]]\nname = "!tdd"\n');
  });
});

describe('planAdd', () => {
  it('adds after the last entry, and remove gives back the bytes', () => {
    const plan = planAdd('mcp', { name: 'docs', url: 'https://d.example/mcp' }, HAND);
    expect(plan).toMatchObject({ reopened: false, replaced: false });
    const added = applyEdits(HAND, plan.edits);
    expect(loads(added)).toEqual([]);
    expect(applyEdits(added, planRemove('mcp', 'docs', added, NOBODY).edits)).toBe(HAND);
  });

  it('re-opens a closure this file carries', () => {
    const plan = planAdd('mcp', { name: 'telemetry', command: ['t'] }, HAND);
    expect(plan.reopened).toBe(true);
    const after = applyEdits(HAND, plan.edits);
    expect(after).not.toContain('!telemetry');
    expect(after).toContain('name = "telemetry"');
  });

  it('replaces a declaration in place, keeping the comments around it', () => {
    const plan = planAdd('mcp', { name: 'gh', command: ['gh-mcp', 'http'] }, HAND);
    expect(plan.replaced).toBe(true);
    const after = applyEdits(HAND, plan.edits);
    expect(after).toBe(HAND.replace('"stdio"', '"http"'));
  });
});

describe('declarersBelow', () => {
  const gh = { name: 'gh', env: [], egress: [], headers: {}, command: ['gh'] };
  const skill = fakeSkill('acme/gh', 'installed', { mcp: [gh] });

  it('a lower layer’s declaration names that layer', () => {
    const below = fakeConfig({ mcp: [sourced(gh, DEFAULT)] });
    expect(declarersBelow('mcp', 'gh', below, [])).toEqual({ below: DEFAULT, skill: null });
  });

  it('a skill counts unless a lower layer already closes the name', () => {
    expect(declarersBelow('mcp', 'gh', fakeConfig(), [skill])).toEqual({
      below: null,
      skill: 'acme/gh',
    });
    const closed = mergeLayers([{ ref: DEFAULT, raw: { mcp: [{ name: '!gh' }] } }]);
    expect(declarersBelow('mcp', 'gh', closed, [skill])).toEqual(NOBODY);
  });

  it('no skill declares a [[context]] block', () => {
    expect(declarersBelow('context', 'gh', fakeConfig(), [skill])).toEqual(NOBODY);
  });
});
