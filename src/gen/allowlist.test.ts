import { describe, expect, it } from 'vitest';
import { fakeConfig, fakeSkill, sourced } from '../../test/support/config.js';
import type { EgressEntry, McpSpec } from '../config/types.js';
import { deriveBoxEgress, mcpEgress, parseRecordedEgress } from './allowlist.js';

const cfg = (host: string, port: number | null) => ({ host, port });

/** A skill declaring `egress` in its [runtime], and the MCP servers it brings. */
const skill = (id: string, egress: string[], mcp: McpSpec[] = []) =>
  fakeSkill(id, 'bundled', { runtime: { ...fakeSkill(id, 'bundled').runtime, egress }, mcp });

/** A config whose project layer sets `egress` and closes `closed`. */
const config = (egress: EgressEntry[], closed: EgressEntry[] = []) =>
  fakeConfig({
    egress: egress.map((e) => sourced(e)),
    egressClosed: closed.map((e) => sourced(e)),
  });

const mcp = (name: string, egress: string[]): McpSpec => ({ name, env: [], egress, headers: {} });

describe('deriveBoxEgress', () => {
  it('unions skill, mcp and config entries with attribution, first-seen order, deduplicated', () => {
    const d = deriveBoxEgress(config([cfg('api.anthropic.com', 443), cfg('pypi.org', 443)]), [
      skill(
        'byre/claude',
        ['api.anthropic.com', 'statsig.anthropic.com:443'],
        [mcp('gh', ['api.github.com:443'])],
      ),
    ]);
    expect(d.entries.map((e) => [`${e.host}:${e.port}`, e.sources])).toEqual([
      ['api.anthropic.com:443', ['byre/claude', 'config']],
      ['statsig.anthropic.com:443', ['byre/claude']],
      ['api.github.com:443', ['mcp:gh']],
      ['pypi.org:443', ['config']],
    ]);
    expect(d.allowed).toEqual([
      'api.anthropic.com:443',
      'statsig.anthropic.com:443',
      'api.github.com:443',
      'pypi.org:443',
    ]);
  });

  it.each([
    [
      'a portless closure closes every port, skill entries included',
      cfg('x.com', null),
      ['y.com:443'],
    ],
    ['a ported closure closes only that port', cfg('x.com', 443), ['x.com:8443', 'y.com:443']],
    [
      'a closure for another host closes nothing',
      cfg('z.com', null),
      ['x.com:443', 'x.com:8443', 'y.com:443'],
    ],
    [
      'a closed name closes the names under it; a name under it closes nothing above',
      cfg('com', 8443),
      ['x.com:443', 'y.com:443'],
    ],
    [
      'a closure below an entry subtracts nothing here',
      cfg('api.x.com', null),
      ['x.com:443', 'x.com:8443', 'y.com:443'],
    ],
  ])('%s', (_name, closure, allowed) => {
    const d = deriveBoxEgress(config([cfg('y.com', 443)], [closure]), [
      skill('skill-a', ['x.com:443', 'x.com:8443']),
    ]);
    expect(d.allowed).toEqual(allowed);
    const closedText =
      closure.port === null ? `!${closure.host}` : `!${closure.host}:${closure.port}`;
    expect(d.closures).toEqual([{ text: closedText, source: 'project' }]);
    for (const e of d.entries)
      expect(e.closedBy).toBe(allowed.includes(`${e.host}:${e.port}`) ? null : closedText);
  });

  it('reports skill strings that are not entries (or are closures) instead of opening them', () => {
    const d = deriveBoxEgress(config([]), [skill('s', ['bad host', '!x.com', 'ok.com:80'])]);
    expect(d.allowed).toEqual(['ok.com:80']);
    expect(d.invalid.map((i) => i.raw)).toEqual(['bad host', '!x.com']);
  });

  it('derives MCP egress from the url (default ports by scheme) plus extras', () => {
    expect(mcpEgress({ url: 'https://mcp.example.com/sse', egress: ['a.com:22'] })).toEqual([
      'mcp.example.com:443',
      'a.com:22',
    ]);
    expect(mcpEgress({ url: 'http://h:8080/x', egress: [] })).toEqual(['h:8080']);
    expect(mcpEgress({ egress: [] })).toEqual([]);
  });

  it('parses recorded entries back, IPv6 bracketed', () => {
    expect(parseRecordedEgress('a.com:443')).toEqual({ host: 'a.com', port: 443 });
    expect(parseRecordedEgress('[::1]:8080')).toEqual({ host: '[::1]', port: 8080 });
  });
});
