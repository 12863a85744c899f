// byre's own files are never in the box (adr/0018): the store holds the
// consent documents that decide what a box may reach, and the byre
// executable runs on the host after the box exits. A bind that reaches
// either would let the agent rewrite its own grants or replace byre. Pure:
// callers pass canonical paths (containment/check.ts gathers them).

import path from 'node:path';

/** The host paths no box may reach. All canonical (symlinks resolved). */
export interface GuardedPaths {
  /** The user's home directory. */
  home: string;
  /** The store (BYRE_HOME, default ~/.byre). */
  store: string;
  /**
   * Where the store's linked config files lead (a default.config or layer
   * kept in a dotfiles repository, adr/0058): the consent documents as much
   * as the store itself.
   */
  configLinks?: readonly string[];
  /** The running byre executable, and the path it was reached by when that differs. */
  executables: readonly string[];
  /**
   * Where deliver and grab may keep their memo of which podman container is
   * which box (adr/0044): a box that could rewrite it could have another
   * project's deliveries land in itself.
   */
  runtime: readonly string[];
}

/** One host path a box would get, as the run argv would give it. */
export interface BoxPath {
  /** Canonical host path. */
  host: string;
  /** `rw`: the box can change it; `ro` also covers one-time copies (volume seeds). */
  mode: 'rw' | 'ro';
  kind: 'workspace' | 'mount' | 'seed';
  /** How messages name it: "the project directory /p", "the mount ~/x -> /data" … */
  label: string;
  /** The declaration it comes from, so an editor can locate the refusal at its key. */
  declared?: { mount: string } | { volume: string };
}

export interface ContainmentRefusal {
  rule: string;
  message: string;
  remedy: string;
  /** The path refused (absent for a refusal that is not about one). */
  path?: BoxPath;
}

/** `a` is `b` or one of its ancestors. Pure, on canonical absolute paths. */
export function isAncestorOrSelf(a: string, b: string): boolean {
  if (a === b) return true;
  const rel = path.relative(a, b);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

const REMEDY_FOR: Record<BoxPath['kind'], string> = {
  workspace: 'run byre from a project directory that does not hold the store',
  mount: 'remove or narrow that mount',
  seed: 'seed that volume from somewhere else',
};

function workspaceRefusals(p: BoxPath, guarded: GuardedPaths): ContainmentRefusal[] {
  if (!isAncestorOrSelf(p.host, guarded.home)) return [];
  const which =
    p.host === guarded.home ? 'your home directory' : 'an ancestor of your home directory';
  return [
    {
      rule: 'containment.home',
      message: `${p.label} is ${which}; a box would get all of it read-write`,
      remedy: 'cd into the project you mean (a directory of its own) and run byre there',
    },
  ];
}

function storeRefusal(p: BoxPath, guarded: GuardedPaths): ContainmentRefusal[] {
  const { store } = guarded;
  const holds = isAncestorOrSelf(p.host, store);
  if (!holds && !isAncestorOrSelf(store, p.host)) return [];
  const relation = holds ? `contains byre's store ${store}` : `lies inside byre's store ${store}`;
  return [
    {
      rule: 'containment.store',
      message: `${p.label} ${relation}; the box could ${p.mode === 'rw' ? 'rewrite' : 'read'} the consent documents that decide its own grants`,
      remedy: `${REMEDY_FOR[p.kind]}, or move the store elsewhere (BYRE_HOME=<a directory no box reaches>)`,
    },
  ];
}

/**
 * Where to suggest installing byre instead: the first usual place outside
 * `host`, so the remedy never names a place the same rule refuses (a project
 * directory of `~` or `~/.local` holds `~/.local/bin`).
 */
function installPlace(host: string, home: string): string {
  const places: [string, string][] = [
    [path.join(home, '.local', 'bin'), '~/.local/bin'],
    ['/usr/local/bin', '/usr/local/bin'],
  ];
  const outside = places.find(([place]) => !isAncestorOrSelf(host, place));
  return outside === undefined
    ? 'install byre outside this directory'
    : `install byre outside this directory (e.g. ${outside[1]})`;
}

function configLinkRefusal(p: BoxPath, guarded: GuardedPaths): ContainmentRefusal[] {
  const target = (guarded.configLinks ?? []).find(
    (t) => isAncestorOrSelf(p.host, t) || isAncestorOrSelf(t, p.host),
  );
  if (target === undefined) return [];
  return [
    {
      rule: 'containment.store',
      message: `${p.label} reaches ${target}, a config file byre's store links to; the box could ${p.mode === 'rw' ? 'rewrite' : 'read'} the consent documents that decide its own grants`,
      remedy: `${REMEDY_FOR[p.kind]}, or keep that config file where no box reaches (replace the link in the store with the file)`,
    },
  ];
}

function executableRefusal(p: BoxPath, guarded: GuardedPaths): ContainmentRefusal[] {
  if (p.mode !== 'rw') return [];
  const exe = guarded.executables.find((e) => isAncestorOrSelf(p.host, e));
  if (exe === undefined) return [];
  return [
    {
      rule: 'containment.executable',
      message: `${p.label} contains the byre executable ${exe} read-write; the box could replace the byre you run next`,
      remedy:
        p.kind === 'workspace'
          ? `${installPlace(p.host, guarded.home)}, or run byre from another directory`
          : 'make that mount read-only, narrow it, or install byre elsewhere',
    },
  ];
}

function runtimeRefusal(p: BoxPath, guarded: GuardedPaths): ContainmentRefusal[] {
  if (p.mode !== 'rw') return [];
  const dir = guarded.runtime.find(
    (r) => isAncestorOrSelf(p.host, r) || isAncestorOrSelf(r, p.host),
  );
  if (dir === undefined) return [];
  return [
    {
      rule: 'containment.runtime',
      message: `${p.label} reaches byre's runtime directory ${dir} read-write; the box could rewrite which container deliver and grab take for which project`,
      remedy:
        p.kind === 'workspace'
          ? 'run byre from a project directory of its own'
          : "make that mount read-only or narrow it (a read-write host /tmp or /run/user also hands the box your other tools' sockets)",
    },
  ];
}

/**
 * Every reason the box would reach byre's own files: a workspace that is
 * (or holds) the home directory, any path overlapping the store or a config
 * file it links to (read-write or read-only), a writable path holding the
 * executable or overlapping the runtime directory. Empty when none.
 */
export function containmentRefusals(
  paths: readonly BoxPath[],
  guarded: GuardedPaths,
): ContainmentRefusal[] {
  return paths.flatMap((p) =>
    [
      ...(p.kind === 'workspace' ? workspaceRefusals(p, guarded) : []),
      ...storeRefusal(p, guarded),
      ...configLinkRefusal(p, guarded),
      ...executableRefusal(p, guarded),
      ...runtimeRefusal(p, guarded),
    ].map((r) => ({ ...r, path: p })),
  );
}
