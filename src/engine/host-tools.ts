// Host tool pinning: resolves a tool name (docker, podman, git, ssh ...) to an
// absolute path once per invocation, walking PATH ourselves. A binary found
// in, through or out of a directory a box can write (adr/0046) is DECLINED,
// never run and never mistaken for an absent tool. This module must never
// spawn anything.

import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

import { ByreError, RefusedError } from '../errors.js';
import { toolInBoxTree, type BoxTree } from '../project/box-trees.js';
import { walkHostPath } from '../project/host-path-view.js';

export type ToolResolution =
  | { kind: 'found'; path: string }
  | { kind: 'absent' }
  /** `path` is where the tool's resolution enters `root`: the PATH entry's binary, a link on the way, or where it resolves. */
  | { kind: 'declined'; tool: string; path: string; root: string };

interface HostToolOptions {
  /** The box-writable trees (containment/writable-trees.ts), as paths. */
  declinedRoots: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Where relative PATH entries (and the empty entry, POSIX ".") resolve. */
  cwd?: string;
}

/** A host tool PATH found inside a box-writable directory; byre will not run it. */
export class ShadowedToolError extends RefusedError {
  readonly tool: string;
  readonly path: string;
  readonly root: string;
  constructor(tool: string, toolPath: string, root: string) {
    super(
      `declined to run ${tool}: PATH resolves it through ${toolPath}, inside ${root}, which the box can write`,
      {
        rule: 'hosttool.declined',
        remedy: `remove ${root} (or the directory holding ${toolPath}) from PATH, or install ${tool} where no box can write and put it first on PATH`,
      },
    );
    this.name = 'ShadowedToolError';
    this.tool = tool;
    this.path = toolPath;
    this.root = root;
  }
}

/** The tool is nowhere on PATH. */
export class AbsentToolError extends ByreError {
  readonly tool: string;
  constructor(tool: string) {
    super(`${tool} was not found on PATH`, {
      rule: 'hosttool.absent',
      remedy: `install ${tool} or add its directory to PATH`,
    });
    this.name = 'AbsentToolError';
    this.tool = tool;
  }
}

/**
 * Resolves `tool` the way a shell would (first executable regular file on
 * PATH) and declines it when the PATH directory lies under a declined root,
 * a link followed on the way to the binary lives inside one (a box could
 * retarget it), or the binary resolves into one. The first hit decides: a
 * shadowing binary is reported, not skipped over.
 */
export function resolveHostTool(tool: string, options: HostToolOptions): ToolResolution {
  if (tool === '' || tool.includes('/')) {
    // byre only ever names bare tools; a path would bypass PATH pinning.
    throw new ByreError(`host tool name must be bare, got "${tool}"`, {
      rule: 'hosttool.bad-name',
    });
  }
  const cwd = options.cwd ?? process.cwd();
  const roots = canonicalRoots(options.declinedRoots, cwd);
  const entries = (options.env['PATH'] ?? '').split(path.delimiter);
  const seen = new Set<string>();
  for (const entry of entries) {
    const dir = path.resolve(cwd, entry === '' ? '.' : entry);
    if (seen.has(dir)) continue;
    seen.add(dir);
    const candidate = path.join(dir, tool);
    if (!isExecutableFile(candidate)) continue;
    const hit = toolInBoxTree(dir, walkHostPath(candidate), roots);
    if (hit !== null) {
      const at = hit.via === dir ? candidate : hit.via;
      return { kind: 'declined', tool, path: at, root: hit.tree.what };
    }
    return { kind: 'found', path: candidate };
  }
  return { kind: 'absent' };
}

/** Per-invocation cache: each tool resolves once, so every spawn runs the same binary. */
interface HostTools {
  resolve(tool: string): ToolResolution;
  /** The absolute path, or ShadowedToolError / AbsentToolError. */
  require(tool: string): string;
}

export function createHostTools(options: HostToolOptions): HostTools {
  const cache = new Map<string, ToolResolution>();
  const resolve = (tool: string): ToolResolution => {
    let hit = cache.get(tool);
    if (hit === undefined) {
      hit = resolveHostTool(tool, options);
      cache.set(tool, hit);
    }
    return hit;
  };
  return {
    resolve,
    require(tool) {
      return requireResolved(tool, resolve(tool));
    },
  };
}

/** Turns a resolution into a path or the matching typed error. */
export function requireResolved(tool: string, resolution: ToolResolution): string {
  switch (resolution.kind) {
    case 'found':
      return resolution.path;
    case 'declined':
      throw new ShadowedToolError(resolution.tool, resolution.path, resolution.root);
    case 'absent':
      throw new AbsentToolError(tool);
  }
}

/** The roots each list of them resolved to, by list and cwd: callers hand the same list to every tool. */
const resolvedRoots = new WeakMap<readonly string[], Map<string, BoxTree[]>>();

function canonicalRoots(roots: readonly string[], cwd: string): BoxTree[] {
  let byCwd = resolvedRoots.get(roots);
  if (byCwd === undefined) resolvedRoots.set(roots, (byCwd = new Map()));
  let trees = byCwd.get(cwd);
  if (trees === undefined) byCwd.set(cwd, (trees = canonicalRootsOnce(roots, cwd)));
  return trees;
}

function canonicalRootsOnce(roots: readonly string[], cwd: string): BoxTree[] {
  return roots
    .filter((r) => r !== '')
    .map((r) => {
      const given = path.resolve(cwd, r);
      return { given, path: canonical(given), what: r };
    });
}

/** realpath when the path exists; otherwise the lexical absolute path. */
function canonical(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
