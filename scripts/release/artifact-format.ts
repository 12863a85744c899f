// Reads an executable's header: ELF or Mach-O, and for which machine. The
// release refuses an artifact whose header does not match its name, and the
// tests assert the same. Pure: it takes the first bytes of the file.

import type { Arch, Os } from './targets.js';

export type ArtifactFormat =
  | { kind: 'elf'; os: 'linux'; arch: Arch | 'other'; bits: 64 | 32; executable: boolean }
  | { kind: 'macho'; os: 'darwin'; arch: Arch | 'other'; executable: boolean; signed: boolean }
  | { kind: 'unknown'; why: string };

/** How many leading bytes `readArtifactFormat` needs (the Mach-O load commands fit well inside). */
export const HEADER_BYTES = 64 * 1024;

const EM_X86_64 = 0x3e;
const EM_AARCH64 = 0xb7;
const MH_MAGIC_64 = 0xfeedfacf;
const CPU_TYPE_X86_64 = 0x01000007;
const CPU_TYPE_ARM64 = 0x0100000c;
const MH_EXECUTE = 2;
const LC_CODE_SIGNATURE = 0x1d;

export function readArtifactFormat(head: Uint8Array): ArtifactFormat {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (head.length >= 20 && view.getUint32(0, false) === 0x7f454c46) return readElf(view);
  if (head.length >= 32 && view.getUint32(0, true) === MH_MAGIC_64) return readMachO(view);
  if (head.length >= 4 && view.getUint32(0, false) === 0xcafebabe) {
    return {
      kind: 'unknown',
      why: 'a universal (fat) Mach-O; byre ships one architecture per file',
    };
  }
  return { kind: 'unknown', why: 'neither an ELF nor a 64-bit little-endian Mach-O header' };
}

function readElf(view: DataView): ArtifactFormat {
  const bits = view.getUint8(4) === 2 ? 64 : 32;
  const little = view.getUint8(5) === 1;
  if (!little) return { kind: 'unknown', why: 'a big-endian ELF' };
  const type = view.getUint16(16, true);
  const machine = view.getUint16(18, true);
  const arch = machine === EM_X86_64 ? 'x64' : machine === EM_AARCH64 ? 'arm64' : 'other';
  // ET_EXEC, or ET_DYN for a position-independent executable.
  return { kind: 'elf', os: 'linux', arch, bits, executable: type === 2 || type === 3 };
}

function readMachO(view: DataView): ArtifactFormat {
  const cpu = view.getUint32(4, true);
  const arch = cpu === CPU_TYPE_X86_64 ? 'x64' : cpu === CPU_TYPE_ARM64 ? 'arm64' : 'other';
  const executable = view.getUint32(12, true) === MH_EXECUTE;
  const count = view.getUint32(16, true);
  let signed = false;
  let at = 32;
  for (let i = 0; i < count && at + 8 <= view.byteLength; i++) {
    const cmd = view.getUint32(at, true);
    const size = view.getUint32(at + 4, true);
    if (cmd === LC_CODE_SIGNATURE) signed = true;
    if (size < 8) break;
    at += size;
  }
  return { kind: 'macho', os: 'darwin', arch, executable, signed };
}

/** Null when `format` is an executable for `os`/`arch`; otherwise what is wrong, for a message. */
export function formatMismatch(format: ArtifactFormat, os: Os, arch: Arch): string | null {
  if (format.kind === 'unknown') return format.why;
  const wanted = os === 'linux' ? 'elf' : 'macho';
  if (format.kind !== wanted) return `a ${format.kind} file, not ${wanted}`;
  if (format.arch !== arch) return `built for ${format.arch}, not ${arch}`;
  if (!format.executable) return 'not an executable';
  if (format.kind === 'elf' && format.bits !== 64) return 'a 32-bit ELF';
  // Apple silicon kills an unsigned arm64 executable on exec; an ad-hoc signature is enough.
  if (format.kind === 'macho' && arch === 'arm64' && !format.signed)
    return 'carries no code signature';
  return null;
}
