// The authoring verbs' own rules: the ids a new local package may take, and
// the manifest edits fork and pack make through tomldoc.

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp.js';
import { embeddedBytes } from '../../embedded.js';
import { initPackage, packedManifest, rebasedManifest } from './author.js';

describe('the ids skill init and fork may give a new local package', () => {
  const home = useTempDir('author');

  it.each([
    ['mytool'],
    ['me/mytool'],
    ['my_tool-2'],
    ['a'],
    [`${'a'.repeat(64)}/${'b'.repeat(64)}`],
    ['me/none'],
  ])('accepts %s', async (id) => {
    await expect(initPackage(home.path, 'skill', id)).resolves.toMatchObject({ id });
  });

  it.each([
    ['none', 'package.id-reserved', /reserved: "none"/],
    ['claude', 'package.id-reserved', /bundled with byre/],
    ['byre/mine', 'package.id-reserved', /bundled with byre/],
    ['devlog', 'package.id-retired', /lives on as pjlsergeant\/devlog/],
    ['codereview', 'package.id-retired', /lives on as pjlsergeant\/codereview/],
    ['byre/devlog', 'package.id-retired', /lives on as pjlsergeant\/devlog/],
    ['devloop', 'package.id-retired', /renamed to devlog, then moved out of byre/],
    ['MyTool', 'package.id-invalid', /upper-case/],
    ['me/Tool', 'package.id-invalid', /upper-case/],
    ['my.tool', 'package.id-invalid', /a dot/],
    ['me/tool.v2', 'package.id-invalid', /a dot/],
    ['a'.repeat(65), 'package.id-invalid', /too long/],
    ['a/b/c', 'package.id-invalid', /not a package id/],
    ['-x', 'package.id-invalid', /not a package id/],
    ['', 'package.id-invalid', /not a package id/],
  ])('refuses %j (%s)', async (id, rule, message) => {
    const problem = await initPackage(home.path, 'skill', id).then(
      () => null,
      (e: unknown) => e as { rule: string; message: string; remedy: string },
    );
    expect(problem?.rule).toBe(rule);
    expect(problem?.message).toMatch(message);
    expect(problem?.remedy.length).toBeGreaterThan(0);
  });
});

const SHA = (c: string): string => c.repeat(64);
const FILES = [
  { src: 'context.md', dest: 'context.md', sha256: SHA('a'), executable: false },
  { src: 'bin/tool', dest: 'bin/tool', sha256: SHA('b'), executable: true },
];
const LISTED =
  `\n[[package.files]]\nsrc = "context.md"\ndest = "context.md"\nsha256 = "${SHA('a')}"\nexecutable = false\n` +
  `\n[[package.files]]\nsrc = "bin/tool"\ndest = "bin/tool"\nsha256 = "${SHA('b')}"\nexecutable = true\n`;

describe('rebasedManifest and packedManifest: fork and pack edit the manifest through tomldoc', () => {
  it('a bundled manifest changes only its id, and pack appends the listing after it', () => {
    const text = new TextDecoder().decode(embeddedBytes('skills/firewall/skill.toml'));
    const forked = rebasedManifest(text, 'skill.toml', 'me/wall');
    expect(forked).toBe(text.replace('id = "byre/firewall"', 'id = "me/wall"'));
    expect(packedManifest(text, 'skill.toml', 'me/wall', FILES)).toBe(`${forked}${LISTED}`);
  });

  it.each([
    [
      'old listings go, wherever they sit, and the new one goes at the end',
      `description = "x"\n\n[package]\nid = "a/b"\n\n[[package.files]]\nsrc = "old"\ndest = "old"\nsha256 = "${SHA('c')}"\nexecutable = false\n\n[build]\napt = []\n`,
      'description = "x"\n\n[package]\nid = "me/new"\n\n[build]\napt = []\n',
    ],
    [
      'a comment on the id line stays',
      '[package]\nid = "a/b" # mine\nversion = "1.0.0"\n',
      '[package]\nid = "me/new" # mine\nversion = "1.0.0"\n',
    ],
    [
      'an id-looking line inside a multi-line string is data, not the key',
      '[package]\ndescription = """\nid = "not/this"\n[[package.files]]\n"""\nid = "a/b"\n',
      '[package]\ndescription = """\nid = "not/this"\n[[package.files]]\n"""\nid = "me/new"\n',
    ],
    [
      'a dotted package.id is set in place, not shadowed by a second [package]',
      'package.id = "a/b"\npackage.version = "1.0.0"\n',
      'package.id = "me/new"\npackage.version = "1.0.0"\n',
    ],
    [
      'a literal-quoted id keeps its quotes',
      "[package]\nid = 'a/b'\n",
      "[package]\nid = 'me/new'\n",
    ],
    [
      'a manifest without [package] gets one at the end',
      'description = "x"\n',
      'description = "x"\n\n[package]\nid = "me/new"\n',
    ],
    [
      'a [package] without an id gets it beside its keys',
      '[package]\nversion = "1.0.0"\n',
      '[package]\nversion = "1.0.0"\nid = "me/new"\n',
    ],
  ])('%s', (_, text, forked) => {
    expect(rebasedManifest(text, 'skill.toml', 'me/new')).toBe(forked);
    expect(packedManifest(text, 'skill.toml', 'me/new', FILES)).toBe(`${forked}${LISTED}`);
  });

  it('packing a packed manifest again gives the same bytes', () => {
    const once = packedManifest('[package]\nid = "a/b"\n', 'skill.toml', 'a/b', FILES);
    expect(packedManifest(once, 'skill.toml', 'a/b', FILES)).toBe(once);
  });

  it('a manifest the engine cannot read is refused, located', () => {
    let error: unknown;
    try {
      rebasedManifest('[package]\nid = "a/b"\nversion = \n', '/pkgs/skill.toml', 'me/new');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      rule: 'package.manifest-unreadable',
      location: { file: '/pkgs/skill.toml', line: 3 },
    });
  });
});
