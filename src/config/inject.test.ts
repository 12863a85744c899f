// The injection grammar (adr/0070) through TOML text, its shape (the zod
// schema built from it) and its rules, located as a user would see them:
// file, line, column and key.

import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import type { ConfigIssue } from '../errors.js';
import {
  bindingFindings,
  checkInjections,
  effectiveInjections,
  formatInjectHost,
  injectionBinding,
  injectionConflicts,
  isInjectedSource,
  parseInjectHost,
  parseInjectionBinding,
  type InjectHost,
  type InjectRule,
  type Presentation,
} from './inject.js';
import { INJECT_SHAPE } from './inject-shape.js';
import { checkShape, locatorFor, shapeFindings } from './parse.js';
import type { LayerRef } from './types.js';

type InjectLayer = Parameters<typeof checkInjections>[0];
type LayerInjections = Parameters<typeof effectiveInjections>[0][number];

const FILE = '/store/byre.config';
const ROW = 'injected:0123456789abcdef:YWdl';

/** Parse the two tables as the loader will: shape first (zod on a misfit), then the rules. */
function check(text: string): { layer: InjectLayer | null; issues: ConfigIssue[] } {
  const table = parseToml(text) as Record<string, unknown>;
  const locate = locatorFor(text, FILE);
  const shaped = checkShape(table.inject ?? {}, INJECT_SHAPE);
  if ('issues' in shaped) {
    const findings = shapeFindings(shaped.issues, table.inject, INJECT_SHAPE).map((f) => ({
      ...f,
      path: ['inject', ...f.path],
    }));
    return { layer: null, issues: locate(findings) };
  }
  const layer: InjectLayer = {
    env_from_host: table.env_from_host as Record<string, string> | undefined,
    inject: shaped.value,
  };
  return { layer, issues: locate(checkInjections(layer)) };
}

const good = `[env_from_host]
GITHUB_TOKEN = "${ROW}"
ANTHROPIC_API_KEY = "${ROW}"

[[inject.GITHUB_TOKEN]]
hosts = ["api.github.com"]
bearer = true

[[inject.GITHUB_TOKEN]]
hosts = ["github.com"]
basic = "x-access-token"

[[inject.ANTHROPIC_API_KEY]]
hosts = ["api.anthropic.com"]
header = "X-Api-Key"
`;

describe('inject hosts', () => {
  it.each([
    ['api.anthropic.com', { name: 'api.anthropic.com', port: 443 }],
    ['API.GitHub.com', { name: 'api.github.com', port: 443 }],
    ['fixture.test:8443', { name: 'fixture.test', port: 8443 }],
    ['a-b.c0.example', { name: 'a-b.c0.example', port: 443 }],
  ])('takes %s', (raw, want) => {
    expect(parseInjectHost(raw)).toEqual(want);
  });

  it.each([
    '',
    'localhost',
    'https://api.github.com',
    'api.github.com/x',
    '*.github.com',
    '10.0.0.1',
    '10.0.0.1:443',
    '[::1]:443',
    'api.github.com:0',
    'api.github.com:65536',
    'api.github.com:',
    'api.github.com.',
    '-a.example',
    'a-.example',
    'a..example',
    'a_b.example',
    `${'a'.repeat(64)}.example`,
    `${'a.'.repeat(127)}example`,
  ])('refuses %j', (raw) => {
    expect(parseInjectHost(raw)).toBeNull();
  });

  it('writes the port back only when it is not 443', () => {
    expect(formatInjectHost({ name: 'a.example', port: 443 })).toBe('a.example');
    expect(formatInjectHost({ name: 'a.example', port: 8443 })).toBe('a.example:8443');
  });

  it('knows an injected row by its prefix only', () => {
    expect(isInjectedSource(ROW)).toBe(true);
    expect(isInjectedSource('encrypted:0123456789abcdef:YWdl')).toBe(false);
    expect(isInjectedSource('env:INJECTED')).toBe(false);
  });
});

describe('a file’s inject rules', () => {
  it('accepts the recipes', () => {
    const r = check(good);
    expect(r.issues).toEqual([]);
  });

  it('accepts a file with neither table', () => {
    expect(check('engine = "auto"\n').issues).toEqual([]);
  });

  it('refuses a wrong type through the schema, at its line and key', () => {
    const r = check(`[[inject.K]]\nhosts = "api.example.com"\nbearer = true\n`);
    expect(r.layer).toBeNull();
    expect(r.issues).toEqual([
      expect.objectContaining({
        rule: 'config.wrong-type',
        location: { file: FILE, line: 2, column: 1, key: 'inject.K[0].hosts' },
      }),
    ]);
  });

  it('refuses an unknown key in a rule, naming the likely one', () => {
    const r = check(`[[inject.K]]\nhosts = ["a.example"]\nbarer = true\n`);
    expect(r.issues[0]).toMatchObject({
      rule: 'config.unknown-key',
      location: { line: 3, key: 'inject.K[0].barer' },
    });
    expect(r.issues[0]?.message).toContain('bearer');
  });

  it('refuses a single table where a list of rules belongs', () => {
    const r = check(`[inject.K]\nhosts = ["a.example"]\nbearer = true\n`);
    expect(r.issues[0]).toMatchObject({ rule: 'config.wrong-type', location: { key: 'inject.K' } });
  });

  it('refuses rules with no injected row in the same file', () => {
    const r = check(
      `[env_from_host]\nK = "encrypted:0123456789abcdef:YWdl"\n\n[[inject.K]]\nhosts = ["a.example"]\nbearer = true\n`,
    );
    expect(r.issues).toEqual([
      expect.objectContaining({
        rule: 'config.inject-no-row',
        location: expect.objectContaining({ file: FILE, key: 'inject.K' }) as unknown,
        fix: expect.stringContaining('byre credential add K --inject') as unknown,
      }),
    ]);
  });

  it('refuses an injected row with no rules, at the row', () => {
    const r = check(`engine = "auto"\n[env_from_host]\nK = "${ROW}"\n`);
    expect(r.issues).toEqual([
      expect.objectContaining({
        rule: 'config.inject-undeclared',
        location: { file: FILE, line: 3, column: 1, key: 'env_from_host.K' },
      }),
    ]);
  });

  it('refuses an empty rule list', () => {
    const r = check(`inject = { K = [] }\n[env_from_host]\nK = "${ROW}"\n`);
    expect(r.issues.map((i) => i.rule)).toEqual(['config.inject-hosts-empty']);
  });

  it('refuses a key that is no variable name, or byre’s own', () => {
    const r = check(
      `[[inject.BYRE_X]]\nhosts = ["a.example"]\nbearer = true\n[[inject."1X"]]\nhosts = ["b.example"]\nbearer = true\n`,
    );
    expect(r.issues.map((i) => [i.rule, i.location.key])).toEqual([
      ['config.env-key-invalid', 'inject.1X'],
      ['config.env-key-invalid', 'inject.BYRE_X'],
    ]);
  });

  const rule = (body: string): ConfigIssue[] =>
    check(`[env_from_host]\nK = "${ROW}"\n\n[[inject.K]]\n${body}`).issues;

  it('refuses a rule without hosts, or with none', () => {
    expect(rule('bearer = true\n')).toEqual([
      expect.objectContaining({
        rule: 'config.missing-key',
        location: expect.objectContaining({ key: 'inject.K[0].hosts' }) as unknown,
      }),
    ]);
    expect(rule('hosts = []\nbearer = true\n')[0]).toMatchObject({
      rule: 'config.inject-hosts-empty',
      location: { line: 5, key: 'inject.K[0].hosts' },
    });
  });

  it('refuses each bad host at its index', () => {
    const issues = rule(
      'hosts = ["a.example", "https://b.example", "*.c.example"]\nbearer = true\n',
    );
    expect(issues.map((i) => [i.rule, i.location.key])).toEqual([
      ['config.inject-host-invalid', 'inject.K[0].hosts[1]'],
      ['config.inject-host-invalid', 'inject.K[0].hosts[2]'],
    ]);
    expect(issues[0]?.message).toContain('"https://b.example"');
  });

  it.each([
    ['hosts = ["a.example"]\n', 'says not how'],
    ['hosts = ["a.example"]\nbearer = true\nheader = "x-api-key"\n', 'sets header and bearer'],
    [
      'hosts = ["a.example"]\nbearer = true\nbasic = "u"\nheader = "h"\n',
      'sets header and bearer and basic',
    ],
  ])('refuses a rule presenting other than exactly once: %j', (body, says) => {
    const issues = rule(body);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      rule: 'config.inject-presentation',
      location: { key: 'inject.K[0]' },
    });
    expect(issues[0]?.message).toContain(says);
  });

  it('refuses bearer = false', () => {
    expect(rule('hosts = ["a.example"]\nbearer = false\n')[0]).toMatchObject({
      rule: 'config.inject-presentation',
      location: { line: 6, key: 'inject.K[0].bearer' },
    });
  });

  it.each([
    'Host',
    'content-length',
    'Transfer-Encoding',
    'connection',
    'proxy-authorization',
    'x api key',
    'x:y',
    '',
  ])('refuses header %j', (name) => {
    expect(rule(`hosts = ["a.example"]\nheader = ${JSON.stringify(name)}\n`)[0]).toMatchObject({
      rule: 'config.inject-presentation',
      location: { key: 'inject.K[0].header' },
    });
  });

  it.each(['x-api-key', 'x-goog-api-key', 'Authorization', 'PRIVATE-TOKEN'])(
    'takes header %j',
    (name) => {
      expect(rule(`hosts = ["a.example"]\nheader = "${name}"\n`)).toEqual([]);
    },
  );

  it.each(['', 'a:b', 'a\\u0007b', 'x'.repeat(257)])('refuses basic user %j', (user) => {
    expect(rule(`hosts = ["a.example"]\nbasic = "${user}"\n`)[0]).toMatchObject({
      rule: 'config.inject-presentation',
      location: { key: 'inject.K[0].basic' },
    });
  });

  it('refuses a host given twice, in one key or across keys, at its second mention', () => {
    const twice = check(`[env_from_host]
A = "${ROW}"
B = "${ROW}"

[[inject.A]]
hosts = ["x.example", "y.example"]
bearer = true
[[inject.A]]
hosts = ["X.example:443"]
basic = "u"

[[inject.B]]
hosts = ["y.example", "y.example:8443"]
header = "k"
`);
    expect(twice.issues.map((i) => [i.rule, i.location.key, i.location.line])).toEqual([
      ['config.inject-host-twice', 'inject.A[1].hosts[0]', 9],
      ['config.inject-host-twice', 'inject.B[0].hosts[0]', 13],
    ]);
    expect(twice.issues[0]?.message).toContain('by another rule of A');
    expect(twice.issues[1]?.message).toContain('already given A');
  });
});

const ref = (kind: LayerRef['kind'], name: string = kind): LayerRef => ({
  kind,
  name,
  path: `/${name}`,
});

function layer(r: LayerRef, text: string): LayerInjections {
  const checked = check(text);
  expect(checked.issues).toEqual([]);
  return { ref: r, layer: checked.layer as InjectLayer };
}

describe('the injections of a cascade', () => {
  const globalFile = layer(
    ref('default'),
    `[env_from_host]\nK = "${ROW}"\nP = "env:P"\n[[inject.K]]\nhosts = ["a.example"]\nheader = "X-Key"\n`,
  );

  it('takes the rules from the file whose row won', () => {
    const project = layer(
      ref('project'),
      `[env_from_host]\nK = "${ROW}"\n[[inject.K]]\nhosts = ["b.example:8443"]\nbearer = true\n`,
    );
    expect(effectiveInjections([globalFile, project])).toEqual([
      {
        key: 'K',
        from: ref('project'),
        rules: [{ hosts: [{ name: 'b.example', port: 8443 }], presentation: { kind: 'bearer' } }],
      },
    ]);
    expect(effectiveInjections([globalFile])).toEqual([
      {
        key: 'K',
        from: ref('default'),
        rules: [
          {
            hosts: [{ name: 'a.example', port: 443 }],
            presentation: { kind: 'header', name: 'x-key' },
          },
        ],
      },
    ]);
  });

  it('drops a key a higher layer disables or delivers instead', () => {
    const off = layer(ref('project'), `[env_from_host]\nK = ""\n`);
    expect(effectiveInjections([globalFile, off])).toEqual([]);
    const delivered = layer(
      ref('layer', 'work'),
      `[env_from_host]\nK = "encrypted:0123456789abcdef:YWdl"\n`,
    );
    expect(effectiveInjections([globalFile, delivered])).toEqual([]);
  });

  it('drops a key an [env] key of the same name wins', () => {
    expect(effectiveInjections([globalFile], (k) => k === 'K')).toEqual([]);
  });

  it('sorts by key and finds a host two files give', () => {
    const project = layer(
      ref('project'),
      `[env_from_host]\nA = "${ROW}"\n[[inject.A]]\nhosts = ["a.example"]\nbearer = true\n`,
    );
    const all = effectiveInjections([globalFile, project]);
    expect(all.map((i) => i.key)).toEqual(['A', 'K']);
    expect(injectionConflicts(all)).toEqual([
      expect.objectContaining({
        rule: 'config.inject-host-twice',
        path: ['inject', 'K', 0, 'hosts', 0],
      }),
    ]);
    expect(injectionConflicts(effectiveInjections([globalFile]))).toEqual([]);
  });
});

describe('the sealed binding', () => {
  const parsed = (text: string) => {
    const l = layer(ref('project'), text);
    return effectiveInjections([l])[0]?.rules ?? [];
  };

  it('is the same bytes for the same rules written another way', () => {
    const a = parsed(good.replace('["api.github.com"]', '["API.github.com:443"]'));
    const b = parsed(good);
    expect(injectionBinding(a)).toBe(injectionBinding(b));
  });

  it('differs when a host, a port or a presentation differs', () => {
    const base = injectionBinding(parsed(good));
    expect(base).toBe('[["api.anthropic.com:443","header x-api-key"]]');
    const gh = effectiveInjections([layer(ref('project'), good)]).find(
      (i) => i.key === 'GITHUB_TOKEN',
    );
    expect(injectionBinding(gh?.rules ?? [])).toBe(
      '[["api.github.com:443","bearer"],["github.com:443","basic x-access-token"]]',
    );
    for (const changed of [
      good.replace('"api.anthropic.com"', '"evil.example"'),
      good.replace('"api.anthropic.com"', '"api.anthropic.com:8443"'),
      good.replace('"X-Api-Key"', '"x-other"'),
    ]) {
      expect(injectionBinding(parsed(changed))).not.toBe(base);
    }
  });
});

describe('the canonical binding and develop’s check of it', () => {
  const rule = (hosts: string[], presentation: Presentation): InjectRule => ({
    hosts: hosts.map((h) => parseInjectHost(h) as InjectHost),
    presentation,
  });
  const bearer: Presentation = { kind: 'bearer' };
  const apiKey: Presentation = { kind: 'header', name: 'x-api-key' };
  const git: Presentation = { kind: 'basic', user: 'x-access-token' };
  const sealed = [rule(['api.github.com'], bearer), rule(['github.com'], git)];
  const SEALED = injectionBinding(sealed);

  it('is one exact text: sorted pairs, explicit ports, no spaces', () => {
    expect(SEALED).toBe(
      '[["api.github.com:443","bearer"],["github.com:443","basic x-access-token"]]',
    );
    expect(parseInjectionBinding(SEALED)).toEqual([
      rule(['api.github.com'], bearer),
      rule(['github.com'], git),
    ]);
  });

  it.each([
    ['the rules reversed', [rule(['github.com'], git), rule(['api.github.com'], bearer)]],
    [
      'a host in capitals with its default port',
      [rule(['API.GitHub.com:443'], bearer), rule(['github.com'], git)],
    ],
  ])('accepts the same rules written another way: %s', (_why, rules) => {
    expect(injectionBinding(rules)).toBe(SEALED);
    expect(bindingFindings('GITHUB_TOKEN', SEALED, rules)).toEqual([]);
  });

  it('is order-independent over every permutation of hosts and rules', () => {
    const hosts = ['a.example.com', 'b.example.com:8443', 'c.example.com'];
    const perms = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    const texts = perms.flatMap((p) => {
      const hs = p.map((i) => hosts[i] as string);
      return [
        injectionBinding([rule(hs, apiKey)]),
        injectionBinding(hs.map((h) => rule([h], apiKey))),
      ];
    });
    expect(new Set(texts).size).toBe(1);
  });

  it('orders pairs of one host by presentation, so even rules the config refuses bind one way', () => {
    const twice = [rule(['a.example.com'], bearer), rule(['a.example.com'], apiKey)];
    expect(injectionBinding(twice)).toBe(injectionBinding([...twice].reverse()));
  });

  it.each([
    [
      'a host added',
      [...sealed, rule(['evil.example.com'], bearer)],
      'not sealed: evil.example.com:443 bearer',
    ],
    [
      'a host removed',
      [rule(['api.github.com'], bearer)],
      'sealed but gone: github.com:443 basic x-access-token',
    ],
    [
      'a host swapped',
      [rule(['api.github.com'], bearer), rule(['gitlab.com'], git)],
      'gitlab.com:443',
    ],
    [
      'a port changed',
      [rule(['api.github.com:8443'], bearer), rule(['github.com'], git)],
      'api.github.com:8443 bearer',
    ],
    [
      'bearer become a header',
      [rule(['api.github.com'], apiKey), rule(['github.com'], git)],
      'header x-api-key',
    ],
    [
      'the header name changed',
      [rule(['api.github.com'], { kind: 'header', name: 'x-other' }), rule(['github.com'], git)],
      'header x-other',
    ],
    [
      'the basic user changed',
      [rule(['api.github.com'], bearer), rule(['github.com'], { kind: 'basic', user: 'oauth2' })],
      'basic oauth2',
    ],
    ['every rule gone', [], 'sealed but gone'],
  ])('refuses %s: credential.binding-changed at inject.KEY', (_why, rules, says) => {
    const found = bindingFindings('GITHUB_TOKEN', SEALED, rules);
    expect(found.map((f) => [f.rule, f.path])).toEqual([
      ['credential.binding-changed', ['inject', 'GITHUB_TOKEN']],
    ]);
    expect(found[0]?.message).toContain(says);
    expect(found[0]?.fix).toContain('byre credential add GITHUB_TOKEN --inject');
  });

  it.each([
    ['not JSON', 'api.github.com:443 bearer'],
    ['an empty list', '[]'],
    ['an object', '{"api.github.com:443":"bearer"}'],
    ['spaces', '[["api.github.com:443", "bearer"]]'],
    ['a trailing newline', '[["api.github.com:443","bearer"]]\n'],
    ['no port', '[["api.github.com","bearer"]]'],
    ['a capital', '[["API.github.com:443","bearer"]]'],
    ['a leading-zero port', '[["api.github.com:0443","bearer"]]'],
    ['an address', '[["10.0.0.1:443","bearer"]]'],
    ['unsorted', '[["github.com:443","bearer"],["api.github.com:443","bearer"]]'],
    ['a host twice', '[["a.example.com:443","bearer"],["a.example.com:443","header x-k"]]'],
    ['a pair of three', '[["api.github.com:443","bearer","x"]]'],
    ['a number', '[["api.github.com:443",1]]'],
    ['an unknown presentation', '[["api.github.com:443","cookie x"]]'],
    ['a capital header', '[["api.github.com:443","header X-Api-Key"]]'],
    ['an edge-owned header', '[["api.github.com:443","header host"]]'],
    ['a basic user with a colon', '[["github.com:443","basic a:b"]]'],
    ['a presentation with a NUL', '[["api.github.com:443","bearer\\u0000"]]'],
    ['a plain character escaped', '[["api.github.com:443","\\u0062earer"]]'],
  ])('parseInjectionBinding refuses %s', (_why, line) => {
    expect(parseInjectionBinding(line)).toBeNull();
  });
});
