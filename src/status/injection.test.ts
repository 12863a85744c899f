// Status's words for injected credentials and the edge's refusal lines
// (adr/0070): the rows as users read them, and a hostile log read safely.

import { describe, expect, it } from 'vitest';

import type { Injection } from '../config/inject.js';
import {
  edgeRefusedSummary,
  edgeStateText,
  injectionDetailText,
  injectionRowText,
  parseEdgeEvents,
} from './injection.js';

const from = { kind: 'project', name: 'project', path: '/p' } as const;
const claude: Injection = {
  key: 'ANTHROPIC_API_KEY',
  from,
  rules: [
    {
      hosts: [{ name: 'api.anthropic.com', port: 443 }],
      presentation: { kind: 'header', name: 'x-api-key' },
    },
  ],
};
const github: Injection = {
  key: 'GITHUB_TOKEN',
  from,
  rules: [
    { hosts: [{ name: 'api.github.com', port: 443 }], presentation: { kind: 'bearer' } },
    {
      hosts: [
        { name: 'github.com', port: 443 },
        { name: 'git.example', port: 8443 },
      ],
      presentation: { kind: 'basic', user: 'x-access-token' },
    },
  ],
};

describe('the injection rows', () => {
  it('says where the value goes and what the box holds', () => {
    expect(injectionRowText(claude)).toBe(
      'ANTHROPIC_API_KEY -> injected at the edge for api.anthropic.com; the box holds a sentinel',
    );
    expect(injectionRowText(github)).toBe(
      'GITHUB_TOKEN -> injected at the edge for api.github.com, github.com, git.example:8443; the box holds a sentinel',
    );
  });

  it('details how each host gets it', () => {
    expect(injectionDetailText(claude)).toBe('api.anthropic.com as header x-api-key');
    expect(injectionDetailText(github)).toBe(
      'api.github.com as Authorization: Bearer; github.com, git.example:8443 as Authorization: Basic (user x-access-token)',
    );
  });

  it('says whether the edge is up, and nothing without an injection', () => {
    expect(edgeStateText('up', [claude])).toContain('up for the running box');
    expect(edgeStateText('down', [claude])).toMatch(/^NOT up/);
    expect(edgeStateText('unknown', [claude])).toMatch(/^unknown/);
    expect(edgeStateText('no-box', [claude])).toContain('starts with the box');
    expect(edgeStateText('up', [])).toBeNull();
  });
});

describe('the edge’s refusal lines', () => {
  it('reads what it masked and what it could not check beside its refusals', () => {
    const events = parseEdgeEvents(
      [
        'byre-edge 1 refused 200 reflected-secret api.github.com',
        'byre-edge 1 refused 201 encoded-response api.github.com',
      ].join('\n'),
    );
    expect(events.refused.map((e) => e.reason).sort()).toEqual([
      'encoded-response',
      'reflected-secret',
    ]);
  });

  it('aggregates by reason and name, most frequent first', () => {
    const log = [
      'byre-edge 1 refused 100 plain-http api.anthropic.com',
      'byre-edge 1 refused 105 plain-http api.anthropic.com',
      'byre-edge 1 refused 103 unknown-host -',
      'byre-edge ready',
      'byre-edge 1 refused 101 host-mismatch api.github.com\r',
    ].join('\n');
    const events = parseEdgeEvents(log);
    expect(events).toEqual({
      more: 0,
      moreRequests: 0,
      refused: [
        { reason: 'plain-http', name: 'api.anthropic.com', count: 2, first: 100, last: 105 },
        { reason: 'unknown-host', name: '-', count: 1, first: 103, last: 103 },
        { reason: 'host-mismatch', name: 'api.github.com', count: 1, first: 101, last: 101 },
      ],
    });
    expect(edgeRefusedSummary(events)).toBe(
      '4 requests refused at the edge (plain-http api.anthropic.com ×2, unknown-host -, host-mismatch api.github.com)',
    );
  });

  it.each([
    'byre-edge 2 refused 100 plain-http a.example',
    'byre-edge 1 refused 100 plain-http',
    'byre-edge 1 refused 100 plain-http a.example extra',
    'byre-edge 1 refused -1 plain-http a.example',
    'byre-edge 1 refused 0100 plain-http a.example',
    'byre-edge 1 refused 100 exploded a.example',
    'byre-edge 1 refused 100 plain-http A.EXAMPLE',
    'byre-edge 1 refused 100 plain-http a\u001b[31m.example',
    'byre-edge 1 refused 100 plain-http a\\999.example',
    'byre-edge 1 refused 100  plain-http a.example',
    ` byre-edge 1 refused 100 plain-http a.example`,
    `byre-edge 1 refused 100 plain-http ${'a'.repeat(600)}`,
  ])('drops a line that is not exactly an event: %j', (line) => {
    expect(parseEdgeEvents(line).refused).toEqual([]);
  });

  it('keeps an escaped name as escaped', () => {
    expect(
      parseEdgeEvents('byre-edge 1 refused 7 unknown-host a\\032b.example').refused[0]?.name,
    ).toBe('a\\032b.example');
  });

  it('keeps at most 200 entries and counts the rest', () => {
    const lines = Array.from(
      { length: 250 },
      (_, i) => `byre-edge 1 refused ${i} unknown-host h${i}.example`,
    );
    lines.push('byre-edge 1 refused 999 unknown-host h3.example');
    const events = parseEdgeEvents(lines.join('\n'));
    expect(events.refused).toHaveLength(200);
    expect(events.more).toBe(50);
    expect(events.refused[0]).toMatchObject({ name: 'h3.example', count: 2 });
    expect(edgeRefusedSummary(events)).toMatch(
      /^251 requests refused at the edge \(unknown-host h3\.example ×2, .*, and 247 more\)$/,
    );
  });

  it('says nothing when nothing was refused', () => {
    expect(edgeRefusedSummary(parseEdgeEvents(''))).toBeNull();
  });
});
