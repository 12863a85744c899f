import { describe, expect, it } from 'vitest';
import { formatKeyPath, indexKeys, locateKey } from './locate.js';

const text = [
  '# comment',
  'engine = "docker"  # trailing',
  'apt = [',
  '  "git",',
  '  "curl", # why',
  ']',
  'env = { FOO = "bar", "QUOTED KEY" = "x" }',
  'env_from_host.TZ = "tz:"',
  "files = { './seed' = '/opt/seed' }",
  'dockerfile_pre = ["""',
  'RUN echo "[[mounts]]"',
  '"""]',
  '',
  '[[mounts]]',
  'host = "~/a"',
  'target = "/a"',
  '',
  '  [[mounts]]',
  '  host = "~/b"',
  '  target = "/b"',
  '',
  '[[volumes]]',
  'name = "v"',
  '[volumes.seed]',
  'host = "~/seed"',
  '',
  '[sources."owner/pkg"]',
  'uri = "https://x"',
  '',
  '[[mcp]]',
  'name = "gh"',
  'headers = { Authorization = "Bearer ${T}" }',
  '[mcp.headers2]',
  'x = 1',
  '[[mcp]]',
  'name = "two"',
  '[[ports]]',
  'container = 1',
  'ports2 = [{ container = 2 }, { container = 3, host = 4 }]',
].join('\n');

const index = indexKeys(text);

describe('formatKeyPath', () => {
  it.each([
    [['mounts', 1, 'target'], 'mounts[1].target'],
    [['env', 'FOO'], 'env.FOO'],
    [['files', './seed'], 'files["./seed"]'],
    [['sources', 'owner/pkg', 'uri'], 'sources["owner/pkg"].uri'],
    [[], ''],
  ])('%j -> %s', (path, expected) => {
    expect(formatKeyPath(path)).toBe(expected);
  });
});

describe('indexKeys / locateKey', () => {
  it.each([
    [['engine'], 2, 1],
    [['apt'], 3, 1],
    [['apt', 0], 4, 3],
    [['apt', 1], 5, 3],
    [['env'], 7, 1],
    [['env', 'FOO'], 7, 9],
    [['env', 'QUOTED KEY'], 7, 22],
    [['env_from_host'], 8, 1],
    [['env_from_host', 'TZ'], 8, 15],
    [['files', './seed'], 9, 11],
    [['dockerfile_pre', 0], 10, 19],
    [['mounts'], 14, 1],
    [['mounts', 0], 14, 1],
    [['mounts', 0, 'target'], 16, 1],
    [['mounts', 1], 18, 3],
    [['mounts', 1, 'host'], 19, 3],
    [['mounts', 1, 'target'], 20, 3],
    [['volumes', 0, 'name'], 23, 1],
    [['volumes', 0, 'seed'], 24, 1],
    [['volumes', 0, 'seed', 'host'], 25, 1],
    [['sources', 'owner/pkg'], 27, 1],
    [['sources', 'owner/pkg', 'uri'], 28, 1],
    [['mcp', 0, 'name'], 31, 1],
    [['mcp', 0, 'headers', 'Authorization'], 32, 13],
    [['mcp', 0, 'headers2', 'x'], 34, 1],
    [['mcp', 1, 'name'], 36, 1],
    [['ports', 0, 'container'], 38, 1],
    [['ports', 0, 'ports2', 1], 39, 30],
    [['ports', 0, 'ports2', 1, 'host'], 39, 47],
  ])('%j at %i:%i', (path, line, column) => {
    expect(locateKey(index, path)).toEqual({ line, column });
  });

  it('does not mistake a header inside a multi-line string for a table', () => {
    expect(index.has('mounts[2]')).toBe(false);
  });

  it('falls back to the nearest ancestor for an unrecorded key', () => {
    expect(locateKey(index, ['mounts', 1, 'mode'])).toEqual({ line: 18, column: 3 });
    expect(locateKey(index, ['env', 'MISSING'])).toEqual({ line: 7, column: 1 });
    expect(locateKey(index, ['nothing', 'here'])).toBeUndefined();
  });

  it('handles CRLF line endings', () => {
    const crlf = indexKeys('a = 1\r\n[[mounts]]\r\n  target = "/x"\r\n');
    expect(locateKey(crlf, ['mounts', 0, 'target'])).toEqual({ line: 3, column: 3 });
  });

  it('survives garbage without throwing', () => {
    for (const junk of [
      '[',
      '[[',
      'a = [',
      'a = {',
      'a = """',
      "'",
      '= 1',
      'a.b. = 2',
      '[a.]\n[[b',
    ]) {
      expect(() => indexKeys(junk)).not.toThrow();
    }
  });
});
