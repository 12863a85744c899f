// The layout of byre's host-side store (BYRE_HOME, default ~/.byre): the one
// place that knows where each file lives. Pure; store.ts and the readers do
// the IO.

import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

import { ByreError } from '../errors.js';
import { isValidProjectId } from './identity.js';

const DEFAULT_CONFIG_FILE = 'default.config';
export const PROJECT_CONFIG_FILE = 'byre.config';
export const LAYER_CONFIG_FILE = 'layer.config';
const TEMPLATE_CONFIG_FILE = 'template.config';

/** The store root: $BYRE_HOME when set and non-empty, else ~/.byre. */
export function byreHome(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string = os.homedir(),
): string {
  const override = env['BYRE_HOME'];
  return override !== undefined && override !== ''
    ? path.resolve(override)
    : path.join(homeDir, '.byre');
}

/**
 * The `byre.store` label value for engine objects this store makes: 16 hex of
 * the sha256 of its path. Another user's, or another BYRE_HOME's, objects on a
 * shared engine carry another value, so doctor never prunes them (adr/0015).
 */
export function storeTag(home: string): string {
  return createHash('sha256').update(`byre-store\0${home}`, 'utf8').digest('hex').slice(0, 16);
}

export interface StorePaths {
  home: string;
  defaultConfig: string;
  templates: string;
  layers: string;
  skills: string;
  packages: string;
  projects: string;
  /** One record per linked worktree byre launched in, by worktree id (adr/0047). */
  worktrees: string;
  /** Every host directory a box was launched with write access to (adr/0046). */
  launchedTrees: string;
}

export function storePaths(home: string): StorePaths {
  return {
    home,
    defaultConfig: path.join(home, DEFAULT_CONFIG_FILE),
    templates: path.join(home, 'templates'),
    layers: path.join(home, 'layers'),
    skills: path.join(home, 'skills'),
    packages: path.join(home, 'packages'),
    projects: path.join(home, 'projects'),
    worktrees: path.join(home, 'worktrees'),
    launchedTrees: path.join(home, 'launched-trees.json'),
  };
}

export interface ProjectStorePaths {
  dir: string;
  /** The project's consent document. */
  config: string;
  /** The canonical path this id was derived from (the collision check). */
  path: string;
  /** The setup lock. */
  lock: string;
  /** The preset marker: `<sha256 of the applied preset>\n<source>`. */
  applied: string;
  /**
   * Written when the project's first develop has onboarded it (adr/0055):
   * until then a develop on a terminal runs the first-run picker, even over
   * a config the verbs wrote.
   */
  onboarded: string;
  launches: string;
  /** The build context of the base image (all but the wiring), replaced wholesale at every generate. */
  context: string;
  /** The box image's build context: the wiring and its three-line Dockerfile (adr/0073). */
  wiringContext: string;
  /**
   * Where rootless podman's boxes bind their wiring from, one directory per
   * wiring digest (adr/0075): beside the project's folder, never in it, so
   * a `--self-edit` box (which may write that folder) cannot reach it.
   */
  boundWiring: string;
  /**
   * The project's edge certificates: the CA's certificate and the leaves'
   * keys (adr/0070), beside the project's folder for the same reason.
   */
  edge: string;
  /**
   * Where the project's edge image's context is staged for a build and
   * removed after it (adr/0077), beside the certificates for the same reason.
   */
  edgeImageContext: string;
  /**
   * The edge image last found current, by id (adr/0083): the edge started
   * before the setup lock runs on it at once. Beside the certificates for
   * the same reason: a forged one would run the edge, values and all, on
   * another image.
   */
  edgeImageRecord: string;
  /**
   * develop's delivery receipts (`<launch hash>.delivered`), which status
   * reads to say a box got its credentials: beside the folder, so a
   * `--self-edit` box cannot forge one.
   */
  receipts: string;
  /** The last image build's whole engine log (0600), replaced by each build. */
  buildLog: string;
  /** The last edge image build's whole engine log (adr/0077), likewise. */
  edgeBuildLog: string;
}

/**
 * What a project keeps beside its folder, out of a `--self-edit` box's
 * reach: forget, doctor's prune and rehome remove them with the folder.
 */
export function besideFolder(
  paths: Pick<
    ProjectStorePaths,
    'boundWiring' | 'edge' | 'edgeImageContext' | 'edgeImageRecord' | 'receipts'
  >,
): string[] {
  return [
    paths.boundWiring,
    paths.edge,
    paths.edgeImageContext,
    paths.edgeImageRecord,
    paths.receipts,
  ];
}

/** Paths under projects/<id>/. Refuses ids projectIdFor cannot produce (no traversal). */
export function projectStorePaths(home: string, id: string): ProjectStorePaths {
  if (!isValidProjectId(id)) {
    throw new ByreError(`"${id}" is not a byre project id`, { rule: 'project.invalid-id' });
  }
  const dir = path.join(storePaths(home).projects, id);
  return {
    dir,
    config: path.join(dir, PROJECT_CONFIG_FILE),
    path: path.join(dir, 'path'),
    lock: path.join(dir, 'lock'),
    applied: path.join(dir, 'applied'),
    onboarded: path.join(dir, 'onboarded'),
    launches: path.join(dir, 'launches'),
    context: path.join(dir, 'context'),
    wiringContext: path.join(dir, 'wiring-context'),
    boundWiring: path.join(home, 'wiring', id),
    edge: path.join(home, 'edge', id),
    edgeImageContext: path.join(home, 'edge', `${id}.image`),
    edgeImageRecord: path.join(home, 'edge', `${id}.image-id`),
    receipts: path.join(home, 'receipts', id),
    buildLog: path.join(dir, 'build.log'),
    edgeBuildLog: path.join(dir, 'edge-build.log'),
  };
}

/** A linked worktree's identity record: its directory and its project (adr/0047). */
export function worktreeRecordPath(home: string, worktreeId: string): string {
  if (!isValidProjectId(worktreeId)) {
    throw new ByreError(`"${worktreeId}" is not a byre worktree id`, {
      rule: 'project.invalid-id',
    });
  }
  return path.join(storePaths(home).worktrees, worktreeId);
}

export function defaultConfigPath(home: string): string {
  return storePaths(home).defaultConfig;
}

/** The project config path by id, unchecked: config errors name it even for a bad id. */
export function projectConfigPath(home: string, projectId: string): string {
  return path.join(storePaths(home).projects, projectId, PROJECT_CONFIG_FILE);
}

export function layerConfigPath(home: string, name: string): string {
  return path.join(storePaths(home).layers, name, LAYER_CONFIG_FILE);
}

export function templateConfigPath(home: string, name: string): string {
  return path.join(storePaths(home).templates, ...name.split('/'), TEMPLATE_CONFIG_FILE);
}

/** Where local packages of a kind live: skills/ or templates/. */
export function packageRoot(home: string, kind: 'skill' | 'template'): string {
  const paths = storePaths(home);
  return kind === 'skill' ? paths.skills : paths.templates;
}
