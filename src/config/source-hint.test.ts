import { describe, expect, it } from 'vitest';
import { findHint, installHint } from './source-hint.js';
import type { LayerRef, SourceHint, Sourced } from './types.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;
const layer = (kind: LayerRef['kind'], name: string): LayerRef => ({ kind, name, path: null });
const hint = (value: SourceHint, from = layer('project', 'project')): Sourced<SourceHint> => ({
  value,
  from,
});

describe('installHint', () => {
  it.each<[string, 'skill' | 'template', Sourced<SourceHint>, string]>([
    [
      'uri and digest',
      'skill',
      hint({ uri: 'https://example.com/skill.toml', digest: DIGEST }),
      `byre skill install https://example.com/skill.toml --digest ${DIGEST}  (hint from project)`,
    ],
    [
      'no digest',
      'template',
      hint({ uri: 'https://example.com/t.config' }, layer('layer', 'work')),
      'byre template install https://example.com/t.config  (hint from layer work)',
    ],
    [
      'a URI the shell would split is single-quoted',
      'skill',
      hint({ uri: 'https://example.com/s.toml?v=1&x=2' }, layer('default', 'default')),
      "byre skill install 'https://example.com/s.toml?v=1&x=2'  (hint from default)",
    ],
    [
      'a quote in a path',
      'skill',
      hint({ uri: "/home/me/it's/skill.toml" }),
      "byre skill install '/home/me/it'\\''s/skill.toml'  (hint from project)",
    ],
    [
      'a $ is not expanded',
      'skill',
      hint({ uri: 'file:///srv/$HOME/skill.toml' }),
      "byre skill install 'file:///srv/$HOME/skill.toml'  (hint from project)",
    ],
  ])('%s', (_name, kind, given, want) => {
    expect(installHint(kind, given)).toBe(want);
  });
});

describe('findHint', () => {
  const sources = {
    'me/x': hint({ uri: 'a' }),
    'me/y': hint({ uri: '' }),
  };
  it('takes the first id that has a hint', () => {
    expect(findHint(sources, ['nope', 'me/x'])?.value.uri).toBe('a');
  });
  it('ignores an empty uri and unknown ids', () => {
    expect(findHint(sources, ['me/y', 'nope'])).toBeNull();
  });
});
