// The only IO in src/config: reads config-family files from BYRE_HOME, walks
// the extends chain, and hands validated layers to the pure merge. Reads
// only; it never creates, fixes or migrates a file.
// Over 500 lines: the extends walk and its file reads share one set of refusals.

import { join } from 'node:path';
import { canonicalPathSync } from '../host/canonical.js';
import {
  entryKind,
  entryNames,
  listEntries,
  presentUnlessMissing,
  readlinkOrNull,
} from '../host/path-view.js';
import { describeNotRegular, readRegularFile, type NotRegular } from '../host/read-regular.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { isValidProjectId } from '../project/identity.js';
import {
  defaultConfigPath,
  layerConfigPath,
  projectConfigPath,
  storePaths,
  templateConfigPath,
} from '../project/store-layout.js';
import { AS_WRITTEN, canonicalLayer, type PackageCanon } from './canonical.js';
import {
  checkEffective,
  checkMountHosts,
  layerLocator,
  valueLocation,
  type CheckedLayer,
  type ValueLocation,
} from './check-effective.js';
import { coreLayer } from './core-layer.js';
import { indexKeys, locateKey } from './locate.js';
import { mergeLayers, NONE_SENTINEL } from './merge.js';
import { MAX_CONFIG_BYTES, parseLayer, tooLargeIssue, type ParseResult } from './parse.js';
import { findHint, installHint } from './source-hint.js';
import type { EffectiveConfig, LayerKind, LayerRef } from './types.js';

export interface LayerFile extends ParseResult {
  ref: LayerRef;
  /** The text that was parsed ("" when the file was refused before reading). */
  text: string;
}

function issue(rule: string, file: string, message: string, fix?: string): ConfigIssue {
  return fix === undefined
    ? { rule, message, location: { file } }
    : { rule, message, location: { file }, fix };
}

function refused(ref: LayerRef, problem: ConfigIssue): LayerFile {
  return { ref, text: '', value: null, issues: [problem], warnings: [] };
}

/** A config-family file's text, or why it was not read. */
type ConfigText =
  | { kind: 'missing' }
  /** `linkTo`: the file is a link that was followed to this (a link to nothing: `what` symlink). */
  | { kind: 'not-regular'; what: NotRegular; linkTo?: string }
  | { kind: 'too-large'; size: number }
  | { kind: 'not-utf8' }
  | { kind: 'ok'; text: string; mode: number };

/**
 * Where a symbolic link at `path` leads, canonical: null when `path` is not a
 * link (or not there), `{ dangling }` when it leads nowhere.
 */
function followLink(path: string): { target: string } | { dangling: string } | null {
  if (entryKind(path) !== 'link') return null;
  try {
    return { target: canonicalPathSync(path) };
  } catch {
    // Gone since the lstat: named by what is known.
    return { dangling: readlinkOrNull(path) ?? '?' };
  }
}

/**
 * Reads a config-family file (store byre.config, default, layers, templates)
 * through the shared no-follow reader: a FIFO, directory or device is refused
 * without being read or waited on. A symbolic link is refused too, unless
 * `follow`: then a link to a regular file is read as that file (a dotfiles
 * arrangement; adr/0058), and a link to anything else is refused the same way,
 * naming where it leads. The loader and the writer (write.ts) both read here.
 */
export function readConfigText(path: string, follow = false): ConfigText {
  const link = follow ? followLink(path) : null;
  if (link !== null && 'dangling' in link) {
    return { kind: 'not-regular', what: 'symlink', linkTo: link.dangling };
  }
  const read = readRegularFile(link === null ? path : link.target, MAX_CONFIG_BYTES);
  if (read.kind === 'not-regular' && link !== null) return { ...read, linkTo: link.target };
  if (read.kind !== 'ok') return read;
  try {
    return {
      kind: 'ok',
      text: new TextDecoder('utf-8', { fatal: true }).decode(read.bytes),
      mode: read.mode,
    };
  } catch {
    return { kind: 'not-utf8' };
  }
}

/** The kinds of config file a link may stand for: the user's own, never a project's or a package's. */
function followsLinks(kind: LayerKind): boolean {
  return kind === 'default' || kind === 'layer';
}

/** Every entry of the named layers directory but hidden ones, sorted; none when it cannot be read (the editor's choices). */
export function layerEntryNames(home: string): string[] {
  return entryNames(storePaths(home).layers)
    .filter((name) => !name.startsWith('.'))
    .sort();
}

/** The named layers' directories (not hidden), sorted; none without a layers directory, other errors thrown. */
export function layerDirNames(home: string): string[] {
  const dir = storePaths(home).layers;
  try {
    // A directory itself, never a link to one (lstat, as readdir's entry types).
    return listEntries(dir)
      .filter((name) => !name.startsWith('.') && entryKind(join(dir, name)) === 'dir')
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * The canonical files the store's followed config links lead to (default.config
 * and each named layer): byre's own files as much as the store itself, so
 * containment keeps every box away from them (adr/0058).
 */
export function linkedConfigTargets(home: string): string[] {
  // No layers directory: no layer links.
  const layers = entryNames(storePaths(home).layers);
  const files = [defaultConfigPath(home), ...layers.map((n) => layerConfigPath(home, n))];
  return files.flatMap((f) => {
    const link = followLink(f);
    return link !== null && 'target' in link ? [link.target] : [];
  });
}

/** A config file present but refused before it was parsed. */
type ConfigTextRefusal = Exclude<ConfigText, { kind: 'ok' } | { kind: 'missing' }>;

/** The located issue for a config file that was refused unread. */
export function configTextIssue(path: string, read: ConfigTextRefusal): ConfigIssue {
  switch (read.kind) {
    case 'not-regular':
      if (read.linkTo !== undefined) {
        return read.what === 'symlink'
          ? issue(
              'config.symlink',
              path,
              `${path} is a symbolic link to ${read.linkTo}, which does not exist`,
              'point the link at a config file, or remove it',
            )
          : issue(
              'config.not-file',
              path,
              `${path} links to ${read.linkTo}, ${describeNotRegular(read.what)}, not a regular file`,
              'point the link at a config file',
            );
      }
      return read.what === 'symlink'
        ? issue(
            'config.symlink',
            path,
            `${path} is a symbolic link; byre reads this file only in place (default.config and named layers may be links)`,
            'replace the link with the file it points to',
          )
        : issue(
            'config.not-file',
            path,
            `${path} is ${describeNotRegular(read.what)}, not a regular file`,
            'replace it with a config file',
          );
    case 'too-large':
      return tooLargeIssue(path, read.size);
    case 'not-utf8':
      return issue(
        'config.toml-syntax',
        path,
        `${path} is not valid UTF-8`,
        'save the file as UTF-8',
      );
  }
}

/** A proposed project layer: parsed and located under its own name, attributed to the project file. */
function textLayer(
  given: { text: string; file: string },
  home: string,
  projectId: string,
): LayerFile {
  const ref: LayerRef = {
    kind: 'project',
    name: 'project',
    path: projectConfigPath(home, projectId),
  };
  const parsed = parseLayer(given.text, { file: given.file, kind: 'project', name: 'project' });
  return { ref, text: given.text, ...parsed };
}

/** Read and validate one config-family file; null when it does not exist. */
export function readLayerFile(path: string, kind: LayerKind, name: string): LayerFile | null {
  const ref: LayerRef = { kind, name, path };
  let read: ConfigText;
  try {
    read = readConfigText(path, followsLinks(kind));
  } catch (error) {
    return refused(
      ref,
      issue(
        'config.unreadable',
        path,
        `cannot read ${path}: ${String(error)}`,
        'check the file permissions',
      ),
    );
  }
  if (read.kind === 'missing') return null;
  if (read.kind !== 'ok') return refused(ref, configTextIssue(path, read));
  return { ref, text: read.text, ...parseLayer(read.text, { file: path, kind, name }) };
}

interface CascadeOptions {
  /** BYRE_HOME (normally ~/.byre). */
  home: string;
  projectId: string;
  /** The embedded template for a bare name (`node`), or null when there is none. */
  bundledTemplate: (name: string) => { id: string; text: string } | null;
  /** Package references to catalog ids, before the merge; as written when absent. */
  canon?: PackageCanon;
  /**
   * The user's home, for `~` in mount hosts. When given, every enabled
   * `[[mounts]]` host must exist, checked here (the IO edge) and reported
   * at its declaration.
   */
  userHome?: string;
  /**
   * Text to read as the project layer instead of the project file (a preset
   * under review), with the name its issues are located in.
   */
  projectText?: { text: string; file: string };
}

interface CascadeResult {
  config: EffectiveConfig;
  /** Warnings only; any error throws a ConfigError instead. */
  issues: ConfigIssue[];
  /** Locates a merged value's declaration in the file of the layer that set it. */
  locate: ValueLocation;
  /** The merge's inputs, lowest first (core included), for callers that weigh one layer. */
  layers: CheckedLayer[];
}

/** A host path exists for the engine when stat (following links) finds it; EACCES and the like are the engine's to judge. */
export function hostPathExists(hostPath: string): boolean {
  return presentUnlessMissing(hostPath);
}

function canonicalFile<T extends LayerFile | null>(file: T, canon: PackageCanon): T {
  if (file?.value == null) return file;
  return { ...file, value: canonicalLayer(file.value, canon) };
}

const BUNDLED_PREFIX = 'byre/';

/** Issue located at a key of a file that was read (the `extends` or `template` that pointed somewhere). */
function issueAtKey(
  from: LayerFile,
  key: string,
  rule: string,
  message: string,
  fix: string,
): ConfigIssue {
  const position = locateKey(indexKeys(from.text), [key]);
  const file = from.ref.path ?? `${from.ref.kind}:${from.ref.name}`;
  return {
    rule,
    message,
    location: { file, ...(position ?? {}), key },
    fix,
  };
}

function bundledLayer(id: string, text: string, bareName: string): LayerFile {
  const ref: LayerRef = { kind: 'template', name: id, path: null };
  const file = `bundled template ${id}`;
  return { ref, text, ...parseLayer(text, { file, kind: 'template', name: bareName }) };
}

/** Local `<home>/templates/<name>` shadows bundled; `byre/<name>` forces the bundled one. */
function readTemplate(
  opts: CascadeOptions,
  project: LayerFile,
  name: string,
  hinted: readonly (LayerFile | null)[],
): LayerFile | ConfigIssue {
  const forced = name.startsWith(BUNDLED_PREFIX);
  const bare = forced ? name.slice(BUNDLED_PREFIX.length) : name;
  if (!forced) {
    const local = readLayerFile(templateConfigPath(opts.home, name), 'template', name);
    if (local) return local;
  }
  const bundled = opts.bundledTemplate(bare);
  if (bundled) return bundledLayer(bundled.id, bundled.text, bare);
  const path = templateConfigPath(opts.home, name);
  const hint = findHint(mergeLayers(layerInputs(hinted)).sources, [name]);
  return issueAtKey(
    project,
    'template',
    'config.template-missing',
    `template ${JSON.stringify(name)} not found`,
    hint !== null
      ? `install it: ${installHint('template', hint)}`
      : forced
        ? 'name a template byre bundles (go, node, python)'
        : `create ${path}, or pick another template`,
  );
}

function layerInputs(files: readonly (LayerFile | null)[]): CheckedLayer[] {
  return files.flatMap((f) => (f?.value ? [{ ref: f.ref, raw: f.value, text: f.text }] : []));
}

/**
 * Walk `extends` from `start` (a project, or a named layer itself) up to the
 * root; returns the chain root first, without `start`. A cycle names the loop,
 * a missing layer the file to create.
 */
export function readExtendsChain(
  home: string,
  start: LayerFile,
): { chain: LayerFile[]; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  return { chain: readChain({ home }, start, issues), issues };
}

/** Walk `extends` from the project up to the root; returns the chain root first. */
function readChain(
  opts: Pick<CascadeOptions, 'home'>,
  project: LayerFile,
  issues: ConfigIssue[],
): LayerFile[] {
  const chain: LayerFile[] = [];
  // A layer walking its own chain is the loop's first member.
  const visited: string[] = project.ref.kind === 'layer' ? [project.ref.name] : [];
  let requester = project;
  let next = project.value?.extends;
  while (next !== undefined && next !== '') {
    if (visited.includes(next)) {
      const loop = [...visited, next].join(' -> ');
      issues.push(
        issueAtKey(
          requester,
          'extends',
          'config.extends-cycle',
          `extends cycle: ${loop}`,
          'remove extends from one of these layers to break the loop',
        ),
      );
      break;
    }
    const path = layerConfigPath(opts.home, next);
    const layer = readLayerFile(path, 'layer', next);
    if (layer === null) {
      issues.push(
        issueAtKey(
          requester,
          'extends',
          'config.extends-missing',
          `layer ${JSON.stringify(next)} not found — create ${path}`,
          `create ${path} with the layer's keys, or remove extends`,
        ),
      );
      break;
    }
    visited.push(next);
    chain.push(layer);
    issues.push(...layer.issues);
    if (layer.value === null) break;
    requester = layer;
    next = layer.value.extends;
  }
  return chain.reverse();
}

/**
 * The template a project file names and the chain its `extends` walks, with
 * their issues in cascade order (the chain is read first for its [sources]
 * hints). A layer file names no template, so only its chain is read.
 */
function templateAndChain(
  opts: CascadeOptions,
  canon: PackageCanon,
  defaults: LayerFile | null,
  file: LayerFile,
  issues: ConfigIssue[],
): { template: LayerFile | null; chain: LayerFile[] } {
  const chainIssues: ConfigIssue[] = [];
  const chain = readChain(opts, file, chainIssues).map((f) => canonicalFile(f, canon));
  let template: LayerFile | null = null;
  const name = file.ref.kind === 'project' ? file.value?.template : undefined;
  if (name !== undefined && name !== '' && name !== NONE_SENTINEL) {
    const found = readTemplate(opts, file, name, [defaults, ...chain, file]);
    if ('rule' in found) issues.push(found);
    else {
      template = canonicalFile(found, canon);
      issues.push(...found.issues);
    }
  }
  issues.push(...chainIssues);
  return { template, chain };
}

interface LayersBelow {
  /** core, default.config (unless it is the file), the template, the chain root first. */
  layers: CheckedLayer[];
  /** Issues in those files; the layers are incomplete when there are any. */
  issues: ConfigIssue[];
  /** The template layer's id (`byre/node`), when the file selects one. */
  template: string | null;
}

/**
 * The layers beneath one file of the cascade, for an editor of that file:
 * what its values merge over. `file` is the file as currently edited (its
 * `template` and `extends` decide the rest), already validated.
 */
export function readLayersBelow(
  opts: Omit<CascadeOptions, 'projectId' | 'userHome'>,
  file: LayerFile,
): LayersBelow {
  const canon = opts.canon ?? AS_WRITTEN;
  const issues: ConfigIssue[] = [];
  if (file.ref.kind === 'default') return { layers: [coreLayer()], issues, template: null };
  const defaults = canonicalFile(
    readLayerFile(defaultConfigPath(opts.home), 'default', 'default'),
    canon,
  );
  if (defaults) issues.push(...defaults.issues);
  const { template, chain } = templateAndChain(
    { ...opts, projectId: '' },
    canon,
    defaults,
    file,
    issues,
  );
  const files = [defaults, template, ...chain].filter((f): f is LayerFile => f !== null);
  return {
    layers: [coreLayer(), ...layerInputs(files)],
    issues,
    template: template?.ref.name ?? null,
  };
}

/**
 * Read the whole cascade for one project and merge it:
 * core ⊕ default ⊕ template ⊕ chain(root…parent) ⊕ project.
 * Throws ConfigError carrying every issue found in every file.
 */
export function loadCascade(opts: CascadeOptions): CascadeResult {
  if (!isValidProjectId(opts.projectId)) {
    throw new ConfigError([
      issue(
        'config.project-id-invalid',
        projectConfigPath(opts.home, opts.projectId),
        `project id ${JSON.stringify(opts.projectId)} is not a byre project id`,
      ),
    ]);
  }
  const canon = opts.canon ?? AS_WRITTEN;
  const issues: ConfigIssue[] = [];
  const defaults = canonicalFile(
    readLayerFile(defaultConfigPath(opts.home), 'default', 'default'),
    canon,
  );
  const project = canonicalFile(
    opts.projectText === undefined
      ? readLayerFile(projectConfigPath(opts.home, opts.projectId), 'project', 'project')
      : textLayer(opts.projectText, opts.home, opts.projectId),
    canon,
  );
  if (defaults) issues.push(...defaults.issues);
  if (project) issues.push(...project.issues);

  const { template, chain } = project?.value
    ? templateAndChain(opts, canon, defaults, project, issues)
    : { template: null, chain: [] };
  if (issues.length > 0) throw new ConfigError(issues);

  const files = [defaults, template, ...chain, project].filter((f): f is LayerFile => f !== null);
  const layers: CheckedLayer[] = [coreLayer(), ...layerInputs(files)];
  const config = mergeLayers(layers);
  if (template && config.template && project) {
    config.template = { value: template.ref.name, from: project.ref };
  }
  const locate = valueLocation(layers);
  const collisions = checkEffective(config, layers);
  if (collisions.length > 0) throw new ConfigError(collisions);
  if (opts.userHome !== undefined) {
    const missing = checkMountHosts(config, layerLocator(locate), opts.userHome, hostPathExists);
    if (missing.length > 0) throw new ConfigError(missing);
  }
  return { config, issues: files.flatMap((f) => f.warnings), locate, layers };
}
