import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  readdirSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { MAX_CONFIG_BYTES } from './parse.js';
import {
  defaultConfigPath,
  layerConfigPath,
  projectConfigPath,
  templateConfigPath,
} from '../project/store-layout.js';
import { linkedConfigTargets, loadCascade, readLayerFile } from './read.js';

type CascadeOptions = Parameters<typeof loadCascade>[0];

const PROJECT_ID = 'demo-work-0877d7';
let home: string;

useTempDir('config', (tmp) => {
  home = tmp;
});

function write(path: string, lines: readonly string[] | string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof lines === 'string' ? lines : `${lines.join('\n')}\n`);
  return path;
}

const BUNDLED: Record<string, string> = {
  node: [
    'base = "node:22-bookworm"',
    'egress_offered = ["registry.npmjs.org"]',
    '[package]',
    'id = "byre/node"',
  ].join('\n'),
  go: 'base = "golang:1.26-bookworm"\n',
};

function options(overrides: Partial<CascadeOptions> = {}): CascadeOptions {
  return {
    home,
    projectId: PROJECT_ID,
    bundledTemplate: (name) => {
      const text = BUNDLED[name];
      return text === undefined ? null : { id: `byre/${name}`, text };
    },
    ...overrides,
  };
}

function cascadeIssues(opts: CascadeOptions = options()): ConfigIssue[] {
  try {
    loadCascade(opts);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((entry) => `${entry}:${statSync(join(dir, entry)).mtimeMs}`)
    .sort();
}

const projectPath = (): string => projectConfigPath(home, PROJECT_ID);

describe('readLayerFile', () => {
  it('returns null for a missing file', () => {
    expect(readLayerFile(join(home, 'nope.config'), 'default', 'default')).toBeNull();
    expect(readLayerFile(join(home, 'no', 'dir', 'x.config'), 'layer', 'x')).toBeNull();
  });

  it('reads, parses and attributes a file', () => {
    const path = write(join(home, 'default.config'), ['engine = "docker"']);
    const file = readLayerFile(path, 'default', 'default');
    expect(file?.ref).toEqual({ kind: 'default', name: 'default', path });
    expect(file?.value).toEqual({ engine: 'docker' });
    expect(file?.issues).toEqual([]);
  });

  // A default.config or named layer kept in a dotfiles repository (adr/0058):
  // followed to a regular file; containment keeps every box away from it.
  it.each([
    ['default', () => defaultConfigPath(home)],
    ['layer', () => layerConfigPath(home, 'work')],
  ] as const)('follows a %s file linked to a regular file', (kind, at) => {
    const real = write(join(home, `dotfiles-${kind}`, 'byre.toml'), ['engine = "podman"']);
    const path = at();
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(real, path);
    const file = readLayerFile(path, kind, kind === 'layer' ? 'work' : 'default');
    expect(file?.issues).toEqual([]);
    expect(file?.value).toEqual({ engine: 'podman' });
    expect(file?.ref.path).toBe(path);
    expect(linkedConfigTargets(home)).toContain(realpathSync(real));
  });

  it.each([
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path]), 'a FIFO'],
    ['a directory', (path: string) => mkdirSync(path), 'a directory'],
    ['a device', null, 'a device'],
  ])(
    'refuses a default.config linked to %s, naming it, without waiting on it',
    (_what, make, said) => {
      const target = make === null ? '/dev/zero' : join(home, 'dotfiles-odd', 'target');
      if (make !== null) {
        mkdirSync(dirname(target), { recursive: true });
        make(target);
      }
      const path = defaultConfigPath(home);
      mkdirSync(dirname(path), { recursive: true });
      symlinkSync(target, path);
      const file = readLayerFile(path, 'default', 'default');
      expect(file?.value).toBeNull();
      expect(file?.issues).toEqual([
        expect.objectContaining({
          rule: 'config.not-file',
          message: `${path} links to ${realpathSync(target)}, ${said}, not a regular file`,
          location: { file: path },
        }),
      ]);
    },
  );

  it('refuses a layer linked to nothing', () => {
    const path = layerConfigPath(home, 'gone');
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync('/nonexistent/byre.toml', path);
    expect(readLayerFile(path, 'layer', 'gone')?.issues).toEqual([
      expect.objectContaining({
        rule: 'config.symlink',
        message: `${path} is a symbolic link to /nonexistent/byre.toml, which does not exist`,
      }),
    ]);
  });

  // A project's config and a template are read only in place: nothing but
  // the user's own files may be links.
  it.each([
    ['project', () => projectConfigPath(home, PROJECT_ID)],
    ['template', () => templateConfigPath(home, 'mine')],
  ] as const)('refuses a %s file that is a link, without reading its target', (kind, at) => {
    const real = write(join(home, 'real.config'), ['engine = "podman"']);
    const path = at();
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(real, path);
    const file = readLayerFile(path, kind, kind === 'project' ? 'project' : 'mine');
    expect(file?.value).toBeNull();
    expect(file?.issues).toEqual([
      expect.objectContaining({ rule: 'config.symlink', location: { file: path } }),
    ]);
  });

  it.each([
    ['a FIFO', 'config.not-file', (path: string) => execFileSync('mkfifo', [path])],
    ['a directory', 'config.not-file', (path: string) => mkdirSync(path)],
    ['a link to a device', 'config.not-file', (path: string) => symlinkSync('/dev/zero', path)],
  ])('refuses %s without waiting on it', (_what, rule, make) => {
    const path = join(home, 'layers', 'x', 'layer.config');
    mkdirSync(dirname(path), { recursive: true });
    make(path);
    expect(readLayerFile(path, 'layer', 'x')?.issues[0]?.rule).toBe(rule);
  });

  it('refuses a FIFO as a project config, a template and a layer in the cascade', () => {
    const project = projectConfigPath(home, PROJECT_ID);
    write(project, ['template = "mine"', 'extends = "base"']);
    for (const p of [templateConfigPath(home, 'mine'), layerConfigPath(home, 'base')]) {
      mkdirSync(dirname(p), { recursive: true });
      execFileSync('mkfifo', [p]);
    }
    expect(cascadeIssues().map((i) => [i.rule, i.location.file])).toEqual([
      ['config.not-file', templateConfigPath(home, 'mine')],
      ['config.not-file', layerConfigPath(home, 'base')],
    ]);
  });

  it('refuses a file over 1 MiB before parsing it', () => {
    const path = write(
      join(home, 'big.config'),
      `engine = "auto"\n#${'x'.repeat(MAX_CONFIG_BYTES)}`,
    );
    const file = readLayerFile(path, 'project', 'project');
    expect(file?.value).toBeNull();
    expect(file?.issues).toEqual([
      expect.objectContaining({ rule: 'config.too-large', location: { file: path } }),
    ]);
    expect(file?.text).toBe('');
  });

  it('refuses bytes that are not UTF-8', () => {
    const path = join(home, 'bin.config');
    writeFileSync(path, Buffer.from([0x65, 0x3d, 0xff, 0xfe]));
    expect(readLayerFile(path, 'project', 'project')?.issues[0]).toMatchObject({
      rule: 'config.toml-syntax',
      location: { file: path },
    });
  });

  it('reports syntax errors with the real path and position', () => {
    const path = write(join(home, 'bad.config'), ['engine = "auto"', '[[mounts]', 'x = 1']);
    expect(readLayerFile(path, 'project', 'project')?.issues[0]).toMatchObject({
      rule: 'config.toml-syntax',
      location: { file: path, line: 2 },
    });
  });
});

describe('loadCascade: assembly', () => {
  it('yields the core layer alone for an empty BYRE_HOME', () => {
    const { config, issues } = loadCascade(options());
    expect(issues).toEqual([]);
    expect(config.layers.map((l) => l.kind)).toEqual(['core']);
    expect(config.base.value).toBe('debian:bookworm');
    expect(config.envFromHost.TZ?.value).toBe('tz:');
  });

  it('merges core ⊕ default ⊕ template ⊕ chain(root…parent) ⊕ project, lowest first', () => {
    write(defaultConfigPath(home), ['template = "go"', 'agent = "codex"', 'apt = ["git"]']);
    write(layerConfigPath(home, 'team'), ['apt = ["jq"]', 'env = { WHO = "team" }']);
    write(layerConfigPath(home, 'work'), ['extends = "team"', 'env = { WHO = "work" }']);
    write(projectPath(), [
      'template = "node"',
      'agent = "claude"',
      'extends = "work"',
      'apt = ["curl"]',
    ]);
    const { config } = loadCascade(options());
    expect(config.layers.map((l) => `${l.kind}:${l.name}`)).toEqual([
      'core:core',
      'default:default',
      'template:byre/node',
      'layer:team',
      'layer:work',
      'project:project',
    ]);
    expect(config.extendsChain).toEqual(['team', 'work']);
    expect(config.apt.map((a) => [a.value, a.from.name])).toEqual([
      ['git', 'default'],
      ['jq', 'team'],
      ['curl', 'project'],
    ]);
    expect(config.env.WHO).toEqual({
      value: 'work',
      from: { kind: 'layer', name: 'work', path: layerConfigPath(home, 'work') },
    });
    expect(config.base).toEqual({
      value: 'node:22-bookworm',
      from: { kind: 'template', name: 'byre/node', path: null },
    });
    expect(config.template).toEqual({
      value: 'byre/node',
      from: { kind: 'project', name: 'project', path: projectPath() },
    });
    expect(config.agent?.value).toBe('claude');
  });

  it('ignores default.config favourites when the project picks nothing', () => {
    write(defaultConfigPath(home), ['template = "node"', 'agent = "claude"']);
    write(projectPath(), ['engine = "auto"']);
    const { config } = loadCascade(options());
    expect(config.template).toBeNull();
    expect(config.agent).toBeNull();
    expect(config.layers.map((l) => l.kind)).toEqual(['core', 'default', 'project']);
  });

  it('reads no template for template = "none"', () => {
    write(projectPath(), ['template = "none"']);
    const { config } = loadCascade(
      options({
        bundledTemplate: () => {
          throw new Error('must not look up');
        },
      }),
    );
    expect(config.template).toBeNull();
  });

  it('lets a local template shadow the bundled one', () => {
    const local = write(templateConfigPath(home, 'node'), ['base = "node:20"']);
    write(projectPath(), ['template = "node"']);
    const { config } = loadCascade(options());
    expect(config.base).toEqual({
      value: 'node:20',
      from: { kind: 'template', name: 'node', path: local },
    });
    expect(config.template?.value).toBe('node');
  });

  it('forces the bundled template with byre/<name>', () => {
    write(templateConfigPath(home, 'node'), ['base = "node:20"']);
    write(projectPath(), ['template = "byre/node"']);
    const { config } = loadCascade(options());
    expect(config.base.value).toBe('node:22-bookworm');
    expect(config.template?.value).toBe('byre/node');
  });

  it('reads an owner/name local template', () => {
    write(templateConfigPath(home, 'acme/web'), [
      'base = "acme:1"',
      '[package]',
      'id = "acme/web"',
    ]);
    write(projectPath(), ['template = "acme/web"']);
    expect(loadCascade(options()).config.base.value).toBe('acme:1');
  });

  it('returns warnings from every file', () => {
    write(defaultConfigPath(home), ['base = "alpine:3"']);
    const { issues } = loadCascade(options());
    expect(issues).toEqual([
      expect.objectContaining({
        rule: 'config.base-unsupported',
        location: { file: defaultConfigPath(home), line: 1, column: 1, key: 'base' },
      }),
    ]);
  });

  it('never writes to BYRE_HOME', () => {
    write(defaultConfigPath(home), ['shared_auth = ["claude"]', 'shared_auth_declined = ["x"]']);
    write(projectPath(), ['template = "node"', 'extends = "work"']);
    write(layerConfigPath(home, 'work'), ['apt = ["jq"]']);
    write(projectConfigPath(home, 'broken-000000'), ['extends = "ghost"']);
    const before = listTree(home);
    loadCascade(options());
    expect(cascadeIssues(options({ projectId: 'broken-000000' }))[0]?.rule).toBe(
      'config.extends-missing',
    );
    expect(listTree(home)).toEqual(before);
  });
});

describe('loadCascade: refusals carry rule and location', () => {
  it('refuses an extends cycle, naming the loop', () => {
    write(projectPath(), ['extends = "a"']);
    write(layerConfigPath(home, 'a'), ['extends = "b"']);
    const b = write(layerConfigPath(home, 'b'), ['apt = ["git"]', 'extends = "a"']);
    expect(cascadeIssues()).toEqual([
      expect.objectContaining({
        rule: 'config.extends-cycle',
        message: 'extends cycle: a -> b -> a',
        location: { file: b, line: 2, column: 1, key: 'extends' },
      }),
    ]);
  });

  it('refuses a layer that extends itself', () => {
    write(projectPath(), ['extends = "a"']);
    const a = write(layerConfigPath(home, 'a'), ['extends = "a"']);
    expect(cascadeIssues()).toEqual([
      expect.objectContaining({
        rule: 'config.extends-cycle',
        message: 'extends cycle: a -> a',
        location: { file: a, line: 1, column: 1, key: 'extends' },
      }),
    ]);
  });

  it('refuses a dangling parent named by the project, with the path to create', () => {
    write(projectPath(), ['engine = "auto"', 'extends = "ghost"']);
    const missing = layerConfigPath(home, 'ghost');
    expect(cascadeIssues()).toEqual([
      expect.objectContaining({
        rule: 'config.extends-missing',
        message: `layer "ghost" not found — create ${missing}`,
        location: { file: projectPath(), line: 2, column: 1, key: 'extends' },
      }),
    ]);
  });

  it('refuses a dangling parent deeper in the chain, located in that layer', () => {
    write(projectPath(), ['extends = "work"']);
    const work = write(layerConfigPath(home, 'work'), ['# employer baseline', 'extends = "gone"']);
    expect(cascadeIssues()).toEqual([
      expect.objectContaining({
        rule: 'config.extends-missing',
        location: { file: work, line: 2, column: 1, key: 'extends' },
      }),
    ]);
  });

  it('refuses a missing template at the project template key', () => {
    write(projectPath(), ['', 'template = "nope"']);
    expect(cascadeIssues()).toEqual([
      expect.objectContaining({
        rule: 'config.template-missing',
        location: { file: projectPath(), line: 2, column: 1, key: 'template' },
      }),
    ]);
  });

  it('refuses byre/<name> when byre bundles no such template', () => {
    write(templateConfigPath(home, 'rust'), ['base = "rust:1"']);
    write(projectPath(), ['template = "byre/rust"']);
    expect(cascadeIssues()[0]?.rule).toBe('config.template-missing');
  });

  it('collects issues from every file before refusing', () => {
    write(defaultConfigPath(home), ['engine = "dockr"']);
    const layer = write(layerConfigPath(home, 'work'), ['template = "node"']);
    const tpl = write(templateConfigPath(home, 'mine'), ['agent = "claude"']);
    write(projectPath(), ['template = "mine"', 'extends = "work"']);
    const issues = cascadeIssues();
    expect(issues.map((i) => [i.rule, i.location.file, i.location.line, i.location.key])).toEqual([
      ['config.engine-invalid', defaultConfigPath(home), 1, 'engine'],
      ['config.key-banned-here', tpl, 1, 'agent'],
      ['config.key-banned-here', layer, 1, 'template'],
    ]);
  });

  it('refuses extends in default.config', () => {
    write(defaultConfigPath(home), ['extends = "work"']);
    expect(cascadeIssues()[0]).toMatchObject({
      rule: 'config.key-banned-here',
      location: { file: defaultConfigPath(home), line: 1, column: 1, key: 'extends' },
    });
  });

  it('refuses a project file over 1 MiB', () => {
    write(projectPath(), `#${'x'.repeat(MAX_CONFIG_BYTES + 10)}`);
    expect(cascadeIssues()).toEqual([
      expect.objectContaining({ rule: 'config.too-large', location: { file: projectPath() } }),
    ]);
  });

  it('refuses a box path bound by a mount in one layer and a volume in another', () => {
    write(defaultConfigPath(home), ['[[mounts]]', 'host = "~/data"', 'target = "/data"']);
    write(projectPath(), ['[[volumes]]', 'name = "d"', 'role = "cache"', 'target = "/data/"']);
    expect(cascadeIssues()).toEqual([
      expect.objectContaining({
        rule: 'config.target-collision',
        location: { file: projectPath(), line: 4, column: 1, key: 'volumes[0].target' },
      }),
    ]);
  });

  it('refuses two layers binding one host port', () => {
    write(layerConfigPath(home, 'work'), ['[[ports]]', 'container = 80', 'interface = "0.0.0.0"']);
    write(projectPath(), ['extends = "work"', '', '[[ports]]', 'container = 8080', 'host = 80']);
    expect(cascadeIssues()).toEqual([
      expect.objectContaining({
        rule: 'config.port-collision',
        location: { file: projectPath(), line: 3, column: 1, key: 'ports[0]' },
      }),
    ]);
  });

  it('allows a later layer to replace a mount target a lower layer bound', () => {
    write(defaultConfigPath(home), ['[[mounts]]', 'host = "~/a"', 'target = "/data"']);
    write(projectPath(), ['[[mounts]]', 'host = "~/b"', 'target = "/data"']);
    expect(loadCascade(options()).config.mounts.map((m) => m.value.host)).toEqual(['~/b']);
  });

  it('refuses an enabled mount whose host does not exist, at its declaration', () => {
    const user = join(home, 'user');
    mkdirSync(join(user, 'there'), { recursive: true });
    write(defaultConfigPath(home), ['[[mounts]]', 'host = "~/there"', 'target = "/there"']);
    write(projectPath(), [
      '[[mounts]]',
      'host = "~/gone"',
      'target = "/gone"',
      '',
      '[[mounts]]',
      'host = "~/also-gone"',
      'target = "/off"',
      'disabled = true',
    ]);
    const issues = cascadeIssues(options({ userHome: user }));
    expect(issues).toEqual([
      expect.objectContaining({
        rule: 'config.mount-host-missing',
        message: expect.stringContaining(`"~/gone" (${join(user, 'gone')}) does not exist`),
        location: { file: projectPath(), line: 2, column: 1, key: 'mounts[0].host' },
      }),
    ]);
  });

  it('locates a missing mount host in the lower layer that declared it', () => {
    write(layerConfigPath(home, 'work'), [
      '',
      '[[mounts]]',
      'host = "/nonexistent/h12a"',
      'target = "/x"',
    ]);
    write(projectPath(), ['extends = "work"']);
    expect(cascadeIssues(options({ userHome: home }))).toEqual([
      expect.objectContaining({
        rule: 'config.mount-host-missing',
        location: {
          file: layerConfigPath(home, 'work'),
          line: 3,
          column: 1,
          key: 'mounts[0].host',
        },
      }),
    ]);
  });

  it('accepts a mount host that is a symlink to a directory, and checks nothing without userHome', () => {
    mkdirSync(join(home, 'real'));
    symlinkSync(join(home, 'real'), join(home, 'link'));
    write(projectPath(), ['[[mounts]]', `host = "${join(home, 'link')}"`, 'target = "/l"']);
    expect(loadCascade(options({ userHome: home })).config.mounts).toHaveLength(1);
    write(projectPath(), ['[[mounts]]', 'host = "/nonexistent/h12a"', 'target = "/l"']);
    expect(loadCascade(options()).config.mounts).toHaveLength(1);
  });

  it('canonicalises package references before the merge, so an alias removal cancels', () => {
    const canon = {
      skill: (r: string) => (r === 'claude' ? 'byre/claude' : r),
      template: (r: string) => (r === 'node' ? 'byre/node' : r),
    };
    write(layerConfigPath(home, 'work'), ['skills = ["claude", "me/x"]']);
    write(projectPath(), ['extends = "work"', 'skills = ["!byre/claude"]', 'agent = "claude"']);
    const { config } = loadCascade(options({ canon }));
    expect(config.skills.map((s) => s.value)).toEqual(['me/x']);
    expect(config.agent?.value).toBe('byre/claude');
  });

  it('a missing template prints the [sources] hint, from the layer that gave it', () => {
    const digest = `sha256:${'c'.repeat(64)}`;
    write(layerConfigPath(home, 'work'), [
      '[sources]',
      `"me/tpl" = { uri = "https://x.example/t.config", digest = "${digest}" }`,
    ]);
    write(projectPath(), ['template = "me/tpl"', 'extends = "work"']);
    expect(cascadeIssues()).toEqual([
      expect.objectContaining({
        rule: 'config.template-missing',
        location: { file: projectPath(), line: 1, column: 1, key: 'template' },
        fix: `install it: byre template install https://x.example/t.config --digest ${digest}  (hint from layer work)`,
      }),
    ]);
  });

  it('locates merged values for later errors (skills, agent)', () => {
    write(projectPath(), ['base = "x"', 'skills = ["a", "b"]', 'agent = "c"']);
    const { locate } = loadCascade(options());
    const project = { kind: 'project' as const, name: 'project', path: projectPath() };
    expect(locate(project, () => ['skills', 1])).toEqual({
      file: projectPath(),
      line: 2,
      column: 16,
      key: 'skills[1]',
    });
    expect(locate(project, () => ['agent'])).toMatchObject({ line: 3, column: 1 });
  });

  it('refuses a malformed project id', () => {
    expect(cascadeIssues(options({ projectId: '../etc' }))[0]?.rule).toBe(
      'config.project-id-invalid',
    );
  });
});
