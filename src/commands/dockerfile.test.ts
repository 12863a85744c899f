import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('docs/EJECTING.md (issue 27)', () => {
  const doc = readFileSync('docs/EJECTING.md', 'utf8');
  const commands = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').join('\n');

  it('builds by hand from a fresh `byre dockerfile --context`, never from the store’s context', () => {
    expect(commands).toContain('byre dockerfile --context /tmp/byre-ctx');
    expect(commands).toMatch(
      /docker build .*\\\n\s+-f \/tmp\/byre-ctx\/Dockerfile\.generated \/tmp\/byre-ctx/,
    );
    expect(commands).not.toMatch(/\.byre|projects\/<id>/);
    // Nor does the prose name the store's context as something to build.
    expect(doc).not.toMatch(/-f ~\/\.byre|docker build[^\n]*\.byre/);
  });
});
