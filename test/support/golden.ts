// The one golden-file check: rendered bytes against test/golden/<name>.
// UPDATE_GOLDEN=1 rewrites the file instead, so a deliberate change is one
// command and a reviewable diff.

import { readFileSync, writeFileSync } from 'node:fs';

import { expect } from 'vitest';

const GOLDEN_DIR = new URL('../golden/', import.meta.url);

export function expectGolden(name: string, rendered: string): void {
  const url = new URL(name, GOLDEN_DIR);
  if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(url, rendered);
  expect(rendered).toBe(readFileSync(url, 'utf8'));
}
