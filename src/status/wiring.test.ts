import { describe, expect, it } from 'vitest';

import { fakeConfig, fakeSkill, sourced } from '../../test/support/config.js';
import type { SkillAgent } from '../skills/types.js';
import { agentDeliveries, wiringFacts } from './wiring.js';

const agent = (over: Partial<SkillAgent> = {}): SkillAgent => ({
  command: 'x',
  state: null,
  context: false,
  mcp: false,
  claudeSkills: false,
  ...over,
});

const gh = { name: 'gh', env: ['GH_TOKEN'], egress: [], headers: {}, command: ['gh', 'stdio'] };

describe('wiringFacts', () => {
  it('a config closure reaches a skill-declared server', () => {
    const skill = fakeSkill('acme/gh', 'installed', { mcp: [gh] });
    const open = wiringFacts(fakeConfig(), [skill], []);
    expect(open.mcp_servers).toEqual([
      {
        name: 'gh',
        transport: 'command',
        target: 'gh stdio',
        env: ['GH_TOKEN'],
        source: 'skill acme/gh',
      },
    ]);
    const closed = wiringFacts(fakeConfig({ mcpClosed: [sourced('gh')] }), [skill], []);
    expect(closed.mcp_servers).toEqual([]);
    expect(closed.mcp_closed).toEqual([{ name: 'gh', source: 'project' }]);
    expect(closed.mcp_delivery).toBeNull();
  });

  it.each([
    [agent({ mcp: true }), 'delivered to byre/claude'],
    [
      agent(),
      'declared; NOT delivered: byre/claude has no MCP adapter (baked at /etc/byre/mcp.json)',
    ],
  ])('the selected agent decides delivery: %j', (a, sentence) => {
    const config = fakeConfig({ agent: sourced('claude'), mcp: [sourced(gh)] });
    const skills = [fakeSkill('byre/claude', 'bundled', { agent: a })];
    expect(wiringFacts(config, skills, []).mcp_delivery).toBe(sentence);
  });

  it('no agent: declared, not delivered', () => {
    expect(wiringFacts(fakeConfig({ mcp: [sourced(gh)] }), [], []).mcp_delivery).toBe(
      'declared; NOT delivered: no agent is selected (baked at /etc/byre/mcp.json for anything that wants it)',
    );
  });
});

describe('agentDeliveries', () => {
  it('names every enabled agent skill, the selected one marked, and whether it vouches', () => {
    const skills = [
      fakeSkill('byre/claude', 'bundled', { agent: agent({ mcp: true, claudeSkills: true }) }),
      fakeSkill('byre/gemini', 'bundled', { agent: agent() }),
      fakeSkill('byre/firewall', 'bundled'),
    ];
    const config = fakeConfig({ agent: sourced('gemini') });
    expect(agentDeliveries(config, skills, 'mcp')).toEqual([
      { skill: 'byre/claude', selected: false, delivered: true },
      { skill: 'byre/gemini', selected: true, delivered: false },
    ]);
    expect(agentDeliveries(config, skills, 'claudeSkills').map((d) => d.delivered)).toEqual([
      true,
      false,
    ]);
  });
});
