// What a tar entry that byre did not write may be: the one owner of the
// rules for an entry's path and type, for both verbs that read archives from
// outside (`deliver --tar -`, a remote byre's upload or any script's; and
// grab, whose archive comes from the box). Only plain files and directories
// with relative, normal paths within the host's name and path caps pass.
// deliver refuses the whole delivery on the first refusal; grab skips the
// entry, names it, and calls the grab partial. Pure.

type TarEntryCheck =
  | { ok: true; components: string[]; kind: 'file' | 'dir' }
  | { ok: false; rule: string; reason: string };

interface TarHeaderLike {
  name: string;
  type?: string | null;
}

/**
 * One name and one whole path, in bytes: Linux and macOS both cap a name at
 * 255 bytes (NAME_MAX), and 4096 bytes is Linux's PATH_MAX. A longer entry is
 * refused before it reaches a syscall; the path cap also bounds how deep a
 * tree from outside can nest (at most 2048 directories).
 */
export const TAR_NAME_MAX = 255;
export const TAR_PATH_MAX = 4096;

type Refusal = { ok: false; rule: string; reason: string };

/** What an entry's type makes it: a file, a directory, or a refusal with what it is. */
function tarEntryKind(
  type: string | null | undefined,
): { ok: true; kind: 'file' | 'dir' } | (Refusal & { what: string }) {
  // tar-stream gives null for a typeflag it does not know; only a header
  // built without a type (never one read from a stream) means a file.
  switch (type === undefined ? 'file' : type) {
    case 'file':
    case 'contiguous-file':
      return { ok: true, kind: 'file' };
    case 'directory':
      return { ok: true, kind: 'dir' };
    case 'symlink':
      return { ok: false, rule: 'transfer.tar-link', reason: 'a link', what: 'a symlink' };
    case 'link':
      return { ok: false, rule: 'transfer.tar-link', reason: 'a link', what: 'a hard link' };
    default: {
      const what =
        type === null ? 'an entry of unknown type' : `a ${String(type).replace(/-/g, ' ')}`;
      return { ok: false, rule: 'transfer.tar-special', reason: 'not a file or directory', what };
    }
  }
}

/**
 * A relative path's components: no empty, `.` or `..` component, no NUL,
 * each name and the whole within TAR_NAME_MAX / TAR_PATH_MAX bytes. The
 * caller strips what its format allows first (a trailing `/`, a leading `./`).
 */
function tarPathComponents(path: string): { ok: true; components: string[] } | Refusal {
  if (path.startsWith('/')) {
    return { ok: false, rule: 'transfer.tar-absolute', reason: 'an absolute path' };
  }
  const components = path.split('/');
  if (path === '' || components.some((c) => c === '' || c === '.')) {
    return { ok: false, rule: 'transfer.tar-path', reason: 'an empty or `.` path component' };
  }
  if (components.includes('..')) {
    return { ok: false, rule: 'transfer.tar-dotdot', reason: 'a `..` path component' };
  }
  if (path.includes('\0')) {
    return { ok: false, rule: 'transfer.tar-path', reason: 'a NUL in the path' };
  }
  if (Buffer.byteLength(path) > TAR_PATH_MAX) {
    return {
      ok: false,
      rule: 'transfer.tar-too-long',
      reason: `a path longer than ${TAR_PATH_MAX} bytes`,
    };
  }
  if (components.some((c) => Buffer.byteLength(c) > TAR_NAME_MAX)) {
    return {
      ok: false,
      rule: 'transfer.tar-too-long',
      reason: `a name longer than ${TAR_NAME_MAX} bytes`,
    };
  }
  return { ok: true, components };
}

/** deliver's rule: a file or directory at a normal relative path, or the refusal. */
export function checkTarEntry(header: TarHeaderLike): TarEntryCheck {
  const kind = tarEntryKind(header.type);
  if (!kind.ok) {
    const link = kind.rule === 'transfer.tar-link';
    return {
      ok: false,
      rule: kind.rule,
      reason: link
        ? 'links are not delivered'
        : `a ${String(header.type)} entry is not a file or directory`,
    };
  }
  const name =
    kind.kind === 'dir' && header.name.endsWith('/') ? header.name.slice(0, -1) : header.name;
  const path = tarPathComponents(name);
  return path.ok ? { ok: true, components: path.components, kind: kind.kind } : path;
}

/**
 * grab's rule for an entry of the box's archive of a directory (`tar -c .`):
 * a leading `./` and trailing `/` are the archive's own spelling; the
 * directory itself (`./`) is the only entry with no components. Anything
 * else that is not a file or directory at a normal relative path is skipped
 * with what it is.
 */
export function judgeGrabEntry(
  header: TarHeaderLike,
): { ok: true; kind: 'file' | 'dir'; components: string[] } | { ok: false; why: string } {
  const kind = tarEntryKind(header.type);
  if (!kind.ok) return { ok: false, why: kind.what };
  let name = header.name;
  if (name.startsWith('/')) return { ok: false, why: 'an absolute path' };
  while (name.startsWith('./')) name = name.slice(2);
  while (name.endsWith('/')) name = name.slice(0, -1);
  if (name === '' || name === '.') {
    return kind.kind === 'dir'
      ? { ok: true, kind: 'dir', components: [] }
      : { ok: false, why: 'a file entry naming the grabbed directory itself' };
  }
  const path = tarPathComponents(name);
  return path.ok
    ? { ok: true, kind: kind.kind, components: path.components }
    : {
        ok: false,
        why: path.rule === 'transfer.tar-dotdot' ? 'outside the grabbed directory' : path.reason,
      };
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
