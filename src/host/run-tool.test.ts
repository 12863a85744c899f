// A pinned host program's output: from `/`, stdin closed, bounded, and null
// for every way it can fail.

import { describe, expect, it } from 'vitest';
import { toolOutputSync } from './run-tool.js';

const BOUNDS = { timeoutMs: 5_000, maxBytes: 1024 };

describe('toolOutputSync', () => {
  it('runs from / with stdin closed and gives stdout only', () => {
    expect(toolOutputSync('/bin/sh', ['-c', 'pwd; echo oops >&2'], BOUNDS)).toBe('/\n');
    expect(toolOutputSync('/bin/sh', ['-c', 'cat; echo end'], BOUNDS)).toBe('end\n');
  });

  it('passes its arguments as words, never through a shell', () => {
    expect(toolOutputSync('/bin/echo', ['$HOME', 'a b'], BOUNDS)).toBe('$HOME a b\n');
  });

  it('is null for a relative path, a missing program, a failure, and either bound', () => {
    expect(toolOutputSync('echo', ['x'], BOUNDS)).toBeNull();
    expect(toolOutputSync('/nonexistent/tool', [], BOUNDS)).toBeNull();
    expect(toolOutputSync('/bin/sh', ['-c', 'echo partial; exit 3'], BOUNDS)).toBeNull();
    expect(toolOutputSync('/bin/sh', ['-c', 'head -c 4096 /dev/zero'], BOUNDS)).toBeNull();
    expect(toolOutputSync('/bin/sh', ['-c', 'sleep 5'], { ...BOUNDS, timeoutMs: 200 })).toBeNull();
  });
});
