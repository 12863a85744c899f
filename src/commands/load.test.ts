import { describe, expect, it } from 'vitest';
import { parseLayer } from '../config/parse.js';
import { embeddedPaths } from '../embedded.js';
import { bundledTemplate } from './load.js';

describe('bundled templates', () => {
  const names = embeddedPaths('templates/').map((p) => p.split('/')[1] ?? '');

  it('ships go, node and python', () => {
    expect(names).toEqual(['go', 'node', 'python']);
  });

  it.each(names)('%s parses cleanly and sets a base', (name) => {
    const found = bundledTemplate(name);
    expect(found?.id).toBe(`byre/${name}`);
    const parsed = parseLayer(found?.text ?? '', {
      file: `templates/${name}`,
      kind: 'template',
      name,
    });
    expect(parsed.issues).toEqual([]);
    expect(parsed.value?.base).toMatch(/bookworm$/);
  });

  it.each([
    ['byre/node', 'byre/node'],
    ['nope', null],
    ['../etc', null],
  ])('%s -> %s', (name, id) => {
    expect(bundledTemplate(name)?.id ?? null).toBe(id);
  });
});
