// The edge image record (adr/0083): only this byre's record for this engine
// names an image; anything else in the file is no record; a write happens
// only when the id changes, private, and never through a link.

import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { edgeImageDigest } from '../gen/edge-image.js';
import { useTempDir } from '../../test/support/temp.js';
import { recordEdgeImage, recordedEdgeImage } from './edge-image-record.js';

const tmp = useTempDir('edge-record');
const ID = `sha256:${'ab'.repeat(32)}`;
const OTHER = `sha256:${'cd'.repeat(32)}`;

describe('recordedEdgeImage', () => {
  const record = (text: string): string => {
    const file = path.join(tmp.path, 'record');
    writeFileSync(file, text);
    return file;
  };
  const digest = edgeImageDigest('podman');

  it('reads back the id byre wrote for the same engine', async () => {
    const file = path.join(tmp.path, 'record');
    await recordEdgeImage(file, 'podman', ID);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ engine: 'podman', digest, id: ID });
    expect(recordedEdgeImage(file, 'podman')).toBe(ID);
  });

  it.each([
    ['another engine’s', { engine: 'docker', digest: edgeImageDigest('docker'), id: ID }],
    ['an older byre’s (another edge context)', { engine: 'podman', digest: 'x', id: ID }],
    ['a name, not an id', { engine: 'podman', digest, id: 'byre-edge:latest' }],
    ['a short id', { engine: 'podman', digest, id: 'sha256:abc' }],
    ['JSON null', null],
  ])('is no record: %s', (_what, value) => {
    expect(recordedEdgeImage(record(JSON.stringify(value)), 'podman')).toBeNull();
  });

  it('is no record: not JSON, or larger than byre writes', () => {
    expect(recordedEdgeImage(record(`${ID}\n`), 'podman')).toBeNull();
    const padded = `${JSON.stringify({ engine: 'podman', digest, id: ID })}${' '.repeat(2048)}`;
    expect(recordedEdgeImage(record(padded), 'podman')).toBeNull();
  });
});

describe('recordEdgeImage and recordedEdgeImage', () => {
  const file = (): string => path.join(tmp.path, 'edge', 'p-1a2b3c.image-id');

  it('writes a private record, read back for its engine only; an unchanged id is not written again', async () => {
    expect(recordedEdgeImage(file(), 'podman')).toBeNull();
    await recordEdgeImage(file(), 'podman', ID);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file())).mode & 0o777).toBe(0o700);
    expect(recordedEdgeImage(file(), 'podman')).toBe(ID);
    expect(recordedEdgeImage(file(), 'docker')).toBeNull();
    const before = lstatSync(file()).ino;
    await recordEdgeImage(file(), 'podman', ID);
    expect(lstatSync(file()).ino).toBe(before);
    await recordEdgeImage(file(), 'podman', OTHER);
    expect(recordedEdgeImage(file(), 'podman')).toBe(OTHER);
  });

  it('follows no link and reads no FIFO; a write replaces the link itself', async () => {
    const target = path.join(tmp.path, 'elsewhere');
    await recordEdgeImage(target, 'podman', ID);
    const written = readFileSync(target, 'utf8');
    await recordEdgeImage(file(), 'podman', OTHER);
    const link = path.join(tmp.path, 'edge', 'link.image-id');
    symlinkSync(target, link);
    expect(recordedEdgeImage(link, 'podman')).toBeNull();
    await recordEdgeImage(link, 'podman', OTHER);
    expect(readFileSync(target, 'utf8')).toBe(written);
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
    const fifo = path.join(tmp.path, 'edge', 'fifo.image-id');
    execFileSync('mkfifo', [fifo]);
    expect(recordedEdgeImage(fifo, 'podman')).toBeNull();
  });
});
