// Pins the host source of every bind byre hands the engine (adr/0045): the
// source is opened once (O_PATH, following links as the engine will), the
// open object's real path is read back from /proc/self/fd, and its device
// and inode from the descriptor. The containment rules judge that real path
// and the box's launcher proves the engine mounted that very object, so a
// path swapped between byre's check and the engine's start cannot reach a
// bind. Linux only (a remote engine gets no proof: engine/locality.ts).

import { closeSync, constants, fstatSync, openSync, readlinkSync } from 'node:fs';

import { ByreError, RefusedError } from '../errors.js';
import type { ProvenBind } from '../gen/bind-proof.js';
import { WORKSPACE } from '../gen/box-layout.js';
import { hostBinds, type RunParams } from '../gen/run-argv.js';

/** Linux's O_PATH (the same on x86-64 and arm64); node exports no constant for it. */
const O_PATH = 0o10000000;

/** A bind source as byre pinned it: the object's identity and where it really was. */
interface BindPin {
  dev: bigint;
  ino: bigint;
  /** The open object's real path (symlinks resolved by the kernel, not by a second walk). */
  real: string;
}

/** Pinned, or why nothing can be bound there (gone, a loop of links, a link where none may be). */
type PinnedSource = { kind: 'pinned'; pin: BindPin } | { kind: 'unbindable'; why: string };

/** Pins keyed by the source string exactly as the engine gets it. */
export type BindPins = ReadonlyMap<string, PinnedSource>;

function unpinnable(source: string, error: unknown): ByreError {
  const why = error instanceof Error ? error.message : String(error);
  return new ByreError(`byre cannot pin the bind source ${source}: ${why}`, {
    rule: 'bind.unpinnable',
    remedy: 'make the path readable by your user, or remove the mount that names it',
    cause: error,
  });
}

/**
 * Opens `source`, reads back what it opened, closes it. `noFollow`: the
 * last component must not be a link (seed_prefs' entries, which byre
 * chose for not being one); the engine follows links everywhere, so a link
 * planted later is another object and fails the proof.
 */
export function pinSource(source: string, options: { noFollow?: boolean } = {}): PinnedSource {
  let fd: number;
  try {
    fd = openSync(source, O_PATH | (options.noFollow === true ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') {
      return {
        kind: 'unbindable',
        why: code === 'ELOOP' ? 'a loop of links' : 'it does not exist',
      };
    }
    throw unpinnable(source, error);
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (st.isSymbolicLink()) return { kind: 'unbindable', why: 'a symbolic link' };
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    // The kernel marks an object unlinked since the open; nothing is there to bind.
    if (real.endsWith(' (deleted)')) return { kind: 'unbindable', why: 'it was removed' };
    return { kind: 'pinned', pin: { dev: st.dev, ino: st.ino, real } };
  } catch (error) {
    throw unpinnable(source, error);
  } finally {
    closeSync(fd);
  }
}

/** Every source pinned once, in order; duplicates share one pin. */
export function pinSources(sources: Iterable<string>): Map<string, PinnedSource> {
  const pins = new Map<string, PinnedSource>();
  for (const s of sources) if (!pins.has(s)) pins.set(s, pinSource(s));
  return pins;
}

/** One bind as the engine gets it, with a name for messages. */
export interface SourcedBind {
  source: string;
  target: string;
  /** "the mount ~/x -> /data", "the project directory /p" … */
  label: string;
}

/**
 * The proof list for `binds`: each target with its source's pin. A source
 * that is gone fails closed here; one that was never pinned is byre's bug
 * (its pin would not be the object the rules judged), never a silent skip.
 */
export function provenBinds(binds: readonly SourcedBind[], pins: BindPins): ProvenBind[] {
  return binds.map((b) => {
    const pinned = pins.get(b.source);
    if (pinned === undefined) throw new TypeError(`bind source ${b.source} was not pinned`);
    if (pinned.kind === 'unbindable') {
      throw new RefusedError(`byre will not bind ${b.label}: ${pinned.why}`, {
        rule: 'bind.source-missing',
        remedy: 'restore it, or remove the grant that names it, then run the command again',
      });
    }
    return { target: b.target, dev: pinned.pin.dev, ino: pinned.pin.ino };
  });
}

/**
 * After a failed proof: the binds whose source, pinned again now, is another
 * object than the one proven, each said in a line. Empty when every source
 * is back to what byre checked (it was swapped and swapped back).
 */
export function changedBinds(
  binds: readonly SourcedBind[],
  proven: readonly ProvenBind[],
): string[] {
  return binds.flatMap((b, i) => {
    const expected = proven[i];
    if (expected === undefined) return [];
    let now: PinnedSource;
    try {
      now = pinSource(b.source);
    } catch (error) {
      return [
        `${b.label}: cannot be pinned now (${error instanceof Error ? error.message : String(error)})`,
      ];
    }
    if (now.kind === 'unbindable') return [`${b.label}: ${now.why} now`];
    if (now.pin.dev === expected.dev && now.pin.ino === expected.ino) return [];
    return [`${b.label}: ${b.source} now leads to ${now.pin.real}, another object`];
  });
}

/**
 * The refusal when a proof failed (the launcher or a helper exited
 * BIND_PROOF_EXIT): what was stopped, and each bind that leads elsewhere now.
 */
export function bindProofRefusal(
  what: string,
  binds: readonly SourcedBind[],
  proven: readonly ProvenBind[],
): RefusedError {
  const changed = changedBinds(binds, proven);
  return new RefusedError(
    `${what}: a bind was not the object byre checked when the engine mounted it, so nothing ran there (fail closed)`,
    {
      rule: 'bind.changed',
      details:
        changed.length > 0
          ? changed
          : [
              "every bind leads to what byre checked again now: it was swapped and swapped back, or the command in the box itself exited with the proof's status",
            ],
      remedy:
        'something that can write a directory above that bind (another box of this project, a process on this host) replaced it; stop it, restore the path, then run the command again',
    },
  );
}

/** A box's binds with what the launcher proves for them. */
export interface BoxProof {
  binds: SourcedBind[];
  proven: ProvenBind[];
}

/** The proof for a box's binds (every one: the workspace, config, skill and extra binds). */
export function proofOfBox(
  params: Pick<RunParams, 'workspaceDir' | 'home' | 'configMounts' | 'skillMounts' | 'extraBinds'>,
  pins: BindPins,
): BoxProof {
  const binds = hostBinds(params).map((b) => ({
    source: b.source,
    target: b.target,
    label:
      b.target === WORKSPACE
        ? `the project directory ${b.source}`
        : `the mount ${b.host} -> ${b.target}`,
  }));
  return { binds, proven: provenBinds(binds, pins) };
}
