// Reads this project's store for the `--self-edit` report: every file's
// state and `byre.config`'s text, walked without following links or opening
// FIFOs, bounded in entries, size and time (the box could write all of it).

import path from 'node:path';

import { listEntries, lstatEntry } from '../host/path-view.js';
import { readRegularFile } from '../host/read-regular.js';
import { MAX_CONFIG_BYTES } from '../config/parse.js';
import { SNAPSHOT_BUDGET_MS } from './snapshot.js';
import { fileState } from './within-roots.js';
import { BYRE_WORKING_ENTRIES, type StoreSnapshot } from './store-report.js';

/** Entries the walk reads at most. */
const STORE_ENTRY_LIMIT = 2000;

export function snapshotStore(dir: string, now: () => number = Date.now): StoreSnapshot {
  const deadline = now() + SNAPSHOT_BUDGET_MS;
  const files: StoreSnapshot['files'] = {};
  const unchecked: string[] = [];
  const stack: string[] = [''];
  let seen = 0;
  let complete = true;
  walk: while (stack.length > 0) {
    const rel = stack.pop() as string;
    let names: string[];
    try {
      names = listEntries(path.join(dir, rel)).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      if (++seen > STORE_ENTRY_LIMIT || now() > deadline) {
        unchecked.push(
          seen > STORE_ENTRY_LIMIT
            ? `store entries beyond the first ${STORE_ENTRY_LIMIT}`
            : `the rest of the store (the ${SNAPSHOT_BUDGET_MS / 1000} s budget ran out)`,
        );
        complete = false;
        break walk;
      }
      const p = path.join(dir, childRel);
      let stat;
      try {
        stat = lstatEntry(p);
      } catch {
        continue;
      }
      const working = rel === '' && (BYRE_WORKING_ENTRIES as readonly string[]).includes(name);
      if (stat.isDirectory()) {
        if (working) files[childRel] = { kind: 'other', what: 'a directory' };
        else stack.push(childRel);
        continue;
      }
      files[childRel] = fileState(p, stat);
    }
  }
  let config: string | null = null;
  try {
    const read = readRegularFile(path.join(dir, 'byre.config'), MAX_CONFIG_BYTES);
    if (read.kind === 'ok') config = read.bytes.toString('utf8');
  } catch {
    config = null;
  }
  return { files, config, complete, unchecked };
}
