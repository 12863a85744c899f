import { describe, expect, it } from 'vitest';

import { UsageError } from '../errors.js';
import { mcpAddEntry, type McpAddFlags } from './mcp-entry.js';
import { parseLayer } from './parse.js';
import { applyEdits } from '../tomldoc/index.js';
import { upsertEntry } from './key-edits.js';

describe('mcpAddEntry', () => {
  it.each<[string, string[], McpAddFlags, Record<string, unknown>]>([
    ['a stdio server', ['gh-mcp', 'stdio'], {}, { name: 's', command: ['gh-mcp', 'stdio'] }],
    [
      'env names and extra egress',
      ['x'],
      { env: ['A_TOKEN'], egress: ['api.example.com:8443'] },
      { name: 's', command: ['x'], env: ['A_TOKEN'], egress: ['api.example.com:8443'] },
    ],
    ['a remote server', ['https://m.example/mcp'], {}, { name: 's', url: 'https://m.example/mcp' }],
    [
      'a bearer header names its variable and adds it to env',
      ['https://m.example/mcp'],
      { bearer: 'TOK', header: ['X-Version=2'] },
      {
        name: 's',
        url: 'https://m.example/mcp',
        env: ['TOK'],
        headers: { 'X-Version': '2', Authorization: 'Bearer ${TOK}' },
      },
    ],
    [
      'a secret header that is a ${VAR} template',
      ['http://localhost:9000/mcp'],
      { header: ['X-Api-Key=${KEY}'] },
      { name: 's', url: 'http://localhost:9000/mcp', headers: { 'X-Api-Key': '${KEY}' } },
    ],
  ])('%s', (_what, operands, flags, entry) => {
    const made = mcpAddEntry('s', operands, flags);
    expect(made).toEqual(entry);
    const text = applyEdits('', [upsertEntry('mcp', made)]);
    expect(parseLayer(text, { file: 'x', kind: 'project', name: 'project' }).issues).toEqual([]);
  });

  it.each<[string, string, string[], McpAddFlags, string]>([
    ['a bad name', 'GH', ['x'], {}, 'wiring.name-invalid'],
    ['nothing to run', 's', [], {}, 'mcp.target-missing'],
    ['a URL with more arguments', 's', ['https://a.example', 'x'], {}, 'mcp.target-invalid'],
    ['an env value, not a name', 's', ['x'], { env: ['A=1'] }, 'mcp.env-invalid'],
    [
      'a bearer that is not a name',
      's',
      ['https://a.example'],
      { bearer: 'a b' },
      'mcp.env-invalid',
    ],
    ['a closure as egress', 's', ['x'], { egress: ['!a.example'] }, 'mcp.egress-invalid'],
    ['bad egress', 's', ['x'], { egress: ['a b'] }, 'mcp.egress-invalid'],
    ['a header on a stdio server', 's', ['x'], { header: ['A=b'] }, 'mcp.headers-local'],
    ['a bearer on a stdio server', 's', ['x'], { bearer: 'T' }, 'mcp.headers-local'],
    [
      'a header without =',
      's',
      ['https://a.example'],
      { header: ['Accept'] },
      'mcp.header-invalid',
    ],
    [
      'a literal token',
      's',
      ['https://a.example'],
      { header: ['Authorization=Bearer sk-123'] },
      'mcp.header-literal-secret',
    ],
  ])('refuses %s (usage, exit 2)', (_what, name, operands, flags, rule) => {
    let caught: unknown;
    try {
      mcpAddEntry(name, operands, flags);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect(caught).toMatchObject({ rule });
  });
});
