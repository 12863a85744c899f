// Validation of tar entries arriving on `deliver --tar -` (a remote byre's
// upload, or any script's). Only plain files and directories with relative,
// normal paths pass; everything else refuses the whole delivery before a byte
// lands. Pure.

export type TarEntryCheck =
  | { ok: true; components: string[]; kind: 'file' | 'dir' }
  | { ok: false; rule: string; reason: string };

export interface TarHeaderLike {
  name: string;
  type?: string | null;
}

export function checkTarEntry(header: TarHeaderLike): TarEntryCheck {
  const type = header.type ?? 'file';
  const kind = type === 'file' ? 'file' : type === 'directory' ? 'dir' : null;
  if (kind === null) {
    const link = type === 'symlink' || type === 'link';
    return {
      ok: false,
      rule: link ? 'transfer.tar-link' : 'transfer.tar-special',
      reason: link ? 'links are not delivered' : `a ${type} entry is not a file or directory`,
    };
  }
  let name = header.name;
  if (name.startsWith('/')) {
    return { ok: false, rule: 'transfer.tar-absolute', reason: 'an absolute path' };
  }
  if (kind === 'dir' && name.endsWith('/')) name = name.slice(0, -1);
  const components = name.split('/');
  if (name === '' || components.some((c) => c === '' || c === '.')) {
    return { ok: false, rule: 'transfer.tar-path', reason: 'an empty or `.` path component' };
  }
  if (components.includes('..')) {
    return { ok: false, rule: 'transfer.tar-dotdot', reason: 'a `..` path component' };
  }
  if (name.includes('\0')) {
    return { ok: false, rule: 'transfer.tar-path', reason: 'a NUL in the path' };
  }
  return { ok: true, components, kind };
}

const BLOCK = 512;

/**
 * The tail of an archive as it streams past, to tell a finished archive from
 * one cut short. A tar ends with zero blocks right after its last entry's
 * data; an archive cut at an entry boundary parses cleanly without them, so
 * the parser's success alone cannot prove the sender finished.
 */
export class TarTail {
  private total = 0;
  /** The most recent chunks, at least `keep` bytes of them when there were that many. */
  private chunks: Buffer[] = [];
  private held = 0;

  constructor(private readonly keep: number = 64 * 1024) {}

  add(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.held += chunk.length;
    for (
      let first = this.chunks[0];
      first !== undefined && this.held - first.length >= this.keep;
    ) {
      this.chunks.shift();
      this.held -= first.length;
      first = this.chunks[0];
    }
  }

  /** Where the data of an entry ends, from its header's offset (just past the header). */
  static dataEnd(header: { byteOffset?: number; size?: number; type?: string | null }): number {
    const size = header.type === 'directory' ? 0 : (header.size ?? 0);
    return (header.byteOffset ?? 0) + Math.ceil(size / BLOCK) * BLOCK;
  }

  /** A whole zero block starts at `offset` (the end-of-archive marker). */
  endMarkerAt(offset: number): boolean {
    const window = Buffer.concat(this.chunks);
    const start = offset - (this.total - window.length);
    if (start < 0 || start + BLOCK > window.length) return false;
    return window.subarray(start, start + BLOCK).every((b) => b === 0);
  }
}
