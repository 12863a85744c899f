import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import lockfile from 'proper-lockfile';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { ByreError, ConfigError } from '../errors.js';
import { projectStorePaths, type ProjectStorePaths } from '../project/store-layout.js';
import type { TomlEdit } from '../tomldoc/index.js';
import { MAX_CONFIG_BYTES } from './parse.js';
import {
  defaultConfigFile,
  layerConfigFile,
  projectConfigFile,
  readConfigForEdit,
  writeConfig,
  type ConfigFile,
} from './write.js';

const temp = useTempDir('write');
let home: string;
let project: ProjectStorePaths;
let file: ConfigFile;

beforeEach(() => {
  home = temp.path;
  project = projectStorePaths(home, 'demo-work-0877d7');
  file = projectConfigFile(project);
});

function put(path: string, text: string, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
}

/** Everything in the file's directory: a refused write leaves no temp behind. */
function siblings(path: string): string[] {
  return readdirSync(dirname(path)).sort();
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

const CONFIG = [
  '# my project',
  'agent = "claude"  # the agent',
  '',
  '[[mounts]]',
  "host = '~/notes'",
  "target = '/notes'",
  '',
].join('\n');

const addPort: TomlEdit[] = [
  { op: 'entry-upsert', path: ['ports'], key: 'container', entry: { container: 8080 } },
];

describe('writeConfig', () => {
  it('edits a file in place, keeping every byte it did not touch', async () => {
    put(file.path, CONFIG);
    const result = await writeConfig(file, addPort);
    expect(result.written).toBe(true);
    expect(readFileSync(file.path, 'utf8')).toBe(`${CONFIG}\n[[ports]]\ncontainer = 8080\n`);
    expect(result.before).toBe(CONFIG);
    expect(siblings(file.path)).toEqual(['byre.config']);
  });

  it('creates a missing file with mode 0600', async () => {
    const result = await writeConfig(file, [{ op: 'set', path: ['agent'], value: 'claude' }]);
    expect(result).toMatchObject({ before: '', written: true });
    expect(readFileSync(file.path, 'utf8')).toBe('agent = "claude"\n');
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
  });

  it.each([0o644, 0o640, 0o600])('keeps mode %s', async (mode) => {
    put(file.path, CONFIG, mode);
    await writeConfig(file, addPort);
    expect(statSync(file.path).mode & 0o777).toBe(mode);
  });

  it('does not touch the file when the edit changes nothing', async () => {
    put(file.path, CONFIG);
    const before = statSync(file.path);
    const result = await writeConfig(file, [{ op: 'set', path: ['agent'], value: 'claude' }]);
    expect(result.written).toBe(false);
    expect(statSync(file.path).ino).toBe(before.ino);
  });

  it('takes a function from the old text to the new (a whole-file replace)', async () => {
    put(file.path, CONFIG);
    await writeConfig(file, () => 'agent = "none"\n');
    expect(readFileSync(file.path, 'utf8')).toBe('agent = "none"\n');
  });

  it.each([
    ['an unknown key', [{ op: 'set', path: ['mount'], value: 'x' }], 'config.unknown-key', 3],
    ['a wrong type', [{ op: 'set', path: ['seed_prefs'], value: 'yes' }], 'config.wrong-type', 3],
    [
      'a bad port',
      [{ op: 'entry-upsert', path: ['ports'], key: 'container', entry: { container: 0 } }],
      undefined,
      9,
    ],
  ] as const)('refuses %s in the result, leaving the old bytes', async (_, edits, rule, line) => {
    put(file.path, CONFIG);
    const before = statSync(file.path);
    const error = await caught(writeConfig(file, edits as readonly TomlEdit[]));
    expect(error).toBeInstanceOf(ConfigError);
    const issue = (error as ConfigError).issues[0]!;
    if (rule !== undefined) expect(issue.rule).toBe(rule);
    expect(issue.location).toMatchObject({ file: `${file.path} (as edited)`, line });
    expect(issue.message).toContain('the edit was refused');
    expect(readFileSync(file.path, 'utf8')).toBe(CONFIG);
    expect(statSync(file.path).ino).toBe(before.ino);
    expect(siblings(file.path)).toEqual(['byre.config']);
  });

  it.each([
    ['default.config refuses extends', () => defaultConfigFile(home), 'extends', 'base'],
    ['a layer refuses template', () => layerConfigFile(home, 'work'), 'template', 'node'],
  ])('validates for the layer kind: %s', async (_, target, key, value) => {
    const error = await caught(writeConfig(target(), [{ op: 'set', path: [key], value }]));
    expect(error).toBeInstanceOf(ConfigError);
    expect(() => lstatSync(target().path)).toThrow();
  });

  it('accepts what its layer kind allows', async () => {
    await writeConfig(layerConfigFile(home, 'work'), [
      { op: 'array-add', path: ['apt'], value: 'jq' },
    ]);
    expect(readFileSync(join(home, 'layers', 'work', 'layer.config'), 'utf8')).toBe(
      'apt = ["jq"]\n',
    );
  });

  it.each(['../../etc', 'Work', 'none', 'node', ''])('refuses the layer name %j', (name) => {
    expect(() => layerConfigFile(home, name)).toThrow(
      expect.objectContaining({ rule: 'config.layer-name-invalid' }),
    );
  });

  it('refuses a symbolic link and leaves both the link and its target alone', async () => {
    const target = join(home, 'elsewhere');
    put(target, CONFIG);
    mkdirSync(project.dir, { recursive: true });
    symlinkSync(target, file.path);
    const error = await caught(writeConfig(file, addPort));
    expect(error).toBeInstanceOf(ByreError);
    expect(error).toMatchObject({
      rule: 'config.write-symlink',
      location: { file: file.path },
      // byre reads a linked default.config or layer, but never writes through a link.
      remedy: `edit ${realpathSync(target)} by hand, or replace the link with that file`,
    });
    expect(lstatSync(file.path).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe(CONFIG);
  });

  it('refuses a FIFO without waiting for a writer', async () => {
    mkdirSync(project.dir, { recursive: true });
    execFileSync('mkfifo', [file.path]);
    const error = await caught(writeConfig(file, addPort));
    expect(error).toMatchObject({ rule: 'config.write-not-file' });
    expect(lstatSync(file.path).isFIFO()).toBe(true);
  });

  it('refuses a directory', async () => {
    mkdirSync(file.path, { recursive: true });
    expect(await caught(writeConfig(file, addPort))).toMatchObject({
      rule: 'config.write-not-file',
    });
  });

  it('refuses a file over 1 MiB', async () => {
    put(file.path, `# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    const error = await caught(writeConfig(file, addPort));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]?.rule).toBe('config.too-large');
  });

  it('refuses a result over 1 MiB', async () => {
    put(file.path, `# ${'x'.repeat(MAX_CONFIG_BYTES - 100)}\n`);
    const error = await caught(
      writeConfig(file, [{ op: 'set', path: ['base'], value: 'y'.repeat(200) }]),
    );
    expect((error as ConfigError).issues[0]?.rule).toBe('config.too-large');
  });

  it('refuses a file that is not UTF-8', async () => {
    mkdirSync(project.dir, { recursive: true });
    writeFileSync(file.path, Buffer.from([0x61, 0x20, 0x3d, 0x20, 0xff, 0x0a]));
    const error = await caught(writeConfig(file, addPort));
    expect((error as ConfigError).issues[0]?.rule).toBe('config.toml-syntax');
  });

  it('refuses a file with broken TOML, located in the file as it is', async () => {
    put(file.path, 'agent = "claude"\n\nmounts = [\n');
    const error = await caught(writeConfig(file, addPort));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]).toMatchObject({
      rule: 'config.toml-syntax',
      location: { file: file.path, line: 4 },
    });
  });

  it('refuses an edit the document cannot take, naming the rule', async () => {
    put(file.path, 'env = "x"\n');
    const error = await caught(writeConfig(file, [{ op: 'set', path: ['env', 'A'], value: 'b' }]));
    expect(error).toMatchObject({ rule: 'config.write-not-a-table' });
    expect(readFileSync(file.path, 'utf8')).toBe('env = "x"\n');
  });

  it('refuses to publish over a file someone else changed meanwhile', async () => {
    put(file.path, CONFIG);
    const error = await caught(
      writeConfig(file, (text) => {
        writeFileSync(file.path, `${text}# theirs\n`);
        return `seed_prefs = true\n${text}`;
      }),
    );
    expect(error).toMatchObject({ rule: 'config.write-raced' });
    expect(readFileSync(file.path, 'utf8')).toBe(`${CONFIG}# theirs\n`);
    expect(siblings(file.path)).toEqual(['byre.config']);
  });

  it('creates only: refuses a file that exists', async () => {
    put(file.path, CONFIG);
    const error = await caught(writeConfig(file, () => 'agent = "x"\n', { createOnly: true }));
    expect(error).toMatchObject({ rule: 'config.write-exists' });
    expect(readFileSync(file.path, 'utf8')).toBe(CONFIG);
  });

  it('creates only: never replaces a file made after the read', async () => {
    const error = await caught(
      writeConfig(
        file,
        () => {
          put(file.path, CONFIG);
          return 'agent = "x"\n';
        },
        { createOnly: true },
      ),
    );
    expect(error).toMatchObject({ rule: 'config.write-exists' });
    expect(readFileSync(file.path, 'utf8')).toBe(CONFIG);
    expect(siblings(file.path)).toEqual(['byre.config']);
  });

  it('holds the setup lock while it reads, edits and publishes', async () => {
    let held = false;
    await writeConfig(
      file,
      (text) => {
        held = lockfile.checkSync(project.dir, { lockfilePath: project.lock, realpath: false });
        return `${text}agent = "claude"\n`;
      },
      { lock: project },
    );
    expect(held).toBe(true);
    expect(lockfile.checkSync(project.dir, { lockfilePath: project.lock, realpath: false })).toBe(
      false,
    );
  });
});

describe('the migrations a write carries', () => {
  it.each([
    [
      'moves legacy shared_auth under [defaults]',
      'agent = "claude"\nshared_auth = ["claude"]\n',
      'agent = "claude"\n\n[defaults]\nshared_auth = ["claude"]\n',
    ],
    [
      'into an existing [defaults]',
      'shared_auth = ["claude"]\n[defaults]\nskip_questions = true\n',
      '[defaults]\nskip_questions = true\nshared_auth = ["claude"]\n',
    ],
    [
      'where [defaults] shared_auth wins',
      'shared_auth = ["x"]\n[defaults]\nshared_auth = { claude = "y" }\n',
      '[defaults]\nshared_auth = { claude = "y" }\n',
    ],
    ['nothing else', 'agent = "claude"\n', 'agent = "claude"\n'],
  ])('%s', async (_, text, expected) => {
    put(file.path, '');
    expect((await writeConfig(file, () => text)).after).toBe(expected);
  });

  it('rides along with a write, never alone', async () => {
    put(file.path, 'shared_auth = ["claude"]\n');
    expect((await writeConfig(file, [{ op: 'set', path: ['agent'], value: 'none' }])).after).toBe(
      'agent = "none"\n\n[defaults]\nshared_auth = ["claude"]\n',
    );
    put(file.path, 'shared_auth = ["claude"]\n');
    expect((await writeConfig(file, [])).written).toBe(false);
  });
});

describe('readConfigForEdit', () => {
  it('reads a missing file as an empty one, mode 0600', () => {
    expect(readConfigForEdit(file)).toEqual({ text: '', exists: false, mode: 0o600 });
  });

  it('reads the text and the mode', () => {
    put(file.path, CONFIG, 0o640);
    expect(readConfigForEdit(file)).toEqual({ text: CONFIG, exists: true, mode: 0o640 });
  });
});
