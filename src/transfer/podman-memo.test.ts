import { describe, expect, it } from 'vitest';

import { useTempDir } from '../../test/support/temp.js';
import { podmanShortcut } from './podman-memo.js';

const row = (c: string, labels: Record<string, string> = {}) => ({
  id: c.repeat(64),
  labels: {
    'byre.project': 'proj',
    'byre.workdir': `wt-${c}`,
    'byre.uid': '1000',
    'byre.gid': '1001',
    ...labels,
  },
});

describe('podmanShortcut', () => {
  const temp = useTempDir('pmemo');

  it('is absent when the monitors could not be read', () => {
    expect(podmanShortcut(null, temp.path)).toBeNull();
  });

  it("knows nothing at first, then podman's listed boxes while their monitors live", () => {
    const live = ['a'.repeat(64), 'b'.repeat(64)];
    const first = podmanShortcut(live, temp.path);
    expect(first?.known()).toBeNull();
    first?.remember([row('a'), row('b'), row('c')]);
    expect(podmanShortcut(live, temp.path)?.known()).toEqual([row('a'), row('b')]);
    // A container the memo never saw: podman must be asked.
    expect(podmanShortcut([...live, 'd'.repeat(64)], temp.path)?.known()).toBeNull();
    // c's monitor was not live when it was listed; still a fact about c.
    expect(podmanShortcut(['c'.repeat(64)], temp.path)?.known()).toEqual([row('c')]);
  });

  it('does not remember a row whose ids or project are missing or odd', () => {
    const live = ['a'.repeat(64)];
    podmanShortcut(live, temp.path)?.remember([
      row('a', { 'byre.uid': 'x' }),
      row('a', { 'byre.project': '' }),
      row('a', { 'byre.workdir': 'two words' }),
    ]);
    expect(podmanShortcut(live, temp.path)?.known()).toBeNull();
  });

  it('reads a box without a workdir label as its project, as discovery does', () => {
    const live = ['a'.repeat(64)];
    const bare = { id: 'a'.repeat(64), labels: { ...row('a').labels } } as {
      id: string;
      labels: Record<string, string>;
    };
    delete bare.labels['byre.workdir'];
    podmanShortcut(live, temp.path)?.remember([bare]);
    expect(podmanShortcut(live, temp.path)?.known()?.[0]?.labels['byre.workdir']).toBe('proj');
  });
});
