// The launches directory (~/.byre/projects/<id>/launches): writing a record
// under its own hash and reaping the ones no box points at. It never deletes
// on partial knowledge: an engine byre could not ask means nothing is reaped.

import path from 'node:path';

import { ByreError } from '../errors.js';
import { writeFailure } from '../output/system-error.js';
import { writeFileAtomicSync } from '../host/atomic-write.js';
import { ensurePrivateDirSync } from '../host/make-dirs.js';
import { listEntries, lstatEntry } from '../host/path-view.js';
import { readRegularFile } from '../host/read-regular.js';
import { removeEntrySync } from '../host/remove.js';
import { launchRecordHash, renderLaunchRecord } from '../gen/launch-record.js';
import type { LaunchRecord } from '../gen/launch-record.js';
import { launchRecordFileName } from './verify.js';

const RECORD_FILE = /^([0-9a-f]{64})\.toml$/;
/** develop's receipt that the box of one record got its credentials (adr/0012). */
const RECEIPT_FILE = /^([0-9a-f]{64})\.delivered$/;
const RECEIPT_MAX_BYTES = 64 * 1024;
const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Write `record` to `<launchesDir>/<sha256>.toml` (dir 0700, file 0600) via a
 * temp file and rename, and return the hash for the `byre.launch` label. A
 * failure is a ByreError (`launch.write-failed`) naming the file; develop then
 * creates no box, since status could not tell what that box was given.
 */
export function writeLaunchRecord(launchesDir: string, record: LaunchRecord): string {
  const text = renderLaunchRecord(record);
  const hash = launchRecordHash(text);
  const target = path.join(launchesDir, launchRecordFileName(hash));
  // Content-addressed: the same launch again finds its own bytes there (a
  // warm develop of an unchanged config), and needs no write and no fsync.
  if (holdsExactly(target, text)) return hash;
  try {
    ensurePrivateDirSync(launchesDir);
    writeFileAtomicSync(target, text, { mode: 0o600, durable: true });
    return hash;
  } catch (error) {
    const failure = writeFailure(error, target, {
      rule: 'launch.write-failed',
      what: 'the launch record',
    });
    if (failure instanceof ByreError) throw failure;
    throw new ByreError(`cannot write the launch record ${target}: ${message(error)}`, {
      rule: 'launch.write-failed',
      remedy: `check that ${launchesDir} is a directory you can write`,
      cause: error,
    });
  }
}

function holdsExactly(file: string, text: string): boolean {
  try {
    const read = readRegularFile(file, Buffer.byteLength(text, 'utf8'));
    return read.kind === 'ok' && read.bytes.toString('utf8') === text;
  } catch {
    return false;
  }
}

/**
 * The hashes that records and receipts in `launchesDir` carry: a reap has
 * work only when one is not the launch being started.
 */
export function launchHashesOnDisk(launchesDir: string): Set<string> {
  const out = new Set<string>();
  let names: string[] = [];
  try {
    names = listEntries(launchesDir);
  } catch {
    return out;
  }
  for (const name of names) {
    const hash = RECORD_FILE.exec(name)?.[1] ?? RECEIPT_FILE.exec(name)?.[1];
    if (hash !== undefined) out.add(hash);
  }
  return out;
}

export type ReapResult =
  /** Nothing was deleted: byre could not see every box that might point at a record. */
  | { kind: 'abandoned'; reason: 'engines-unknown' | 'directory-unusable'; message: string }
  | {
      kind: 'reaped';
      /** Hashes whose records were deleted, sorted. */
      deleted: string[];
      /** Records kept because a box still points at them. */
      kept: number;
      failed: { hash: string; message: string }[];
    };

/**
 * Delete every `<64hex>.toml` in `launchesDir` whose hash is not in
 * `referenced` (the `byre.launch` labels on every project box, on every
 * engine). `referenced` is null when an engine query failed or an engine was
 * declined: then nothing is deleted. Other files are never touched.
 */
export function reapLaunchRecords(
  launchesDir: string,
  referenced: ReadonlySet<string> | null,
): ReapResult {
  if (referenced === null) {
    return {
      kind: 'abandoned',
      reason: 'engines-unknown',
      message:
        'not every engine could be asked which records its boxes point at; nothing was deleted',
    };
  }
  let names: string[];
  try {
    const stat = lstatEntry(launchesDir);
    if (stat.isSymbolicLink() || !stat.isDirectory()) {
      return {
        kind: 'abandoned',
        reason: 'directory-unusable',
        message: `${launchesDir} is not a directory`,
      };
    }
    names = listEntries(launchesDir).sort();
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') {
      return { kind: 'reaped', deleted: [], kept: 0, failed: [] };
    }
    return { kind: 'abandoned', reason: 'directory-unusable', message: message(error) };
  }

  const result: Extract<ReapResult, { kind: 'reaped' }> = {
    kind: 'reaped',
    deleted: [],
    kept: 0,
    failed: [],
  };
  for (const name of names) {
    const receipt = RECEIPT_FILE.exec(name)?.[1];
    if (receipt !== undefined && !referenced.has(receipt)) {
      try {
        removeEntrySync(path.join(launchesDir, name));
      } catch {
        // A stale receipt names no live box; the next reap tries again.
      }
      continue;
    }
    const hash = RECORD_FILE.exec(name)?.[1];
    if (hash === undefined) continue;
    if (referenced.has(hash)) {
      result.kept += 1;
      continue;
    }
    try {
      removeEntrySync(path.join(launchesDir, name));
      result.deleted.push(hash);
    } catch (error) {
      result.failed.push({ hash, message: message(error) });
    }
  }
  return result;
}

/**
 * Record that the box of launch record `hash` got the credentials `keys`
 * (names only, never values). Written by develop after the in-box receiver
 * confirmed; status reads it to say "delivered". Reaped with its record.
 */
export function writeDeliveryReceipt(
  launchesDir: string,
  hash: string,
  keys: readonly string[],
): void {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new RangeError('not a launch record hash');
  for (const key of keys) if (!KEY.test(key)) throw new RangeError('not a variable name');
  ensurePrivateDirSync(launchesDir);
  writeFileAtomicSync(
    path.join(launchesDir, `${hash}.delivered`),
    `${[...keys].sort().join('\n')}\n`,
    { mode: 0o600, durable: false },
  );
}

/** The keys a receipt names; null when there is none or it is not byre's shape. */
export function readDeliveryReceipt(launchesDir: string, hash: string): string[] | null {
  if (!/^[0-9a-f]{64}$/.test(hash)) return null;
  try {
    const read = readRegularFile(path.join(launchesDir, `${hash}.delivered`), RECEIPT_MAX_BYTES);
    if (read.kind !== 'ok') return null;
    const keys = read.bytes
      .toString('utf8')
      .split('\n')
      .filter((k) => k !== '');
    return keys.every((k) => KEY.test(k)) ? keys : null;
  } catch {
    return null;
  }
}
