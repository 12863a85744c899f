// Reading a box's launch record back and deciding how far status may trust it.
// The label is an address to check, never to trust: the store is box-writable
// under --self-edit. The core is pure over an injected reader; the one IO
// function reads through host/read-regular.ts (no link, no FIFO, capped), and
// nothing here ever acts on a record.

import path from 'node:path';

import { launchRecordHash, parseLaunchRecord } from '../gen/launch-record.js';
import type { LaunchParseRule, LaunchRecord } from '../gen/launch-record.js';
import { readRegularFile } from '../host/read-regular.js';

/** Records larger than this are refused unread: byre never writes one near it. */
export const LAUNCH_RECORD_MAX_BYTES = 1024 * 1024;

const HASH = /^[0-9a-f]{64}$/;

/** Whether `label` has the shape of a record address (lowercase sha256 hex). */
function isLaunchRecordHash(label: string): boolean {
  return HASH.test(label);
}

/** `<hash>.toml`, the record's file name inside the launches directory. */
export function launchRecordFileName(hash: string): string {
  return `${hash}.toml`;
}

export type LaunchRecordRead =
  { kind: 'ok'; bytes: Uint8Array } | { kind: 'missing' } | { kind: 'error'; message: string };

export type UnreadableReason = 'label' | 'read' | LaunchParseRule;

export type LaunchRecordState =
  /** The box predates launch records (no `byre.launch` label). */
  | { kind: 'pre_record' }
  | { kind: 'unreadable'; label: string; reason: UnreadableReason; message: string }
  | { kind: 'missing'; hash: string }
  /** The bytes on disk no longer hash to the label. */
  | { kind: 'tampered'; hash: string; actual: string }
  /** Written by a newer byre; status reports liveness only. */
  | { kind: 'newer_schema'; hash: string; version: number }
  | { kind: 'verified'; hash: string; record: LaunchRecord };

/**
 * Label -> state, checked in this order: label shape, read, re-hash, parse.
 * `readFile` receives the validated hash; `readLaunchRecordFile` fits it.
 */
export function verifyLaunchRecord(
  label: string | undefined,
  readFile: (hash: string) => LaunchRecordRead,
): LaunchRecordState {
  if (label === undefined) return { kind: 'pre_record' };
  if (!isLaunchRecordHash(label)) {
    return {
      kind: 'unreadable',
      label,
      reason: 'label',
      message: 'label is not a sha256 hex digest',
    };
  }
  const hash = label;

  const read = readFile(hash);
  if (read.kind === 'missing') return { kind: 'missing', hash };
  if (read.kind === 'error')
    return { kind: 'unreadable', label, reason: 'read', message: read.message };

  const actual = launchRecordHash(read.bytes);
  if (actual !== hash) return { kind: 'tampered', hash, actual };

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(read.bytes);
  } catch {
    return { kind: 'unreadable', label, reason: 'launch.not-utf8', message: 'record is not UTF-8' };
  }
  const parsed = parseLaunchRecord(text);
  switch (parsed.kind) {
    case 'ok':
      return { kind: 'verified', hash, record: parsed.record };
    case 'newer_schema':
      return { kind: 'newer_schema', hash, version: parsed.version };
    case 'invalid':
      return { kind: 'unreadable', label, reason: parsed.rule, message: parsed.message };
  }
}

/**
 * Read `<dir>/<hash>.toml` without following a symlink at the final component
 * (O_NOFOLLOW) or blocking on a FIFO (O_NONBLOCK), refusing anything that is
 * not a regular file or is over LAUNCH_RECORD_MAX_BYTES.
 */
export function readLaunchRecordFile(dir: string, hash: string): LaunchRecordRead {
  if (!isLaunchRecordHash(hash)) return { kind: 'error', message: 'not a launch record hash' };
  const file = path.join(dir, launchRecordFileName(hash));
  try {
    const read = readRegularFile(file, LAUNCH_RECORD_MAX_BYTES);
    switch (read.kind) {
      case 'missing':
        return { kind: 'missing' };
      case 'not-regular':
        return {
          kind: 'error',
          message:
            read.what === 'symlink'
              ? 'record is a symlink; not followed'
              : 'record is not a regular file',
        };
      case 'too-large':
        return { kind: 'error', message: 'record is larger than 1 MiB' };
      case 'ok':
        return { kind: 'ok', bytes: new Uint8Array(read.bytes) };
    }
  } catch (error) {
    return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
  }
}
