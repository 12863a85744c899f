// Pins the host source of every bind byre hands the engine (adr/0045): each
// source is pinned once (host/path-pin.ts: the object the engine will
// mount, its real path, its device and inode). The containment rules judge
// that real path and the box's launcher proves the engine mounted that very object, so a
// path swapped between byre's check and the engine's start cannot reach a
// bind. Linux only (a remote engine gets no proof: engine/locality.ts).

import { RefusedError } from '../errors.js';
import type { ProvenBind } from '../gen/bind-proof.js';
import { WORKSPACE } from '../gen/box-layout.js';
import { hostBinds, type RunParams } from '../gen/run-argv.js';
import { pinSource, type PinnedSource } from '../host/path-pin.js';

/** Pins keyed by the source string exactly as the engine gets it. */
export type BindPins = ReadonlyMap<string, PinnedSource>;

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
function changedBinds(binds: readonly SourcedBind[], proven: readonly ProvenBind[]): string[] {
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
