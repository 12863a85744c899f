// The deliver app's icon, generated in code rather than shipped as binary
// art: a 64x64 RGBA PNG (stored deflate blocks, so the bytes never depend on
// a zlib version) carrying a tEXt chunk that lets a later byre recognise its
// own icon, and the same PNG wrapped as a macOS .icns.

import { crc32 } from 'node:zlib';

export const ICON_SIZE = 64;
const ICON_SOFTWARE_TAG = 'byre deliver-app icon';

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const x of bytes) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function u32(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function ascii(s: string): Uint8Array {
  return new Uint8Array([...s].map((c) => c.charCodeAt(0) & 0xff));
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const body = concat([ascii(type), data]);
  return concat([u32(data.length), body, u32(crc32(body))]);
}

/** zlib stream of stored (uncompressed) deflate blocks. */
function zlibStored(raw: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [new Uint8Array([0x78, 0x01])];
  let at = 0;
  do {
    const end = Math.min(raw.length, at + 65535);
    const len = end - at;
    const final = end >= raw.length ? 1 : 0;
    parts.push(new Uint8Array([final, len & 0xff, len >>> 8, ~len & 0xff, (~len >>> 8) & 0xff]));
    parts.push(raw.subarray(at, end));
    at = end;
  } while (at < raw.length);
  parts.push(u32(adler32(raw)));
  return concat(parts);
}

/** An inbox tray with a down arrow, white on teal, on a rounded square. */
function pixel(x: number, y: number, size: number): [number, number, number, number] {
  const s = size / 64;
  const X = x / s;
  const Y = y / s;
  const r = 12;
  const cx = Math.min(Math.max(X, r + 2), 62 - r);
  const cy = Math.min(Math.max(Y, r + 2), 62 - r);
  if (X < 2 || X >= 62 || Y < 2 || Y >= 62 || (X - cx) ** 2 + (Y - cy) ** 2 > r * r) {
    return [0, 0, 0, 0];
  }
  const shaft = X >= 28 && X < 36 && Y >= 12 && Y < 34;
  const head = Y >= 30 && Y < 42 && Math.abs(X - 31.5) <= 41.5 - Y;
  const trayBase = Y >= 46 && Y < 51 && X >= 14 && X < 50;
  const traySides = Y >= 36 && Y < 51 && ((X >= 14 && X < 19) || (X >= 45 && X < 50));
  return shaft || head || trayBase || traySides ? [255, 255, 255, 255] : [31, 122, 140, 255];
}

export function renderIconPng(size = ICON_SIZE): Uint8Array {
  const raw = new Uint8Array(size * (1 + size * 4));
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 4);
    raw[row] = 0; // filter: none
    for (let x = 0; x < size; x++) raw.set(pixel(x, y, size), row + 1 + x * 4);
  }
  const ihdr = concat([u32(size), u32(size), new Uint8Array([8, 6, 0, 0, 0])]);
  return concat([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('tEXt', ascii(`Software\0${ICON_SOFTWARE_TAG}`)),
    chunk('IDAT', zlibStored(raw)),
    chunk('IEND', new Uint8Array()),
  ]);
}

/** A PNG byre generated (any version): PNG signature plus byre's tEXt tag. */
export function isByreIcon(bytes: Uint8Array): boolean {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 64 || !sig.every((b, i) => bytes[i] === b)) return false;
  const head = String.fromCharCode(...bytes.subarray(0, 256));
  return head.includes(`tEXtSoftware\0${ICON_SOFTWARE_TAG}`);
}

/** The icon as .icns: one 'icp6' (64x64 PNG) element. */
export function renderIconIcns(): Uint8Array {
  const png = renderIconPng(64);
  const element = concat([ascii('icp6'), u32(png.length + 8), png]);
  return concat([ascii('icns'), u32(element.length + 8), element]);
}
