// The one way byre changes a config file (ADR 0010): read it without
// following a link, apply tomldoc edits, re-read the result with byre's own
// loader for that layer kind, and publish it atomically with the file's mode.
// Any refusal leaves the old bytes in place; nothing else in byre writes config.

import { parse as parseToml } from 'smol-toml';
import { withSetupLock } from '../host/lock.js';
import { ByreError, ConfigError, type ConfigIssue } from '../errors.js';
import { PRIVATE_FILE_MODE, publishNew, writeFileAtomic } from '../host/atomic-write.js';
import { canonicalPathSync } from '../host/canonical.js';
import {
  defaultConfigPath,
  layerConfigPath,
  type ProjectStorePaths,
} from '../project/store-layout.js';
import {
  applyEdits,
  deleteValue,
  getValue,
  parseDocument,
  setValue,
  TomlDocError,
  type TomlEdit,
} from '../tomldoc/index.js';
import { describeNotRegular } from '../host/read-regular.js';
import { parseLayer, syntaxIssue } from './parse.js';
import { configTextIssue, readConfigText } from './read.js';
import { layerNameProblem } from './rules/index.js';

/** A config file byre may write, and the layer kind its loader reads it as. */
export interface ConfigFile {
  path: string;
  kind: 'project' | 'default' | 'layer';
  /** The layer's name (`default`, `project`, or the named layer's). */
  name: string;
}

export function projectConfigFile(project: ProjectStorePaths): ConfigFile {
  return { path: project.config, kind: 'project', name: 'project' };
}

export function defaultConfigFile(home: string): ConfigFile {
  return { path: defaultConfigPath(home), kind: 'default', name: 'default' };
}

/** A named layer's file; a name outside the layer grammar never becomes a path. */
export function layerConfigFile(home: string, name: string): ConfigFile {
  const problem = layerNameProblem(name);
  if (problem !== null) {
    throw new ByreError(`layer ${JSON.stringify(name)}: ${problem}`, {
      rule: 'config.layer-name-invalid',
      remedy: 'name the layer with lowercase letters, digits and "-"',
    });
  }
  return { path: layerConfigPath(home, name), kind: 'layer', name };
}

/** What a config file holds now; `exists` false reads as an empty document. */
interface CurrentConfig {
  text: string;
  exists: boolean;
  /** Permission bits to keep (0600 for a file not yet written). */
  mode: number;
}

function refuse(file: ConfigFile, rule: string, message: string, remedy: string): never {
  throw new ByreError(message, { rule, remedy, location: { file: file.path } });
}

/**
 * Read a config file for editing: never through a symbolic link, only a
 * regular file, at most 1 MiB, valid UTF-8 (the loader's own reader). A
 * missing file is an empty one.
 */
export function readConfigForEdit(file: ConfigFile): CurrentConfig {
  const read = readConfigText(file.path);
  switch (read.kind) {
    case 'missing':
      return { text: '', exists: false, mode: PRIVATE_FILE_MODE };
    case 'ok':
      return { text: read.text, exists: true, mode: read.mode };
    case 'not-regular':
      if (read.what === 'symlink') {
        // byre reads a linked default.config or layer (adr/0058) but never
        // writes through a link: the file it leads to is the user's to edit.
        let target = 'the file it points to';
        try {
          target = canonicalPathSync(file.path);
        } catch {
          // A link to nothing: named generically.
        }
        return refuse(
          file,
          'config.write-symlink',
          `${file.path} is a symbolic link; byre writes config files only in place, never through a link`,
          `edit ${target} by hand, or replace the link with that file`,
        );
      }
      return refuse(
        file,
        'config.write-not-file',
        `${file.path} is ${describeNotRegular(read.what)}, not a regular file`,
        'replace it with a config file',
      );
    case 'too-large':
    case 'not-utf8':
      throw new ConfigError([configTextIssue(file.path, read)]);
  }
}

/** The edits as data, or a function from the current text to the new one. */
type ConfigChange = readonly TomlEdit[] | ((text: string) => string);

function edited(file: ConfigFile, text: string, change: ConfigChange): string {
  try {
    const next = typeof change === 'function' ? change(text) : applyEdits(text, change);
    return next === text ? text : migrateOnWrite(next);
  } catch (error) {
    if (!(error instanceof TomlDocError)) throw error;
    if (error.rule === 'tomldoc.syntax') {
      try {
        parseToml(text);
      } catch (syntax) {
        throw new ConfigError([syntaxIssue(syntax, file.path, text)]);
      }
    }
    const at = error.line === undefined ? {} : { line: error.line, column: error.column ?? 1 };
    throw new ByreError(`cannot edit ${file.path}: ${error.message}`, {
      rule: `config.write-${error.rule.replace(/^tomldoc\./, '')}`,
      location: { file: file.path, ...at },
      remedy: 'edit the file by hand, or report this to byre',
      cause: error,
    });
  }
}

/**
 * The migrations every write carries along: the legacy top-level
 * `shared_auth` moves to `[defaults] shared_auth` (a value already there wins).
 */
function migrateOnWrite(text: string): string {
  const legacy = getValue(parseDocument(text), ['shared_auth']);
  if (legacy === undefined) return text;
  const moved = deleteValue(text, ['shared_auth']);
  if (getValue(parseDocument(moved), ['defaults', 'shared_auth']) !== undefined) return moved;
  return setValue(moved, ['defaults', 'shared_auth'], legacy);
}

/** Issues in the would-be result, named as such: the file on disk is unchanged. */
function refusedResult(file: ConfigFile, issues: readonly ConfigIssue[]): ConfigError {
  return new ConfigError(
    issues.map((issue) => ({
      ...issue,
      message: `${issue.message} — the edit was refused; ${file.path} is unchanged`,
      location: { ...issue.location, file: `${file.path} (as edited)` },
    })),
  );
}

interface WriteOptions {
  /** Hold this project's setup lock around read, edit and publish. */
  lock?: ProjectStorePaths;
  /** Create the file; refuse when it already exists (onboarding). */
  createOnly?: boolean;
}

interface WriteResult {
  before: string;
  after: string;
  /** False when the edit changed nothing (the file was not touched). */
  written: boolean;
}

async function publish(
  file: ConfigFile,
  current: CurrentConfig,
  text: string,
  createOnly: boolean,
): Promise<void> {
  if (createOnly) {
    // publishNew links the file in only where nothing is: one made meanwhile is never replaced.
    if (!(await publishNew(file.path, text, current.mode))) {
      refuse(
        file,
        'config.write-exists',
        `${file.path} already exists`,
        'edit that file instead of creating it',
      );
    }
    return;
  }
  await writeFileAtomic(file.path, text, current.mode, () => {
    const now = readConfigForEdit(file);
    if (now.exists !== current.exists || now.text !== current.text) {
      refuse(
        file,
        'config.write-raced',
        `${file.path} changed while byre was editing it`,
        'run the command again',
      );
    }
  });
}

async function writeUnlocked(
  file: ConfigFile,
  change: ConfigChange,
  options: WriteOptions,
): Promise<WriteResult> {
  const current = readConfigForEdit(file);
  if (options.createOnly && current.exists) {
    refuse(file, 'config.write-exists', `${file.path} already exists`, 'edit it instead');
  }
  const after = edited(file, current.text, change);
  if (current.exists && after === current.text) {
    return { before: current.text, after, written: false };
  }
  const checked = parseLayer(after, { file: file.path, kind: file.kind, name: file.name });
  if (checked.issues.length > 0) throw refusedResult(file, checked.issues);
  await publish(file, current, after, options.createOnly === true);
  return { before: current.text, after, written: true };
}

/**
 * Apply `change` to a config file and publish the result atomically, keeping
 * the file's mode (0600 for a new file). Refused, with the old bytes left in
 * place: a link, a non-file, over 1 MiB, a result byre's loader rejects for
 * this layer kind, or a file changed by someone else meanwhile.
 */
export async function writeConfig(
  file: ConfigFile,
  change: ConfigChange,
  options: WriteOptions = {},
): Promise<WriteResult> {
  const { lock } = options;
  if (lock === undefined) return writeUnlocked(file, change, options);
  return withSetupLock(lock, () => writeUnlocked(file, change, options));
}
