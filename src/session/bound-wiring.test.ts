// The wiring bound from the store on rootless podman (adr/0075): which
// engines bind it, the directory named by its digest and written whole, and
// the read-only binds of each of its entries.

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { fakeConfig } from '../../test/support/config.js';
import { useTempDir } from '../../test/support/temp.js';
import { planBuild } from '../gen/plan.js';
import { stageBoundWiring, wiringDelivery } from './bound-wiring.js';
import { splitPlan } from './image-parts.js';
import type { StagePlan } from './stage.js';

const tmp = useTempDir('bound-wiring');

describe('wiringDelivery', () => {
  it.each([
    ['docker', false, null, 'image'],
    ['docker', true, null, 'image'],
    ['podman', false, null, 'image'],
    ['podman', true, null, 'bound'],
    ['podman', true, 'CONTAINER_HOST names ssh://…', 'image'],
  ] as const)('%s rootless=%s elsewhere=%s: %s', (name, rootless, elsewhere, want) => {
    expect(wiringDelivery({ name, rootless }, elsewhere)).toBe(want);
  });
});

describe('stageBoundWiring', () => {
  const wiringOf = (mcp: string): StagePlan => {
    const plan = splitPlan(planBuild(fakeConfig(), [], tmp.path)).wiring;
    return {
      ...plan,
      entries: plan.entries.map((e) =>
        e.path === 'wiring/mcp.json' ? { ...e, source: { kind: 'bytes', bytes: mcp } } : e,
      ),
    };
  };
  const root = (): string => path.join(tmp.path, 'store', 'wiring', 'p-123456');

  it('writes the wiring once under its digest; the same wiring reuses it untouched', async () => {
    const first = await stageBoundWiring(root(), wiringOf('{"a":1}\n'), tmp.path);
    expect(path.dirname(first.dir)).toBe(root());
    expect(path.basename(first.dir)).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path.join(first.dir, 'wiring', 'mcp.json'), 'utf8')).toBe('{"a":1}\n');
    expect(first.binds.map((b) => b.target)).toEqual([
      '/etc/byre/claude-skills',
      '/etc/byre/mcp.json',
    ]);
    expect(first.binds.every((b) => b.mode === 'ro')).toBe(true);
    // The store's folders are the user's alone.
    expect(statSync(root()).mode & 0o077).toBe(0);
    const ino = statSync(path.join(first.dir, 'wiring', 'mcp.json')).ino;
    const again = await stageBoundWiring(root(), wiringOf('{"a":1}\n'), tmp.path);
    expect(again).toEqual(first);
    expect(statSync(path.join(first.dir, 'wiring', 'mcp.json')).ino).toBe(ino);
  });

  it('other wiring gets another directory, and the first stays as it was', async () => {
    const first = await stageBoundWiring(root(), wiringOf('{"a":1}\n'), tmp.path);
    const second = await stageBoundWiring(root(), wiringOf('{"b":2}\n'), tmp.path);
    expect(second.dir).not.toBe(first.dir);
    expect(readdirSync(root()).sort()).toEqual(
      [path.basename(first.dir), path.basename(second.dir)].sort(),
    );
    expect(readFileSync(path.join(first.dir, 'wiring', 'mcp.json'), 'utf8')).toBe('{"a":1}\n');
  });

  it('a directory that does not hold what its name says is written again', async () => {
    const first = await stageBoundWiring(root(), wiringOf('{"a":1}\n'), tmp.path);
    const mcp = path.join(first.dir, 'wiring', 'mcp.json');
    writeFileSync(mcp, '{"evil":1}\n');
    writeFileSync(path.join(first.dir, 'wiring', 'extra'), 'x');
    const again = await stageBoundWiring(root(), wiringOf('{"a":1}\n'), tmp.path);
    expect(again.dir).toBe(first.dir);
    expect(readFileSync(mcp, 'utf8')).toBe('{"a":1}\n');
    expect(readdirSync(path.join(first.dir, 'wiring')).sort()).toEqual([
      'claude-skills',
      'mcp.json',
    ]);
  });
});
