import { describe, expect, it } from 'vitest';
import { AS_WRITTEN, canonicalLayer, type PackageCanon } from './canonical.js';
import { mergeLayers } from './merge.js';
import type { RawLayer } from './schema.js';
import type { LayerRef } from './types.js';

// A catalog that knows the bundled claude, firewall and node, and a local `mine`.
const KNOWN_SKILLS: Record<string, string> = {
  claude: 'byre/claude',
  'byre/claude': 'byre/claude',
  firewall: 'byre/firewall',
  'byre/firewall': 'byre/firewall',
  mine: 'mine',
};
const KNOWN_TEMPLATES: Record<string, string> = { node: 'byre/node', 'byre/node': 'byre/node' };
const CANON: PackageCanon = {
  skill: (r) => KNOWN_SKILLS[r] ?? r,
  template: (r) => KNOWN_TEMPLATES[r] ?? r,
};

const ref = (kind: LayerRef['kind'], name: string): LayerRef => ({ kind, name, path: `/${name}` });

describe('canonicalLayer', () => {
  it.each<[string, RawLayer, RawLayer]>([
    ['bare skill', { skills: ['claude'] }, { skills: ['byre/claude'] }],
    ['removal marker', { skills: ['!claude'] }, { skills: ['!byre/claude'] }],
    ['already canonical', { skills: ['!byre/claude'] }, { skills: ['!byre/claude'] }],
    ['unknown stays as written', { skills: ['me/x', '!nope'] }, { skills: ['me/x', '!nope'] }],
    ['local shadows by its own id', { skills: ['mine'] }, { skills: ['mine'] }],
    ['agent', { agent: 'claude' }, { agent: 'byre/claude' }],
    ['agent none', { agent: 'none' }, { agent: 'none' }],
    ['agent empty inherits', { agent: '' }, { agent: '' }],
    ['template', { template: 'node' }, { template: 'byre/node' }],
    ['template none', { template: 'none' }, { template: 'none' }],
    [
      'sources keys, skill or template',
      { sources: { claude: { uri: 'a' }, node: { uri: 'b' }, 'me/x': { uri: 'c' } } },
      { sources: { 'byre/claude': { uri: 'a' }, 'byre/node': { uri: 'b' }, 'me/x': { uri: 'c' } } },
    ],
    ['other keys untouched', { apt: ['claude'], base: 'node' }, { apt: ['claude'], base: 'node' }],
  ])('%s', (_name, raw, want) => {
    expect(canonicalLayer(raw, CANON)).toEqual(want);
  });

  it('keeps array positions, so issues still point at the written entry', () => {
    const raw: RawLayer = { skills: ['a', 'claude', '!firewall', 'b'] };
    expect(canonicalLayer(raw, CANON).skills).toHaveLength(4);
    expect(canonicalLayer(raw, CANON).skills?.[2]).toBe('!byre/firewall');
  });

  it('changes nothing with no catalog', () => {
    const raw: RawLayer = { skills: ['claude', '!byre/claude'], agent: 'claude' };
    expect(canonicalLayer(raw, AS_WRITTEN)).toEqual(raw);
  });
});

describe('merge after canonicalisation: aliases are one package', () => {
  const merged = (layers: RawLayer[]) =>
    mergeLayers(
      layers.map((raw, i) => ({ ref: ref('layer', `l${i}`), raw: canonicalLayer(raw, CANON) })),
    );
  const skills = (layers: RawLayer[]) => merged(layers).skills.map((s) => s.value);

  it.each<[string, RawLayer[], string[]]>([
    ['!byre/claude cancels claude', [{ skills: ['claude'] }, { skills: ['!byre/claude'] }], []],
    ['!claude cancels byre/claude', [{ skills: ['byre/claude'] }, { skills: ['!claude'] }], []],
    ['within one layer too', [{ skills: ['claude', '!byre/claude'] }], []],
    [
      'both spellings are one entry',
      [{ skills: ['claude'] }, { skills: ['byre/claude'] }],
      ['byre/claude'],
    ],
    [
      'a later add reopens',
      [{ skills: ['!claude'] }, { skills: ['byre/claude'] }],
      ['byre/claude'],
    ],
    [
      'unrelated entries stay',
      [{ skills: ['claude', 'firewall'] }, { skills: ['!byre/claude'] }],
      ['byre/firewall'],
    ],
  ])('%s', (_name, layers, want) => {
    expect(skills(layers)).toEqual(want);
  });

  it('without canonicalisation the alias removal would miss (the bug this guards)', () => {
    const raw = [{ skills: ['claude'] }, { skills: ['!byre/claude'] }];
    const asWritten = mergeLayers(raw.map((r, i) => ({ ref: ref('layer', `l${i}`), raw: r })));
    expect(asWritten.skills.map((s) => s.value)).toEqual(['claude']);
  });

  it('a [sources] hint keyed by the bare name is found under the id', () => {
    expect(Object.keys(merged([{ sources: { claude: { uri: 'u' } } }]).sources)).toEqual([
      'byre/claude',
    ]);
  });
});
