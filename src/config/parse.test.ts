import { describe, expect, it } from 'vitest';
import { MAX_CONFIG_BYTES, parseLayer } from './parse.js';
import type { LayerKind } from './types.js';

const FILES: Record<LayerKind, string> = {
  core: '(core)',
  default: '/h/.byre/default.config',
  template: '/h/.byre/templates/t/template.config',
  layer: '/h/.byre/layers/work/layer.config',
  project: '/h/.byre/projects/demo-0877d7/byre.config',
};

type LayerSource = Parameters<typeof parseLayer>[1];

function source(kind: LayerKind): LayerSource {
  return { file: FILES[kind], kind, name: kind };
}

function parse(lines: readonly string[], kind: LayerKind = 'project') {
  return parseLayer(lines.join('\n'), source(kind));
}

interface BadCase {
  name: string;
  kind?: LayerKind;
  toml: string[];
  rule: string;
  line: number;
  column: number;
  key: string;
}

/** Every bad input: rule id AND exact location (file, line, column, key). */
const BAD: BadCase[] = [
  // ---- shape
  {
    name: 'unknown top-level key',
    toml: ['engine = "auto"', 'bogus = 1'],
    rule: 'config.unknown-key',
    line: 2,
    column: 1,
    key: 'bogus',
  },
  {
    name: 'top-level dockerfile is unknown',
    toml: ['dockerfile = ["RUN x"]'],
    rule: 'config.unknown-key',
    line: 1,
    column: 1,
    key: 'dockerfile',
  },
  {
    name: 'unknown key in [[mounts]]',
    toml: ['[[mounts]]', 'host = "~/a"', 'target = "/a"', 'readonly = true'],
    rule: 'config.unknown-key',
    line: 4,
    column: 1,
    key: 'mounts[0].readonly',
  },
  {
    name: 'unknown key in an inline seed',
    toml: [
      '[[volumes]]',
      'name = "v"',
      'role = "state"',
      'target = "/v"',
      'seed = { host = "~/x", extra = 1 }',
    ],
    rule: 'config.unknown-key',
    line: 5,
    column: 24,
    key: 'volumes[0].seed.extra',
  },
  {
    name: 'unknown key in [defaults]',
    toml: ['[defaults]', 'skip_question = true'],
    rule: 'config.unknown-key',
    line: 2,
    column: 1,
    key: 'defaults.skip_question',
  },
  {
    name: 'unknown key in [sources.x]',
    toml: ['[sources.pkg]', 'uri = "https://x"', 'sha = "1"'],
    rule: 'config.unknown-key',
    line: 3,
    column: 1,
    key: 'sources.pkg.sha',
  },
  {
    name: '[package] outside a template',
    toml: ['[package]', 'id = "x"'],
    rule: 'config.unknown-key',
    line: 1,
    column: 1,
    key: 'package',
  },
  {
    name: 'string where an engine name goes',
    toml: ['engine = 3'],
    rule: 'config.wrong-type',
    line: 1,
    column: 1,
    key: 'engine',
  },
  {
    name: 'string port',
    toml: ['[[ports]]', 'container = "3000"'],
    rule: 'config.wrong-type',
    line: 2,
    column: 1,
    key: 'ports[0].container',
  },
  {
    name: 'float port',
    toml: ['[[ports]]', 'container = 3000.5'],
    rule: 'config.wrong-type',
    line: 2,
    column: 1,
    key: 'ports[0].container',
  },
  {
    name: 'number in a string list',
    toml: ['apt = ["git", 3]'],
    rule: 'config.wrong-type',
    line: 1,
    column: 15,
    key: 'apt[1]',
  },
  {
    name: 'non-string env value',
    toml: ['env = { A = 1 }'],
    rule: 'config.wrong-type',
    line: 1,
    column: 9,
    key: 'env.A',
  },
  {
    // zod 4 took a date for an empty table: the config loaded without its [defaults].
    name: 'date where a table goes',
    toml: ['defaults = 1979-05-27T07:32:00Z'],
    rule: 'config.wrong-type',
    line: 1,
    column: 1,
    key: 'defaults',
  },
  {
    name: 'date in a list of tables',
    toml: ['ports = [1979-05-27]'],
    rule: 'config.wrong-type',
    line: 1,
    column: 10,
    key: 'ports[0]',
  },
  {
    name: 'date where a string goes',
    toml: ['base = 1979-05-27'],
    rule: 'config.wrong-type',
    line: 1,
    column: 1,
    key: 'base',
  },
  {
    name: 'string seed_prefs',
    toml: ['seed_prefs = "yes"'],
    rule: 'config.wrong-type',
    line: 1,
    column: 1,
    key: 'seed_prefs',
  },
  {
    name: 'shared_auth neither list nor table',
    toml: ['[defaults]', 'shared_auth = 3'],
    rule: 'config.wrong-type',
    line: 2,
    column: 1,
    key: 'defaults.shared_auth',
  },
  {
    name: 'mounts as a table',
    toml: ['[mounts]', 'host = "~/a"'],
    rule: 'config.wrong-type',
    line: 1,
    column: 1,
    key: 'mounts',
  },
  {
    name: 'removed npm_global',
    toml: ['base = "node:22"', 'npm_global = ["x"]'],
    rule: 'config.key-removed',
    line: 2,
    column: 1,
    key: 'npm_global',
  },

  // ---- placement
  {
    name: 'template in a layer (even empty)',
    kind: 'layer',
    toml: ['template = ""'],
    rule: 'config.key-banned-here',
    line: 1,
    column: 1,
    key: 'template',
  },
  {
    name: 'agent in template.config',
    kind: 'template',
    toml: ['agent = "claude"', '[package]', 'id = "t"'],
    rule: 'config.key-banned-here',
    line: 1,
    column: 1,
    key: 'agent',
  },
  {
    name: 'skills in template.config',
    kind: 'template',
    toml: ['base = "x"', 'skills = ["a"]'],
    rule: 'config.key-banned-here',
    line: 2,
    column: 1,
    key: 'skills',
  },
  {
    name: '[sources] in template.config',
    kind: 'template',
    toml: ['[sources.foo]', 'uri = "u"'],
    rule: 'config.key-banned-here',
    line: 1,
    column: 1,
    key: 'sources',
  },
  {
    name: 'extends in template.config',
    kind: 'template',
    toml: ['extends = "work"'],
    rule: 'config.key-banned-here',
    line: 1,
    column: 1,
    key: 'extends',
  },
  {
    name: 'template in template.config',
    kind: 'template',
    toml: ['template = "node"'],
    rule: 'config.key-banned-here',
    line: 1,
    column: 1,
    key: 'template',
  },
  {
    name: 'extends in default.config',
    kind: 'default',
    toml: ['engine = "auto"', 'extends = "work"'],
    rule: 'config.key-banned-here',
    line: 2,
    column: 1,
    key: 'extends',
  },

  // ---- scalars
  {
    name: 'engine typo',
    toml: ['engine = "dockr"'],
    rule: 'config.engine-invalid',
    line: 1,
    column: 1,
    key: 'engine',
  },
  {
    name: 'base not an image ref',
    toml: ['base = "-bad"'],
    rule: 'config.base-invalid',
    line: 1,
    column: 1,
    key: 'base',
  },
  {
    name: 'template name with ..',
    toml: ['template = "../etc"'],
    rule: 'config.template-name-invalid',
    line: 1,
    column: 1,
    key: 'template',
  },
  {
    name: 'agent name with space',
    toml: ['agent = "my agent"'],
    rule: 'config.agent-invalid',
    line: 1,
    column: 1,
    key: 'agent',
  },
  {
    name: 'extends uppercase',
    toml: ['extends = "Work"'],
    rule: 'config.layer-name-invalid',
    line: 1,
    column: 1,
    key: 'extends',
  },
  {
    name: 'extends none is reserved',
    toml: ['extends = "none"'],
    rule: 'config.layer-name-invalid',
    line: 1,
    column: 1,
    key: 'extends',
  },
  {
    name: 'extends a bundled name',
    toml: ['extends = "claude"'],
    rule: 'config.layer-name-invalid',
    line: 1,
    column: 1,
    key: 'extends',
  },
  {
    name: 'extends longer than 64',
    toml: [`extends = "${'a'.repeat(65)}"`],
    rule: 'config.layer-name-invalid',
    line: 1,
    column: 1,
    key: 'extends',
  },
  {
    name: 'extends empty',
    toml: ['extends = ""'],
    rule: 'config.layer-name-invalid',
    line: 1,
    column: 1,
    key: 'extends',
  },
  {
    name: 'worktree_base relative',
    toml: ['worktree_base = "rel/dir"'],
    rule: 'config.worktree-base-invalid',
    line: 1,
    column: 1,
    key: 'worktree_base',
  },
  {
    name: 'worktree_base with comma',
    toml: ['worktree_base = "~/a,b"'],
    rule: 'config.worktree-base-invalid',
    line: 1,
    column: 1,
    key: 'worktree_base',
  },

  // ---- sources
  {
    name: 'source without uri',
    toml: ['[sources.pkg]', `digest = "sha256:${'a'.repeat(64)}"`],
    rule: 'config.missing-key',
    line: 1,
    column: 1,
    key: 'sources.pkg.uri',
  },
  {
    name: 'source uri with whitespace',
    toml: ['[sources.pkg]', 'uri = "https://a b"'],
    rule: 'config.source-uri-invalid',
    line: 2,
    column: 1,
    key: 'sources.pkg.uri',
  },
  {
    name: 'source digest not sha256',
    toml: ['[sources."owner/pkg"]', 'uri = "https://a"', 'digest = "md5:00"'],
    rule: 'config.source-digest-invalid',
    line: 3,
    column: 1,
    key: 'sources["owner/pkg"].digest',
  },

  // ---- lists and maps
  {
    name: 'apt name with leading dash',
    toml: ['apt = ["git", "-bad"]'],
    rule: 'config.apt-invalid',
    line: 1,
    column: 15,
    key: 'apt[1]',
  },
  {
    name: 'apt bare !',
    toml: ['apt = ["!"]'],
    rule: 'config.apt-invalid',
    line: 1,
    column: 8,
    key: 'apt[0]',
  },
  {
    name: 'skills empty string',
    toml: ['skills = ["ok", ""]'],
    rule: 'config.skill-invalid',
    line: 1,
    column: 17,
    key: 'skills[1]',
  },
  {
    name: 'skills bare !',
    toml: ['skills = ["!"]'],
    rule: 'config.skill-invalid',
    line: 1,
    column: 11,
    key: 'skills[0]',
  },
  {
    name: 'env key starting with a digit',
    toml: ['env = { "1X" = "a" }'],
    rule: 'config.env-key-invalid',
    line: 1,
    column: 9,
    key: 'env.1X',
  },
  {
    name: 'env key with a dash',
    toml: ['[env]', '"A-B" = "a"'],
    rule: 'config.env-key-invalid',
    line: 2,
    column: 1,
    key: 'env.A-B',
  },
  {
    name: 'env BYRE_ prefix',
    toml: ['[env]', 'BYRE_FOO = "x"'],
    rule: 'config.env-reserved',
    line: 2,
    column: 1,
    key: 'env.BYRE_FOO',
  },
  {
    name: 'env value with a line feed (an image ENV line cannot carry it)',
    toml: ['[env]', 'NOTE = "line one\\nline two"'],
    rule: 'config.env-value-unbakeable',
    line: 2,
    column: 1,
    key: 'env.NOTE',
  },
  {
    name: 'env value with a NUL',
    toml: ['env = { A = "a\\u0000b" }'],
    rule: 'config.env-value-unbakeable',
    line: 1,
    column: 9,
    key: 'env.A',
  },
  {
    name: 'env_from_host literal value',
    toml: ['env_from_host = { A = "literal" }'],
    rule: 'config.env-source-invalid',
    line: 1,
    column: 19,
    key: 'env_from_host.A',
  },
  {
    name: 'env_from_host git: without key',
    toml: ['[env_from_host]', 'A = "git:"'],
    rule: 'config.env-source-invalid',
    line: 2,
    column: 1,
    key: 'env_from_host.A',
  },
  {
    name: 'env_from_host git: bad key',
    toml: ['[env_from_host]', 'A = "git:.user"'],
    rule: 'config.env-source-invalid',
    line: 2,
    column: 1,
    key: 'env_from_host.A',
  },
  {
    name: 'env_from_host env: bad var',
    toml: ['[env_from_host]', 'A = "env:1BAD"'],
    rule: 'config.env-source-invalid',
    line: 2,
    column: 1,
    key: 'env_from_host.A',
  },
  {
    name: 'env_from_host tz: with argument',
    toml: ['[env_from_host]', 'TZ = "tz:UTC"'],
    rule: 'config.env-source-invalid',
    line: 2,
    column: 1,
    key: 'env_from_host.TZ',
  },
  {
    name: 'env_from_host encrypted:',
    toml: ['[env_from_host]', 'TOKEN = "encrypted:AGE..."'],
    rule: 'config.env-source-invalid',
    line: 2,
    column: 1,
    key: 'env_from_host.TOKEN',
  },
  {
    name: 'env_from_host encrypted-file:',
    toml: ['[env_from_host]', 'TOKEN = "encrypted-file:~/t.age"'],
    rule: 'config.env-source-invalid',
    line: 2,
    column: 1,
    key: 'env_from_host.TOKEN',
  },
  {
    name: 'env_from_host BYRE_ key',
    toml: ['[env_from_host]', 'BYRE_X = "env:X"'],
    rule: 'config.env-reserved',
    line: 2,
    column: 1,
    key: 'env_from_host.BYRE_X',
  },
  {
    name: 'env_from_host bad key',
    toml: ['[env_from_host]', '"A.B" = "env:X"'],
    rule: 'config.env-key-invalid',
    line: 2,
    column: 1,
    key: 'env_from_host["A.B"]',
  },
  {
    name: 'files absolute source',
    toml: ['[files]', '"/etc/x" = "/opt/x"'],
    rule: 'config.files-src-invalid',
    line: 2,
    column: 1,
    key: 'files["/etc/x"]',
  },
  {
    name: 'files source escaping the project',
    toml: ['[files]', '"a/../../up" = "/opt/x"'],
    rule: 'config.files-src-invalid',
    line: 2,
    column: 1,
    key: 'files["a/../../up"]',
  },
  {
    name: 'files relative destination',
    toml: ["files = { './a' = 'opt/a' }"],
    rule: 'config.files-dest-not-absolute',
    line: 1,
    column: 11,
    key: 'files["./a"]',
  },
  {
    name: 'files destination with a control character',
    toml: ['files = { \'./a\' = "/opt/a\\tb" }'],
    rule: 'config.files-dest-not-absolute',
    line: 1,
    column: 11,
    key: 'files["./a"]',
  },

  // ---- mounts
  {
    name: 'mount without target',
    toml: ['[[mounts]]', 'host = "~/a"'],
    rule: 'config.missing-key',
    line: 1,
    column: 1,
    key: 'mounts[0].target',
  },
  {
    name: 'mount without host',
    toml: ['[[mounts]]', 'target = "/a"'],
    rule: 'config.missing-key',
    line: 1,
    column: 1,
    key: 'mounts[0].host',
  },
  {
    name: 'mount host relative',
    toml: ['[[mounts]]', 'host = "rel"', 'target = "/a"'],
    rule: 'config.mount-host-invalid',
    line: 2,
    column: 1,
    key: 'mounts[0].host',
  },
  {
    name: 'mount host with comma',
    toml: ['[[mounts]]', 'host = "~/a,b"', 'target = "/a"'],
    rule: 'config.mount-host-invalid',
    line: 2,
    column: 1,
    key: 'mounts[0].host',
  },
  {
    name: 'mount target relative',
    toml: ['[[mounts]]', 'host = "~/a"', 'target = "a"'],
    rule: 'config.mount-target-not-absolute',
    line: 3,
    column: 1,
    key: 'mounts[0].target',
  },
  {
    name: 'second mount target relative',
    toml: [
      '[[mounts]]',
      'host = "~/a"',
      'target = "/a"',
      '',
      '[[mounts]]',
      'host = "~/b"',
      'target = "b"',
    ],
    rule: 'config.mount-target-not-absolute',
    line: 7,
    column: 1,
    key: 'mounts[1].target',
  },
  {
    name: 'inline mount target relative',
    toml: ['mounts = [{ host = "~/a", target = "rel" }]'],
    rule: 'config.mount-target-not-absolute',
    line: 1,
    column: 27,
    key: 'mounts[0].target',
  },
  {
    name: 'mount target with comma',
    toml: ['[[mounts]]', 'host = "~/a"', 'target = "/a,b"'],
    rule: 'config.mount-target-invalid',
    line: 3,
    column: 1,
    key: 'mounts[0].target',
  },
  {
    name: 'mount target with control char',
    toml: ['[[mounts]]', 'host = "~/a"', 'target = "/a\\u0001"'],
    rule: 'config.mount-target-invalid',
    line: 3,
    column: 1,
    key: 'mounts[0].target',
  },
  {
    name: 'mount mode typo',
    toml: ['[[mounts]]', 'host = "~/a"', 'target = "/a"', 'mode = "rx"'],
    rule: 'config.mount-mode-invalid',
    line: 4,
    column: 1,
    key: 'mounts[0].mode',
  },
  {
    name: 'mount removal with extra keys',
    toml: ['[[mounts]]', 'target = "!/a"', 'mode = "rw"'],
    rule: 'config.removal-extra-keys',
    line: 3,
    column: 1,
    key: 'mounts[0].mode',
  },
  {
    name: 'mount removal of a relative target',
    toml: ['[[mounts]]', 'target = "!a"'],
    rule: 'config.mount-target-not-absolute',
    line: 2,
    column: 1,
    key: 'mounts[0].target',
  },
  {
    name: 'two mounts on one target',
    toml: [
      '[[mounts]]',
      'host = "~/a"',
      'target = "/a"',
      '[[mounts]]',
      'host = "~/b"',
      'target = "/a/"',
    ],
    rule: 'config.target-collision',
    line: 6,
    column: 1,
    key: 'mounts[1].target',
  },
  {
    name: 'a disabled mount still claims its target',
    toml: [
      '[[mounts]]',
      'host = "~/a"',
      'target = "/a"',
      'disabled = true',
      '[[mounts]]',
      'host = "~/b"',
      'target = "/a"',
    ],
    rule: 'config.target-collision',
    line: 7,
    column: 1,
    key: 'mounts[1].target',
  },
  {
    name: 'a disabled mount on a volume target',
    toml: [
      '[[volumes]]',
      'name = "v"',
      'role = "cache"',
      'target = "/cache"',
      '[[mounts]]',
      'host = "~/a"',
      'target = "/cache"',
      'disabled = true',
    ],
    rule: 'config.target-collision',
    line: 4,
    column: 1,
    key: 'volumes[0].target',
  },

  // ---- ports
  {
    name: 'port without container',
    toml: ['[[ports]]', 'host = 80'],
    rule: 'config.missing-key',
    line: 1,
    column: 1,
    key: 'ports[0].container',
  },
  {
    name: 'container port 0',
    toml: ['[[ports]]', 'container = 0'],
    rule: 'config.port-range',
    line: 2,
    column: 1,
    key: 'ports[0].container',
  },
  {
    name: 'container port 65536',
    toml: ['[[ports]]', 'container = 65536'],
    rule: 'config.port-range',
    line: 2,
    column: 1,
    key: 'ports[0].container',
  },
  {
    name: 'host port 70000',
    toml: ['[[ports]]', 'container = 80', 'host = 70000'],
    rule: 'config.port-range',
    line: 3,
    column: 1,
    key: 'ports[0].host',
  },
  {
    name: 'host port negative',
    toml: ['[[ports]]', 'container = 80', 'host = -1'],
    rule: 'config.port-range',
    line: 3,
    column: 1,
    key: 'ports[0].host',
  },
  {
    name: 'interface hostname',
    toml: ['[[ports]]', 'container = 80', 'interface = "localhost"'],
    rule: 'config.port-interface-invalid',
    line: 3,
    column: 1,
    key: 'ports[0].interface',
  },
  {
    name: 'interface non-canonical IPv4',
    toml: ['[[ports]]', 'container = 80', 'interface = "127.0.0.01"'],
    rule: 'config.port-interface-invalid',
    line: 3,
    column: 1,
    key: 'ports[0].interface',
  },
  {
    name: 'interface IPv6',
    toml: ['[[ports]]', 'container = 80', 'interface = "::1"'],
    rule: 'config.port-interface-invalid',
    line: 3,
    column: 1,
    key: 'ports[0].interface',
  },
  {
    name: 'port removal with host',
    toml: ['[[ports]]', 'container = 80', 'remove = true', 'host = 8080'],
    rule: 'config.removal-extra-keys',
    line: 4,
    column: 1,
    key: 'ports[0].host',
  },
  {
    name: 'port removal with interface',
    toml: ['ports = [{ container = 80, remove = true, interface = "0.0.0.0" }]'],
    rule: 'config.removal-extra-keys',
    line: 1,
    column: 43,
    key: 'ports[0].interface',
  },
  {
    name: 'two ports on one host port',
    toml: ['ports = [{ container = 80 }, { container = 8080, host = 80 }]'],
    rule: 'config.port-collision',
    line: 1,
    column: 30,
    key: 'ports[1]',
  },
  {
    name: 'the last binding of a port collides, not the replaced one',
    toml: [
      'ports = [{ container = 80, host = 9000 }, { container = 80, host = 8080 }, { container = 81, host = 8080 }]',
    ],
    rule: 'config.port-collision',
    line: 1,
    column: 76,
    key: 'ports[2]',
  },
  {
    name: '0.0.0.0 plus another interface',
    toml: [
      '[[ports]]',
      'container = 80',
      'interface = "0.0.0.0"',
      '[[ports]]',
      'container = 81',
      'host = 80',
    ],
    rule: 'config.port-collision',
    line: 4,
    column: 1,
    key: 'ports[1]',
  },

  // ---- volumes
  {
    name: 'volume without name',
    toml: ['[[volumes]]', 'role = "cache"'],
    rule: 'config.missing-key',
    line: 1,
    column: 1,
    key: 'volumes[0].name',
  },
  {
    name: 'volume name with space',
    toml: ['[[volumes]]', 'name = "a b"', 'role = "cache"', 'target = "/v"'],
    rule: 'config.volume-name-invalid',
    line: 2,
    column: 1,
    key: 'volumes[0].name',
  },
  {
    name: 'volume without role',
    toml: ['[[volumes]]', 'name = "v"', 'target = "/v"'],
    rule: 'config.missing-key',
    line: 1,
    column: 1,
    key: 'volumes[0].role',
  },
  {
    name: 'volume role typo',
    toml: ['[[volumes]]', 'name = "v"', 'role = "cash"', 'target = "/v"'],
    rule: 'config.volume-role-invalid',
    line: 3,
    column: 1,
    key: 'volumes[0].role',
  },
  {
    name: 'volume target relative',
    toml: ['[[volumes]]', 'name = "v"', 'role = "cache"', 'target = "v"'],
    rule: 'config.volume-target-not-absolute',
    line: 4,
    column: 1,
    key: 'volumes[0].target',
  },
  {
    name: 'volume scope typo',
    toml: ['[[volumes]]', 'name = "v"', 'role = "cache"', 'target = "/v"', 'scope = "global"'],
    rule: 'config.volume-scope-invalid',
    line: 5,
    column: 1,
    key: 'volumes[0].scope',
  },
  {
    name: 'volume sharing typo',
    toml: ['[[volumes]]', 'name = "v"', 'role = "cache"', 'target = "/v"', 'sharing = "single"'],
    rule: 'config.volume-sharing-invalid',
    line: 5,
    column: 1,
    key: 'volumes[0].sharing',
  },
  {
    name: 'exclusive on machine scope',
    toml: [
      '[[volumes]]',
      'name = "v"',
      'role = "cache"',
      'target = "/v"',
      'scope = "machine"',
      'sharing = "exclusive"',
    ],
    rule: 'config.volume-exclusive-on-machine',
    line: 6,
    column: 1,
    key: 'volumes[0].sharing',
  },
  {
    name: 'seed on a machine volume',
    toml: [
      '[[volumes]]',
      'name = "v"',
      'role = "state"',
      'target = "/v"',
      'scope = "machine"',
      '[volumes.seed]',
      'host = "~/x"',
    ],
    rule: 'config.volume-seed-on-machine',
    line: 6,
    column: 1,
    key: 'volumes[0].seed',
  },
  {
    name: 'seed on a cache volume',
    toml: [
      '[[volumes]]',
      'name = "v"',
      'role = "cache"',
      'target = "/v"',
      'seed = { host = "~/x" }',
    ],
    rule: 'config.volume-seed-not-state',
    line: 5,
    column: 1,
    key: 'volumes[0].seed',
  },
  {
    name: 'seed with host and literal',
    toml: [
      '[[volumes]]',
      'name = "v"',
      'role = "state"',
      'target = "/v"',
      'seed = { host = "~/x", literal = "y", path = "f" }',
    ],
    rule: 'config.volume-seed-invalid',
    line: 5,
    column: 1,
    key: 'volumes[0].seed',
  },
  {
    name: 'seed with neither',
    toml: ['[[volumes]]', 'name = "v"', 'role = "state"', 'target = "/v"', '[volumes.seed]'],
    rule: 'config.volume-seed-invalid',
    line: 5,
    column: 1,
    key: 'volumes[0].seed',
  },
  {
    name: 'literal seed without path',
    toml: [
      '[[volumes]]',
      'name = "v"',
      'role = "state"',
      'target = "/v"',
      '[volumes.seed]',
      'literal = "{}"',
    ],
    rule: 'config.volume-seed-invalid',
    line: 5,
    column: 1,
    key: 'volumes[0].seed.path',
  },
  {
    name: 'literal seed with absolute path',
    toml: [
      '[[volumes]]',
      'name = "v"',
      'role = "state"',
      'target = "/v"',
      '[volumes.seed]',
      'literal = "{}"',
      'path = "/etc/x"',
    ],
    rule: 'config.volume-seed-invalid',
    line: 7,
    column: 1,
    key: 'volumes[0].seed.path',
  },
  {
    name: 'host seed relative',
    toml: [
      '[[volumes]]',
      'name = "v"',
      'role = "state"',
      'target = "/v"',
      '[volumes.seed]',
      'host = "rel"',
    ],
    rule: 'config.volume-seed-invalid',
    line: 6,
    column: 1,
    key: 'volumes[0].seed.host',
  },
  {
    name: 'duplicate volume names',
    toml: [
      '[[volumes]]',
      'name = "v"',
      'role = "cache"',
      'target = "/v"',
      '[[volumes]]',
      'name = "v"',
      'role = "cache"',
      'target = "/w"',
    ],
    rule: 'config.volume-duplicate',
    line: 6,
    column: 1,
    key: 'volumes[1].name',
  },
  {
    name: 'volume removal with extra keys',
    toml: ['[[volumes]]', 'name = "!v"', 'role = "cache"'],
    rule: 'config.removal-extra-keys',
    line: 3,
    column: 1,
    key: 'volumes[0].role',
  },
  {
    name: 'volume target collides with a mount',
    toml: [
      '[[mounts]]',
      'host = "~/a"',
      'target = "/data"',
      '[[volumes]]',
      'name = "v"',
      'role = "cache"',
      'target = "/data/"',
    ],
    rule: 'config.target-collision',
    line: 7,
    column: 1,
    key: 'volumes[0].target',
  },

  // ---- egress
  {
    name: 'bare IPv6 egress',
    toml: ['egress = ["ok.com", "2001:db8::1"]'],
    rule: 'config.egress-invalid',
    line: 1,
    column: 21,
    key: 'egress[1]',
  },
  {
    name: 'egress port out of range',
    toml: ['egress = [', '  "ok.com:99999",', ']'],
    rule: 'config.egress-invalid',
    line: 2,
    column: 3,
    key: 'egress[0]',
  },
  {
    name: 'egress bad host',
    toml: ['egress = ["-x.com"]'],
    rule: 'config.egress-invalid',
    line: 1,
    column: 11,
    key: 'egress[0]',
  },
  {
    name: 'egress_offered bad entry',
    toml: ['egress_offered = ["a b"]'],
    rule: 'config.egress-invalid',
    line: 1,
    column: 19,
    key: 'egress_offered[0]',
  },

  // ---- mcp
  {
    name: 'mcp without name',
    toml: ['[[mcp]]', 'url = "https://x"'],
    rule: 'config.missing-key',
    line: 1,
    column: 1,
    key: 'mcp[0].name',
  },
  {
    name: 'mcp name uppercase',
    toml: ['[[mcp]]', 'name = "GH"', 'command = ["x"]'],
    rule: 'config.mcp-name-invalid',
    line: 2,
    column: 1,
    key: 'mcp[0].name',
  },
  {
    name: 'mcp name too long',
    toml: ['[[mcp]]', `name = "${'a'.repeat(65)}"`, 'command = ["x"]'],
    rule: 'config.mcp-name-invalid',
    line: 2,
    column: 1,
    key: 'mcp[0].name',
  },
  {
    name: 'mcp with command and url',
    toml: ['[[mcp]]', 'name = "a"', 'command = ["x"]', 'url = "https://x"'],
    rule: 'config.mcp-command-and-url',
    line: 1,
    column: 1,
    key: 'mcp[0]',
  },
  {
    name: 'mcp with neither',
    toml: ['[[mcp]]', 'name = "a"'],
    rule: 'config.mcp-needs-command-or-url',
    line: 1,
    column: 1,
    key: 'mcp[0]',
  },
  {
    name: 'mcp with empty command',
    toml: ['[[mcp]]', 'name = "a"', 'command = []'],
    rule: 'config.mcp-needs-command-or-url',
    line: 1,
    column: 1,
    key: 'mcp[0]',
  },
  {
    name: 'mcp ftp url',
    toml: ['[[mcp]]', 'name = "a"', 'url = "ftp://x"'],
    rule: 'config.mcp-url-invalid',
    line: 3,
    column: 1,
    key: 'mcp[0].url',
  },
  {
    name: 'mcp url port 0',
    toml: ['[[mcp]]', 'name = "a"', 'url = "https://x:0/mcp"'],
    rule: 'config.mcp-url-invalid',
    line: 3,
    column: 1,
    key: 'mcp[0].url',
  },
  {
    name: 'mcp url port 70000',
    toml: ['[[mcp]]', 'name = "a"', 'url = "https://x:70000/mcp"'],
    rule: 'config.mcp-url-invalid',
    line: 3,
    column: 1,
    key: 'mcp[0].url',
  },
  {
    name: 'mcp not a url',
    toml: ['[[mcp]]', 'name = "a"', 'url = "not a url"'],
    rule: 'config.mcp-url-invalid',
    line: 3,
    column: 1,
    key: 'mcp[0].url',
  },
  {
    name: 'mcp with an empty program',
    toml: ['[[mcp]]', 'name = "a"', 'command = [""]'],
    rule: 'config.mcp-command-empty',
    line: 3,
    column: 12,
    key: 'mcp[0].command[0]',
  },
  {
    name: 'mcp with an empty argument',
    toml: ['[[mcp]]', 'name = "a"', 'command = ["srv", ""]'],
    rule: 'config.mcp-command-empty',
    line: 3,
    column: 19,
    key: 'mcp[0].command[1]',
  },
  {
    name: 'mcp with an empty argument after a good one',
    toml: ['[[mcp]]', 'name = "a"', 'command = ["srv", "stdio", ""]'],
    rule: 'config.mcp-command-empty',
    line: 3,
    column: 28,
    key: 'mcp[0].command[2]',
  },
  {
    name: 'mcp with a whitespace-only program',
    toml: ['[[mcp]]', 'name = "a"', 'command = ["  ", "stdio"]'],
    rule: 'config.mcp-command-blank',
    line: 3,
    column: 12,
    key: 'mcp[0].command[0]',
  },
  {
    name: 'mcp command with ESC',
    toml: ['[[mcp]]', 'name = "a"', 'command = ["srv", "\\u001b[31mred"]'],
    rule: 'config.mcp-control-chars',
    line: 3,
    column: 19,
    key: 'mcp[0].command[1]',
  },
  {
    name: 'mcp command with a C1 control (U+0085)',
    toml: ['[[mcp]]', 'name = "a"', 'command = ["srv\\u0085"]'],
    rule: 'config.mcp-control-chars',
    line: 3,
    column: 12,
    key: 'mcp[0].command[0]',
  },
  {
    name: 'mcp command with a C1 CSI (U+009B)',
    toml: ['[[mcp]]', 'name = "a"', 'command = ["srv", "\\u009b2J"]'],
    rule: 'config.mcp-control-chars',
    line: 3,
    column: 19,
    key: 'mcp[0].command[1]',
  },
  {
    name: 'mcp header value with ESC',
    toml: [
      '[[mcp]]',
      'name = "a"',
      'url = "https://h/mcp"',
      'headers = { X-A = "v\\u001b]0;t\\u0007" }',
    ],
    rule: 'config.mcp-control-chars',
    line: 4,
    column: 13,
    key: 'mcp[0].headers.X-A',
  },
  {
    name: 'mcp header value with a C1 control',
    toml: ['[[mcp]]', 'name = "a"', 'url = "https://h/mcp"', '[mcp.headers]', 'X-A = "v\\u0090"'],
    rule: 'config.mcp-control-chars',
    line: 5,
    column: 1,
    key: 'mcp[0].headers.X-A',
  },
  {
    name: 'mcp url with no host',
    toml: ['[[mcp]]', 'name = "a"', 'url = "https:///mcp"'],
    rule: 'config.mcp-url-invalid',
    line: 3,
    column: 1,
    key: 'mcp[0].url',
  },
  {
    name: 'mcp url with only userinfo and port',
    toml: ['[[mcp]]', 'name = "a"', 'url = "http://user@:8080/mcp"'],
    rule: 'config.mcp-url-invalid',
    line: 3,
    column: 1,
    key: 'mcp[0].url',
  },
  {
    name: 'mcp url with one slash',
    toml: ['[[mcp]]', 'name = "a"', 'url = "https:/mcp.example.com"'],
    rule: 'config.mcp-url-invalid',
    line: 3,
    column: 1,
    key: 'mcp[0].url',
  },
  {
    name: 'mcp url with a tab the URL parser would drop',
    toml: ['[[mcp]]', 'name = "a"', 'url = "https://h\\t.example/mcp"'],
    rule: 'config.mcp-url-invalid',
    line: 3,
    column: 1,
    key: 'mcp[0].url',
  },
  {
    name: 'mcp headers on a local server',
    toml: ['[[mcp]]', 'name = "a"', 'command = ["x"]', 'headers = { A = "b" }'],
    rule: 'config.mcp-headers-local',
    line: 4,
    column: 1,
    key: 'mcp[0].headers',
  },
  {
    name: 'mcp duplicate header names',
    toml: [
      '[[mcp]]',
      'name = "a"',
      'url = "https://x"',
      'headers = { Authorization = "a", authorization = "b" }',
    ],
    rule: 'config.mcp-header-duplicate',
    line: 4,
    column: 34,
    key: 'mcp[0].headers.authorization',
  },
  {
    name: 'mcp header name invalid',
    toml: ['[[mcp]]', 'name = "a"', 'url = "https://x"', '[mcp.headers]', '"X Y" = "b"'],
    rule: 'config.mcp-header-invalid',
    line: 5,
    column: 1,
    key: 'mcp[0].headers["X Y"]',
  },
  {
    name: 'mcp env entry not a name',
    toml: ['[[mcp]]', 'name = "a"', 'command = ["x"]', 'env = ["1A"]'],
    rule: 'config.mcp-env-invalid',
    line: 4,
    column: 8,
    key: 'mcp[0].env[0]',
  },
  {
    name: 'mcp egress closure',
    toml: ['[[mcp]]', 'name = "a"', 'url = "https://x"', 'egress = ["!x.com"]'],
    rule: 'config.egress-invalid',
    line: 4,
    column: 11,
    key: 'mcp[0].egress[0]',
  },
  {
    name: 'mcp egress bare IPv6',
    toml: ['[[mcp]]', 'name = "a"', 'url = "https://x"', 'egress = ["::1"]'],
    rule: 'config.egress-invalid',
    line: 4,
    column: 11,
    key: 'mcp[0].egress[0]',
  },
  {
    name: 'mcp duplicate names',
    toml: ['[[mcp]]', 'name = "a"', 'command = ["x"]', '[[mcp]]', 'name = "a"', 'command = ["y"]'],
    rule: 'config.mcp-duplicate',
    line: 5,
    column: 1,
    key: 'mcp[1].name',
  },
  {
    name: 'mcp removal with extra keys',
    toml: ['[[mcp]]', 'name = "!a"', 'url = "https://x"'],
    rule: 'config.removal-extra-keys',
    line: 3,
    column: 1,
    key: 'mcp[0].url',
  },

  // ---- claude skills
  {
    name: 'claude skill without name',
    toml: ['[[claude_skills]]', 'path = "~/s"'],
    rule: 'config.missing-key',
    line: 1,
    column: 1,
    key: 'claude_skills[0].name',
  },
  {
    name: 'claude skill name invalid',
    toml: ['[[claude_skills]]', 'name = "TDD"', 'path = "~/s"'],
    rule: 'config.claude-skill-name-invalid',
    line: 2,
    column: 1,
    key: 'claude_skills[0].name',
  },
  {
    name: 'claude skill without path',
    toml: ['[[claude_skills]]', 'name = "tdd"'],
    rule: 'config.missing-key',
    line: 1,
    column: 1,
    key: 'claude_skills[0].path',
  },
  {
    name: 'claude skill relative path',
    toml: ['[[claude_skills]]', 'name = "tdd"', 'path = "skills/tdd"'],
    rule: 'config.claude-skill-path-invalid',
    line: 3,
    column: 1,
    key: 'claude_skills[0].path',
  },
  {
    name: 'claude skill duplicate',
    toml: [
      '[[claude_skills]]',
      'name = "tdd"',
      'path = "~/a"',
      '[[claude_skills]]',
      'name = "tdd"',
      'path = "~/b"',
    ],
    rule: 'config.claude-skill-duplicate',
    line: 5,
    column: 1,
    key: 'claude_skills[1].name',
  },
  {
    name: 'claude skill removal with path',
    toml: ['[[claude_skills]]', 'name = "!tdd"', 'path = "~/b"'],
    rule: 'config.removal-extra-keys',
    line: 3,
    column: 1,
    key: 'claude_skills[0].path',
  },

  // ---- context
  {
    name: 'context without name',
    toml: ['[[context]]', 'text = "x"'],
    rule: 'config.missing-key',
    line: 1,
    column: 1,
    key: 'context[0].name',
  },
  {
    name: 'context name invalid',
    toml: ['[[context]]', 'name = "a b"', 'text = "x"'],
    rule: 'config.context-name-invalid',
    line: 2,
    column: 1,
    key: 'context[0].name',
  },
  {
    name: 'context name upper-case',
    toml: ['[[context]]', 'name = "House"', 'text = "x"'],
    rule: 'config.context-name-invalid',
    line: 2,
    column: 1,
    key: 'context[0].name',
  },
  {
    name: 'context name with a dot',
    toml: ['[[context]]', 'name = "rules.md"', 'text = "x"'],
    rule: 'config.context-name-invalid',
    line: 2,
    column: 1,
    key: 'context[0].name',
  },
  {
    name: 'context name with an underscore',
    toml: ['[[context]]', 'name = "house_rules"', 'text = "x"'],
    rule: 'config.context-name-invalid',
    line: 2,
    column: 1,
    key: 'context[0].name',
  },
  {
    name: 'context name too long',
    toml: ['[[context]]', `name = "${'a'.repeat(65)}"`, 'text = "x"'],
    rule: 'config.context-name-invalid',
    line: 2,
    column: 1,
    key: 'context[0].name',
  },
  {
    name: 'context removal outside the grammar',
    toml: ['[[context]]', 'name = "!Rules"'],
    rule: 'config.context-name-invalid',
    line: 2,
    column: 1,
    key: 'context[0].name',
  },
  {
    name: 'context text with a C1 control (U+0085)',
    toml: ['[[context]]', 'name = "r"', 'text = "next\\u0085line"'],
    rule: 'config.context-control-chars',
    line: 3,
    column: 1,
    key: 'context[0].text',
  },
  {
    name: 'context text with a C1 CSI (U+009B)',
    toml: ['[[context]]', 'name = "r"', 'text = "\\u009b31mred"'],
    rule: 'config.context-control-chars',
    line: 3,
    column: 1,
    key: 'context[0].text',
  },
  {
    name: 'context text with a carriage return',
    toml: ['[[context]]', 'name = "r"', 'text = "a\\rb"'],
    rule: 'config.context-control-chars',
    line: 3,
    column: 1,
    key: 'context[0].text',
  },
  {
    name: 'context with text and file',
    toml: ['[[context]]', 'name = "r"', 'text = "x"', 'file = "~/x.md"'],
    rule: 'config.context-text-or-file',
    line: 1,
    column: 1,
    key: 'context[0]',
  },
  {
    name: 'context with neither',
    toml: ['[[context]]', 'name = "r"'],
    rule: 'config.context-text-or-file',
    line: 1,
    column: 1,
    key: 'context[0]',
  },
  {
    name: 'context text with a bell',
    toml: ['[[context]]', 'name = "r"', 'text = "ding\\u0007"'],
    rule: 'config.context-control-chars',
    line: 3,
    column: 1,
    key: 'context[0].text',
  },
  {
    name: 'context text with ESC',
    toml: ['[[context]]', 'name = "r"', 'text = "\\u001b[31mred"'],
    rule: 'config.context-control-chars',
    line: 3,
    column: 1,
    key: 'context[0].text',
  },
  {
    name: 'context relative file',
    toml: ['[[context]]', 'name = "r"', 'file = "notes.md"'],
    rule: 'config.context-file-invalid',
    line: 3,
    column: 1,
    key: 'context[0].file',
  },
  {
    name: 'context duplicate',
    toml: ['[[context]]', 'name = "r"', 'text = "a"', '[[context]]', 'name = "r"', 'text = "b"'],
    rule: 'config.context-duplicate',
    line: 5,
    column: 1,
    key: 'context[1].name',
  },
  {
    name: 'context removal with text',
    toml: ['[[context]]', 'name = "!r"', 'text = "a"'],
    rule: 'config.removal-extra-keys',
    line: 3,
    column: 1,
    key: 'context[0].text',
  },
];

describe('parseLayer: every bad input names its rule and location', () => {
  it.each(BAD)('$name → $rule at $line:$column ($key)', (c) => {
    const kind = c.kind ?? 'project';
    const result = parse(c.toml, kind);
    expect(result.value).toBeNull();
    const found = result.issues.filter((i) => i.rule === c.rule);
    expect(found.length, JSON.stringify(result.issues, null, 1)).toBeGreaterThan(0);
    expect(found.map((i) => i.location)).toContainEqual({
      file: FILES[kind],
      line: c.line,
      column: c.column,
      key: c.key,
    });
    for (const issue of result.issues) {
      expect(issue.message.length).toBeGreaterThan(0);
      expect(issue.fix?.length ?? 0).toBeGreaterThan(0);
    }
  });
});

describe('parseLayer: a files destination', () => {
  it('says why an absolute destination with a control character is refused', () => {
    const messages = (toml: string) => parse([toml]).issues.map((i) => i.message);
    expect(messages('files = { "./a" = "/opt/a\\tb" }')).toEqual([
      'files destination "/opt/a\\tb" must be an absolute path in the box, with no control characters',
    ]);
    expect(messages('files = { "./a" = "opt/a" }')).toEqual([
      'files destination "opt/a" must be an absolute path in the box',
    ]);
  });
});

describe('parseLayer: file-level failures', () => {
  it('reports a TOML syntax error at its position', () => {
    const result = parse(['engine = "docker"', 'base = = 1']);
    expect(result.value).toBeNull();
    expect(result.issues).toEqual([
      expect.objectContaining({
        rule: 'config.toml-syntax',
        location: { file: FILES.project, line: 2, column: 8 },
      }),
    ]);
    expect(result.issues[0]?.message).toMatch(/^invalid TOML: /);
  });

  // smol-toml's own message names neither the key nor the first definition.
  const REDEFINED: [string, string[], string, [number, number], string][] = [
    [
      'a key',
      ['engine = "docker"', 'engine = "podman"'],
      'engine',
      [2, 1],
      'at line 1 and again at line 2',
    ],
    [
      'a table',
      ['[env]', 'A = "1"', '', '[env]', 'B = "2"'],
      'env',
      [4, 2],
      'at line 1 and again at line 4',
    ],
    [
      'a value, then a table',
      ['env = { A = "1" }', '[env]'],
      'env',
      [2, 2],
      'at line 1 and again at line 2',
    ],
    [
      'a dotted key, then a value',
      ['a.b = 1', 'a = 2'],
      'a',
      [2, 1],
      'at line 1 and again at line 2',
    ],
    [
      'a key in an array-of-tables entry',
      ['[[mounts]]', 'host = "~/a"', 'host = "~/b"'],
      'mounts[0].host',
      [3, 1],
      'at line 2 and again at line 3',
    ],
    [
      'a key in one inline table',
      ['env = { A = "1", A = "2" }'],
      'env.A',
      [1, 18],
      'at line 1, column 9 and again at line 1, column 18',
    ],
    [
      'a table, then an array of tables',
      ['[mounts]', 'x = 1', '[[mounts]]'],
      'mounts',
      [3, 3],
      'at line 1 and again at line 3',
    ],
    ['a quoted key', ['"apt" = []', 'apt = []'], 'apt', [2, 1], 'at line 1 and again at line 2'],
  ];
  it.each(REDEFINED)(
    'names the key and both lines for %s',
    (_name, toml, key, [line, column], where) => {
      const result = parse(toml);
      expect(result.value).toBeNull();
      expect(result.issues).toEqual([
        expect.objectContaining({
          rule: 'config.toml-redefined',
          location: { file: FILES.project, line, column, key },
        }),
      ]);
      expect(result.issues[0]?.message).toContain(`is defined twice, ${where}`);
    },
  );

  it('refuses a file over 1 MiB without parsing it', () => {
    const text = `# ${'x'.repeat(MAX_CONFIG_BYTES)}`;
    const result = parseLayer(text, source('project'));
    expect(result.value).toBeNull();
    expect(result.issues).toEqual([
      expect.objectContaining({ rule: 'config.too-large', location: { file: FILES.project } }),
    ]);
  });

  it('accepts a file of exactly 1 MiB', () => {
    const head = 'engine = "auto"\n# ';
    const text = head + 'x'.repeat(MAX_CONFIG_BYTES - head.length);
    expect(parseLayer(text, source('project')).issues).toEqual([]);
  });

  it('collects every issue in a file, not just the first', () => {
    const result = parse(['engine = "x"', 'base = "-x"', 'apt = ["-y"]', 'bogus = 1']);
    // Shape issues short-circuit value rules: only the unknown key is reported here.
    expect(result.issues.map((i) => i.rule)).toEqual(['config.unknown-key']);
    const values = parse(['engine = "x"', 'base = "-x"', 'apt = ["-y"]']);
    expect(values.issues.map((i) => i.rule)).toEqual([
      'config.engine-invalid',
      'config.base-invalid',
      'config.apt-invalid',
    ]);
  });

  it('reports banned keys alongside shape issues', () => {
    const result = parse(['template = "node"', 'bogus = 1'], 'layer');
    expect(result.issues.map((i) => i.rule).sort()).toEqual([
      'config.key-banned-here',
      'config.unknown-key',
    ]);
  });

  it('names the env remedy for the BYRE_ namespace', () => {
    const result = parse(['[env]', 'BYRE_FOO = "x"']);
    expect(result.issues[0]?.fix).toContain('run_args = ["-e", "BYRE_FOO=<value>"]');
  });

  it('names the bracketed spelling for a bare IPv6 egress', () => {
    const result = parse(['egress = ["2001:DB8::1"]']);
    expect(result.issues[0]?.fix).toContain('[2001:db8::1]:443');
  });

  it('says an encrypted row is written by byre credential', () => {
    const result = parse(['env_from_host = { T = "encrypted:x" }']);
    expect(result.issues[0]?.fix).toContain('byre credential add T');
  });

  it('points npm_global at dockerfile_pre', () => {
    expect(parse(['npm_global = ["x"]']).issues[0]?.fix).toContain('dockerfile_pre');
  });

  it('points a top-level dockerfile at the raw blocks', () => {
    expect(parse(['dockerfile = ["x"]']).issues[0]?.fix).toContain('dockerfile_pre');
  });
});

describe('parseLayer: where keys may appear', () => {
  const placements: [string, LayerKind, string[], boolean][] = [
    ['template in project', 'project', ['template = "node"'], true],
    ['template "none" in project', 'project', ['template = "none"'], true],
    ['template favourite in default', 'default', ['template = "node"'], true],
    ['agent favourite in default', 'default', ['agent = "claude"'], true],
    ['agent in a layer', 'layer', ['agent = "claude"'], true],
    ['extends in a layer', 'layer', ['extends = "base-layer"'], true],
    ['extends in project', 'project', ['extends = "work"'], true],
    ['skills in a layer', 'layer', ['skills = ["firewall"]'], true],
    ['sources in default', 'default', ['[sources.x]', 'uri = "https://x"'], true],
    ['template in a layer', 'layer', ['template = "node"'], false],
    ['agent in template', 'template', ['agent = "claude"'], false],
    ['extends in default', 'default', ['extends = "work"'], false],
  ];
  it.each(placements)('%s → ok=%s', (_name, kind, toml, ok) => {
    expect(parse(toml, kind).issues.length === 0).toBe(ok);
  });

  it('strips a template [package] table before parsing the body', () => {
    const result = parse(
      [
        'base = "node:22-bookworm"',
        '[package]',
        'id = "byre/node"',
        'version = "1.0.0"',
        'kind = "template"',
      ],
      'template',
    );
    expect(result.issues).toEqual([]);
    expect(result.value).toEqual({ base: 'node:22-bookworm' });
  });

  it('refuses a body key that TOML put inside [package], at its line', () => {
    const result = parse(['[package]', 'id = "byre/x"', 'base = "node:22"'], 'template');
    expect(result.issues).toMatchObject([
      { rule: 'config.unknown-key', location: { line: 3, column: 1, key: 'package.base' } },
    ]);
  });

  it('tolerates the retired shared_auth_declined key', () => {
    const result = parse(['shared_auth_declined = ["claude"]', 'engine = "auto"']);
    expect(result.issues).toEqual([]);
    expect(result.value).toEqual({ engine: 'auto' });
  });

  it('reads the legacy top-level shared_auth', () => {
    const result = parse(['shared_auth = ["claude"]'], 'default');
    expect(result.issues).toEqual([]);
    expect(result.value).toEqual({ shared_auth: ['claude'] });
  });
});

describe('parseLayer: accepted values', () => {
  it('accepts the whole vocabulary', () => {
    const result = parse([
      'engine = "podman"',
      'template = "owner/tpl"',
      'agent = "claude"',
      'base = "node:22@sha256:abc"',
      'extends = "work"',
      'seed_prefs = false',
      'worktree_base = "~/worktrees"',
      'apt = ["build-essential", "libc6:amd64", "g++", "!nano"]',
      'skills = ["firewall", "owner/skill", "!docker-host"]',
      'egress = ["api.example.com", "[::1]:8080", "!tracker.example.com", "10.1.2.3:22"]',
      'egress_offered = ["registry.npmjs.org", "!pypi.org"]',
      'dockerfile_pre = ["RUN echo pre"]',
      'dockerfile_post = ["RUN echo post"]',
      'run_args = ["--cap-add=SYS_PTRACE"]',
      '[defaults]',
      'shared_auth = { claude = "claude-shared-auth" }',
      'skip_questions = true',
      '[sources."owner/skill"]',
      'uri = "https://example.com/skill.toml"',
      `digest = "sha256:${'0'.repeat(64)}"`,
      '[env]',
      'FOO = "bar"',
      '_X = ""',
      '[env_from_host]',
      'GH = "env:GH_TOKEN"',
      'NAME = "git:user.name"',
      'TZ = "tz:"',
      'TERM = ""',
      '[files]',
      '"./seed/a.json" = "/opt/a.json"',
      '"b/../c" = "/opt/c"',
      '[[mounts]]',
      'host = "~/.ssh"',
      'target = "/home/dev/.ssh"',
      'mode = "ro"',
      '[[mounts]]',
      'host = "/missing"',
      'target = "/x"',
      'disabled = true',
      '[[mounts]]',
      'target = "!/old"',
      '[[ports]]',
      'container = 3000',
      '[[ports]]',
      'container = 3000',
      'host = 3001',
      'interface = "192.168.1.5"',
      '[[ports]]',
      'container = 9000',
      'remove = true',
      '[[volumes]]',
      'name = "npm-cache"',
      'role = "cache"',
      'target = "/home/dev/.npm"',
      'scope = "machine"',
      '[[volumes]]',
      'name = "state.v1"',
      'role = "state"',
      'target = "/state"',
      'sharing = "exclusive"',
      'seed = { literal = "{}", path = "conf/settings.json" }',
      '[[volumes]]',
      'name = "!old"',
      '[[mcp]]',
      'name = "github"',
      'command = ["github-mcp-server", "stdio"]',
      'env = ["GITHUB_TOKEN"]',
      '[[mcp]]',
      'name = "remote"',
      'url = "https://mcp.example.com:8443/sse"',
      'egress = ["extra.example.com"]',
      'headers = { Authorization = "Bearer ${TOKEN}" }',
      '[[mcp]]',
      'name = "!skill-server"',
      '[[claude_skills]]',
      'name = "tdd-loop"',
      'path = "~/claude-skills/tdd-loop"',
      '[[context]]',
      'name = "house-rules"',
      'text = "Run the linter.\\n\\tIndented."',
      '[[context]]',
      'name = "notes"',
      'file = "/home/me/notes.md"',
      '[[context]]',
      'name = "!old"',
    ]);
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.value?.mounts).toHaveLength(3);
    expect(result.value?.ports?.[2]).toEqual({ container: 9000, remove: true });
    expect(result.value?.mcp?.[1]?.headers).toEqual({ Authorization: 'Bearer ${TOKEN}' });
  });

  it.each([
    ['engine = ""'],
    ['engine = "auto"'],
    ['engine = "docker"'],
    ['worktree_base = ""'],
    ['worktree_base = "sibling"'],
    ['worktree_base = "~"'],
    ['worktree_base = "/abs/path"'],
    ['template = "byre/node"'],
    ['agent = "none"'],
    ['extends = "my-layer-2"'],
    // Retired bundled names are package-id tombstones; a named layer may take one.
    ['extends = "codereview"'],
    ['extends = "devlog"'],
    ['extends = "devloop"'],
    ['egress = ["!example.com"]'],
    ['egress_offered = ["[2001:db8::1]:443"]'],
    ['ports = [{ container = 80, interface = "0.0.0.0" }, { container = 81, host = 81 }]'],
    [
      'ports = [{ container = 80, interface = "10.0.0.1" }, { container = 80, interface = "10.0.0.2" }]',
    ],
    ['mounts = [{ host = "~/a", target = "/a", disabled = true }]'],
    ['ports = [{ container = 80 }, { container = 80, host = 8080 }]'],
    [
      'ports = [{ container = 80, host = 8080 }, { container = 80, remove = true }, { container = 81, host = 8080 }]',
    ],
    ['[[mcp]]\nname = "a"\ncommand = ["srv", " "]'],
    ['[[mcp]]\nname = "a"\nurl = "https://user@[::1]:8443/mcp"'],
    ['[[mcp]]\nname = "a"\nurl = "https://h/mcp"\nheaders = { Authorization = "Bearer ${TOKEN}" }'],
    ['[[context]]\nname = "house-rules"\ntext = "line one\\n\\tline two"'],
    ['[[context]]\nname = "!house-rules"'],
  ])('accepts %s', (line) => {
    expect(parse([line]).issues).toEqual([]);
  });
});

describe('parseLayer: warnings', () => {
  it.each(['alpine:3.20', 'scratch', 'gcr.io/distroless/base'])('warns on base %s', (base) => {
    const result = parse(['engine = "auto"', `base = "${base}"`]);
    expect(result.issues).toEqual([]);
    expect(result.value).not.toBeNull();
    expect(result.warnings).toEqual([
      expect.objectContaining({
        rule: 'config.base-unsupported',
        location: { file: FILES.project, line: 2, column: 1, key: 'base' },
      }),
    ]);
  });

  it.each([
    [499, "every session pays for it in the agent's context window"],
    [500, "a large share of most agents' context window, paid by every session"],
  ])(
    'words inline context of %i KiB by its tier (a config file stops short of 1 MiB)',
    (kib, tail) => {
      const result = parse(['[[context]]', 'name = "big"', `text = "${'a'.repeat(kib * 1024)}"`]);
      expect(result.warnings.map((w) => w.message)).toEqual([
        `context "big" is ${kib} KiB; ${tail}`,
      ]);
    },
  );

  it('warns on inline context over 100 KiB', () => {
    const result = parse(['[[context]]', 'name = "big"', `text = "${'a'.repeat(100 * 1024)}"`]);
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([
      expect.objectContaining({
        rule: 'config.context-large',
        location: { file: FILES.project, line: 3, column: 1, key: 'context[0].text' },
      }),
    ]);
  });
});

describe('parseLayer: an unknown key names the key it is a typo of', () => {
  it.each([
    [['atp = ["jq"]'], 'atp', 'apt'],
    [['seed-prefs = true'], 'seed-prefs', 'seed_prefs'],
    [['[[mounts]]', 'host = "~/a"', 'targt = "/a"'], 'mounts[0].targt', 'target'],
    [['[[mcp]]', 'name = "gh"', 'comand = ["x"]'], 'mcp[0].comand', 'command'],
    [['[defaults]', 'skip_question = true'], 'defaults.skip_question', 'skip_questions'],
    [['[sources.pkg]', 'uri = "https://x"', 'digst = "x"'], 'sources.pkg.digst', 'digest'],
    [['colour = "red"'], 'colour', null],
  ])('%j', (lines, key, suggestion) => {
    const issue = parse(lines).issues.find((i) => i.location.key === key);
    expect(issue?.rule).toBe('config.unknown-key');
    if (suggestion === null) {
      expect(issue?.message).not.toContain('did you mean');
      return;
    }
    expect(issue).toMatchObject({
      rule: 'config.unknown-key',
      message: `unknown key ${key} — did you mean ${suggestion}?`,
      fix: expect.stringContaining(`rename it to ${suggestion}`),
    });
  });
});
