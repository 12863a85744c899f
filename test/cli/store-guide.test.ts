// ~/.byre/AGENTS.md through the built binary: a verb that writes the store
// leaves byre's guide for host-side coding agents there, naming this byre,
// and replaces a copy that differs.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { useTempDir } from '../support/temp.js';

const BIN = path.resolve('dist/byre');
const tmp = useTempDir('guide-cli');

function byre(args: string[]): number | null {
  return spawnSync(BIN, args, {
    cwd: tmp.path,
    encoding: 'utf8',
    env: { ...process.env, BYRE_HOME: path.join(tmp.path, 'home'), BYRE_ALLOW_ROOT: '1' },
  }).status;
}

describe('~/.byre/AGENTS.md', () => {
  it('is written by a store-writing verb and rewritten when it differs', () => {
    expect(byre(['skill', 'list'])).toBe(0);
    const file = path.join(tmp.path, 'home', 'AGENTS.md');
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const first = readFileSync(file, 'utf8');
    expect(first).toContain(`Written by byre ${pkg.version}.`);
    expect(first).toContain("is the user's consent document");
    writeFileSync(file, 'stale\n');
    expect(byre(['skill', 'list'])).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(first);
  });
});
