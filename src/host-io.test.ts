// Host IO is refused by the lint outside its two places (adr/0068): a
// planted `node:fs` or `node:child_process` import, static or lazy, fails
// `npm run check` in an ordinary module and passes in src/host/ and
// src/engine/. The plants are linted as text under real paths of the tree
// (each file's own text with one import added), so the verdict is the
// project's own eslint.config.js on the file it would be.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

const eslint = new ESLint({ cwd: ROOT });

/** The messages of the no-IO rules for `file`'s text with `plant` prepended. */
async function hostIoFindings(file: string, plant: string): Promise<string[]> {
  const text = `${plant}\n${readFileSync(path.join(ROOT, file), 'utf8')}`;
  const [result] = await eslint.lintText(text, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

const STATIC_FS = "import { readFileSync as planted } from 'node:fs';\nvoid planted;";
const STATIC_SPAWN = "import { spawnSync as planted } from 'node:child_process';\nvoid planted;";
const LAZY_FS = "void import('node:fs');";

describe('host IO lives in src/host/ and src/engine/ (adr/0068)', () => {
  it.each([
    ['src/status/layout.ts', STATIC_FS],
    ['src/transfer/grab-writer.ts', STATIC_FS],
    ['src/commands/doctor.ts', STATIC_SPAWN],
    ['src/containment/bind-pins.ts', LAZY_FS],
  ])('refuses a planted import in %s', async (file, plant) => {
    const found = await hostIoFindings(file, plant);
    expect(found.some((m) => m.includes('adr/0068') || m.includes('no IO here'))).toBe(true);
  });

  it.each([
    ['src/host/anchored.ts', STATIC_FS],
    ['src/engine/runner.ts', STATIC_SPAWN],
  ])('allows one in %s', async (file, plant) => {
    expect(await hostIoFindings(file, plant)).toEqual([]);
  });
});
