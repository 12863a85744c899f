import { describe, expect, it } from 'vitest';

import { parseLayer } from './parse.js';
import { removalMarkers } from './removals.js';

function markers(text: string): string[] {
  const parsed = parseLayer(text, { file: '/p/byre.config', kind: 'project', name: 'project' });
  expect(parsed.issues).toEqual([]);
  if (parsed.value === null) throw new Error('no layer');
  return removalMarkers(parsed.value);
}

describe('removalMarkers (adr/0047)', () => {
  it.each([
    ['none', 'skills = ["byre/firewall"]\n', []],
    [
      'a skill removed',
      'skills = ["!byre/docker-host", "byre/firewall"]\n',
      ['skills !byre/docker-host'],
    ],
    ['a mount removed by target', '[[mounts]]\ntarget = "!/data"\n', ['mounts !/data']],
    ['a port removed', '[[ports]]\ncontainer = 3000\nremove = true\n', ['ports 3000 removed']],
    ['a volume removed', '[[volumes]]\nname = "!cache"\n', ['volumes !cache']],
    ['an on/off key turned off', 'seed_prefs = false\n', ['seed_prefs = false']],
    ['an on/off key turned on restricts nothing', 'seed_prefs = true\n', []],
    ['an MCP server closed', '[[mcp]]\nname = "!github"\n', ['mcp !github']],
    ['egress closures are the posture’s to report', 'egress = ["!x.example"]\n', []],
  ])('%s', (_what, text, want) => {
    expect(markers(text)).toEqual(want);
  });
});
