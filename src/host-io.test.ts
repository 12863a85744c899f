// The exception list of adr/0068 stays honest: every file on
// eslint.config.js's HOST_IO_EXCEPTIONS still imports host IO (a converted
// file leaves the list), exists, and is outside the two IO places; and
// TODO.md's count of them is the list's length. The lint itself refuses host
// IO everywhere else.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

interface LintConfig {
  HOST_IO_EXCEPTIONS: Record<string, string>;
  hostIoModules: string[];
}

const config = (await import(path.join(ROOT, 'eslint.config.js'))) as LintConfig;
const exceptions = Object.keys(config.HOST_IO_EXCEPTIONS);

function hostIoImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
  return info.importedFiles.map((r) => r.fileName).filter((m) => config.hostIoModules.includes(m));
}

describe('host IO exceptions (adr/0068)', () => {
  it('names only files that exist, outside src/host/ and src/engine/, each with a reason', () => {
    expect(exceptions.length).toBeGreaterThan(0);
    expect(exceptions.filter((f) => !existsSync(path.join(ROOT, f)))).toEqual([]);
    expect(exceptions.filter((f) => /^src\/(host|engine)\//.test(f))).toEqual([]);
    expect(exceptions.filter((f) => config.HOST_IO_EXCEPTIONS[f]?.trim() === '')).toEqual([]);
  });

  it('names only files that still import host IO', () => {
    expect(exceptions.filter((f) => hostIoImports(f).length === 0)).toEqual([]);
  });

  it("is counted by TODO.md's line", () => {
    const todo = readFileSync(path.join(ROOT, 'TODO.md'), 'utf8');
    const count = /^- (\d+) files outside `src\/host\/` and `src\/engine\/` still do host IO/m.exec(
      todo,
    );
    expect(Number(count?.[1])).toBe(exceptions.length);
  });
});
