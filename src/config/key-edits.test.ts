import { describe, expect, it } from 'vitest';

import { applyEdits } from '../tomldoc/index.js';
import {
  addRemovalMarker,
  declaresEntry,
  dropRemovalMarker,
  ENTRY_KEYS,
  marksRemoved,
  NAME_LIST_KEYS,
  removeEntry,
  upsertEntry,
} from './key-edits.js';
import { configKey, configKeys } from './keys.js';
import { parseLayer } from './parse.js';

const CONFIG_KEYS = configKeys();

const load = (text: string) =>
  parseLayer(text, { file: 'byre.config', kind: 'project', name: 'project' });

describe('key edits', () => {
  it('ENTRY_KEYS and NAME_LIST_KEYS are exactly the registry’s identity and union lists', () => {
    expect([...ENTRY_KEYS].sort()).toEqual(
      CONFIG_KEYS.filter((k) => configKey(k).identity !== null).sort(),
    );
    expect([...NAME_LIST_KEYS].sort()).toEqual(
      CONFIG_KEYS.filter((k) => ['union', 'egress'].includes(configKey(k).merge.kind)).sort(),
    );
  });

  it.each([
    ['mcp', 'name'],
    ['claude_skills', 'name'],
    ['context', 'name'],
    ['volumes', 'name'],
    ['mounts', 'target'],
    ['ports', 'container'],
  ] as const)('%s entries are identified by %s', (key, field) => {
    expect(upsertEntry(key, {})).toMatchObject({ op: 'entry-upsert', key: field });
    expect(removeEntry(key, 'x')).toMatchObject({ op: 'entry-remove', key: field });
  });

  const comments = '# mine\nagent = "claude"  # keep\n\n# servers\n';

  it('upsert then remove gives back the bytes; the result loads', () => {
    const added = applyEdits(comments, [
      upsertEntry('mcp', { name: 'gh', command: ['gh-mcp', 'stdio'], env: ['GH_TOKEN'] }),
    ]);
    expect(load(added).issues).toEqual([]);
    expect(declaresEntry(added, 'mcp', 'gh')).toBe(true);
    expect(applyEdits(added, [removeEntry('mcp', 'gh')])).toBe(comments);
  });

  it.each([
    ['mcp', 'gh', 'name = "!gh"'],
    ['context', 'rules', 'name = "!rules"'],
    ['mounts', '/data', 'target = "!/data"'],
    ['ports', 3000, 'remove = true'],
  ] as const)('%s: a removal marker for %s loads, is found, and comes off', (key, id, line) => {
    const marked = applyEdits(comments, [addRemovalMarker(key, id)]);
    expect(marked).toContain(line);
    expect(load(marked).issues).toEqual([]);
    expect(marksRemoved(marked, key, id)).toBe(true);
    expect(declaresEntry(marked, key, id)).toBe(false);
    expect(applyEdits(marked, [dropRemovalMarker(key, id)])).toBe(comments);
  });

  it('a port binding is declared, not a removal', () => {
    const text = '[[ports]]\ncontainer = 3000\n';
    expect(declaresEntry(text, 'ports', 3000)).toBe(true);
    expect(marksRemoved(text, 'ports', 3000)).toBe(false);
  });
});
