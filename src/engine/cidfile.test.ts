// cidfileId (adr/0081): the id once the engine's client wrote it whole;
// null once the run ended without one.

import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { useTempDir } from '../../test/support/temp.js';
import { cidfileId } from './cidfile.js';

const tmp = useTempDir('cidfile');
const ID = 'c0ffee'.padEnd(64, '0');
const later = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('cidfileId', () => {
  it('waits through an absent, empty and part-written file for the whole id', async () => {
    const file = path.join(tmp.path, 'cid');
    const ended = new Promise<void>(() => undefined);
    const id = cidfileId(file, ended);
    await later(30);
    writeFileSync(file, '');
    await later(30);
    writeFileSync(file, ID.slice(0, 20));
    await later(30);
    const early = await Promise.race([id, later(30).then(() => 'waiting')]);
    expect(early).toBe('waiting');
    writeFileSync(file, ID);
    expect(await id).toBe(ID);
  });

  it('is null once the run ended without an id (the engine refused it)', async () => {
    const file = path.join(tmp.path, 'cid');
    writeFileSync(file, 'not an id');
    expect(await cidfileId(file, Promise.resolve())).toBeNull();
    expect(await cidfileId(path.join(tmp.path, 'absent'), Promise.resolve())).toBeNull();
  });

  it('takes an id written just before the run ended', async () => {
    const file = path.join(tmp.path, 'cid');
    let end = (): void => undefined;
    const ended = new Promise<void>((r) => (end = r));
    const id = cidfileId(file, ended);
    await later(20);
    writeFileSync(file, `${ID}\n`);
    end();
    expect(await id).toBe(ID);
  });
});
