import { describe, expect, it } from 'vitest';

import { formatMismatch, readArtifactFormat } from './artifact-format.js';

/** An ELF header: class, data, type, machine at their offsets. */
function elf(opts: { cls?: number; data?: number; type?: number; machine: number }): Uint8Array {
  const b = new Uint8Array(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, opts.cls ?? 2, opts.data ?? 1, 1]);
  const v = new DataView(b.buffer);
  v.setUint16(16, opts.type ?? 2, true);
  v.setUint16(18, opts.machine, true);
  return b;
}

/** A 64-bit Mach-O header with the given load commands (cmd, size). */
function macho(cpu: number, fileType: number, commands: [number, number][]): Uint8Array {
  const size = commands.reduce((n, [, s]) => n + s, 0);
  const b = new Uint8Array(32 + size);
  const v = new DataView(b.buffer);
  v.setUint32(0, 0xfeedfacf, true);
  v.setUint32(4, cpu, true);
  v.setUint32(12, fileType, true);
  v.setUint32(16, commands.length, true);
  v.setUint32(20, size, true);
  let at = 32;
  for (const [cmd, s] of commands) {
    v.setUint32(at, cmd, true);
    v.setUint32(at + 4, s, true);
    at += s;
  }
  return b;
}

const X86 = 0x01000007;
const ARM = 0x0100000c;
const SEGMENT: [number, number] = [0x19, 72];
const SIGNATURE: [number, number] = [0x1d, 16];

describe('readArtifactFormat + formatMismatch', () => {
  it.each([
    ['x86-64 ELF executable', elf({ machine: 0x3e }), 'linux', 'x64', null],
    ['aarch64 PIE', elf({ machine: 0xb7, type: 3 }), 'linux', 'arm64', null],
    ['aarch64 named x64', elf({ machine: 0xb7 }), 'linux', 'x64', 'built for arm64, not x64'],
    ['RISC-V', elf({ machine: 0xf3 }), 'linux', 'x64', 'built for other, not x64'],
    ['a shared object', elf({ machine: 0x3e, type: 1 }), 'linux', 'x64', 'not an executable'],
    ['32-bit', elf({ machine: 0x3e, cls: 1 }), 'linux', 'x64', 'a 32-bit ELF'],
    ['big-endian', elf({ machine: 0x3e, data: 2 }), 'linux', 'x64', 'a big-endian ELF'],
    ['an ELF named darwin', elf({ machine: 0xb7 }), 'darwin', 'arm64', 'a elf file, not macho'],
    ['signed arm64 Mach-O', macho(ARM, 2, [SEGMENT, SIGNATURE]), 'darwin', 'arm64', null],
    [
      'unsigned arm64 Mach-O',
      macho(ARM, 2, [SEGMENT]),
      'darwin',
      'arm64',
      'carries no code signature',
    ],
    ['unsigned x86-64 Mach-O', macho(X86, 2, [SEGMENT]), 'darwin', 'x64', null],
    [
      'x86-64 Mach-O named arm64',
      macho(X86, 2, [SIGNATURE]),
      'darwin',
      'arm64',
      'built for x64, not arm64',
    ],
    ['a Mach-O dylib', macho(ARM, 6, [SIGNATURE]), 'darwin', 'arm64', 'not an executable'],
    ['a Mach-O named linux', macho(X86, 2, []), 'linux', 'x64', 'a macho file, not elf'],
  ] as const)('%s', (_name, head, os, arch, expected) => {
    expect(formatMismatch(readArtifactFormat(head), os, arch)).toBe(expected);
  });

  it.each([
    ['a shell script', new TextEncoder().encode('#!/bin/sh\necho hi\n')],
    ['empty', new Uint8Array(0)],
    ['a fat Mach-O', new Uint8Array([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2])],
    ['a truncated ELF', new Uint8Array([0x7f, 0x45, 0x4c, 0x46])],
  ])('%s is unknown', (_name, head) => {
    const format = readArtifactFormat(head);
    expect(format.kind).toBe('unknown');
    expect(formatMismatch(format, 'linux', 'x64')).not.toBeNull();
  });

  it('reads a header cut short inside its load commands without throwing', () => {
    const head = macho(ARM, 2, [SEGMENT, SIGNATURE]);
    new DataView(head.buffer).setUint32(16, 9, true);
    expect(readArtifactFormat(head.subarray(0, 32 + 72 + 4))).toMatchObject({
      kind: 'macho',
      signed: false,
    });
  });
});
