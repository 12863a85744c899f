// The tar headers a staged delivery writes (files and directories only):
// ustar, with a pax `path` record when a name is not ASCII or does not fit
// ustar's name and prefix fields. Byte for byte what tar-stream's pack wrote
// before (adr/0004), so the box's tar reads the same archive; building the
// headers here lets the writer put a whole tree into a few large chunks
// instead of one stream write per header and per body. Pure.

const BLOCK = 512;

/** Two zero blocks end an archive. */
export const END_OF_ARCHIVE = Buffer.alloc(2 * BLOCK);

interface TarFields {
  name: string;
  type: 'file' | 'directory';
  /** Bytes of data that follow (0 for a directory). */
  size: number;
  mode: number;
  mtime: Date;
}

const TYPEFLAG = { file: 0x30, directory: 0x35, pax: 0x78 } as const;
const USTAR = Buffer.from('ustar\u000000', 'latin1');
/** The largest value an 11-digit octal field holds. */
const MAX_OCTAL_11 = 8 ** 11 - 1;

/** Zero bytes that pad `size` bytes of data to a whole block. */
export function paddingOf(size: number): number {
  const rest = size % BLOCK;
  return rest === 0 ? 0 : BLOCK - rest;
}

function octal(buf: Buffer, offset: number, value: number, digits: number): void {
  const text = value.toString(8);
  const field = text.length > digits ? '7'.repeat(digits) : text.padStart(digits, '0');
  buf.write(`${field} `, offset, 'latin1');
}

/** Sizes past 8 GiB go in GNU's base-256 form, as tar-stream wrote them. */
function sizeField(buf: Buffer, offset: number, size: number): void {
  if (size <= MAX_OCTAL_11) {
    octal(buf, offset, size, 11);
    return;
  }
  buf[offset] = 0x80;
  let rest = size;
  for (let i = 11; i > 0; i--) {
    buf[offset + i] = rest % 0x100;
    rest = Math.floor(rest / 0x100);
  }
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** ustar's split of a path into prefix (<= 155) and name (<= 100), or null. */
function ustarSplit(path: string): { name: string; prefix: string } | null {
  if (!isAscii(path)) return null;
  let name = path;
  let prefix = '';
  while (name.length > 100) {
    const i = name.indexOf('/');
    if (i === -1) return null;
    prefix += prefix === '' ? name.slice(0, i) : `/${name.slice(0, i)}`;
    name = name.slice(i + 1);
  }
  return prefix.length > 155 ? null : { name, prefix };
}

function ustarBlock(
  name: string,
  prefix: string,
  typeflag: number,
  size: number,
  mode: number,
  mtime: Date,
): Buffer {
  const buf = Buffer.alloc(BLOCK);
  buf.write(name, 0, 'latin1');
  octal(buf, 100, mode & 0o7777, 6);
  octal(buf, 108, 0, 6);
  octal(buf, 116, 0, 6);
  sizeField(buf, 124, size);
  const seconds = Math.min(Math.max(Math.floor(mtime.getTime() / 1000), 0), MAX_OCTAL_11);
  octal(buf, 136, seconds, 11);
  buf[156] = typeflag;
  USTAR.copy(buf, 257);
  octal(buf, 329, 0, 6);
  octal(buf, 337, 0, 6);
  if (prefix !== '') buf.write(prefix, 345, 'latin1');
  let sum = 8 * 0x20; // the checksum field counts as spaces
  for (let i = 0; i < 148; i++) sum += buf[i] ?? 0;
  for (let i = 156; i < BLOCK; i++) sum += buf[i] ?? 0;
  octal(buf, 148, sum, 6);
  return buf;
}

/** A pax record: its own decimal length, then ` key=value\n`. */
function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const len = Buffer.byteLength(body);
  let digits = String(len).length;
  if (len + digits >= 10 ** digits) digits += 1;
  return Buffer.from(`${len + digits}${body}`);
}

/** The header block(s) for one entry; its data and `paddingOf(size)` zeros follow. */
export function tarHeader(h: TarFields): Buffer {
  const typeflag = TYPEFLAG[h.type];
  const size = h.type === 'file' ? h.size : 0;
  const split = ustarSplit(h.name);
  if (split !== null) return ustarBlock(split.name, split.prefix, typeflag, size, h.mode, h.mtime);
  const pax = paxRecord('path', h.name);
  return Buffer.concat([
    ustarBlock('PaxHeader', '', TYPEFLAG.pax, pax.length, h.mode, h.mtime),
    pax,
    Buffer.alloc(paddingOf(pax.length)),
    ustarBlock('PaxHeader', '', typeflag, size, h.mode, h.mtime),
  ]);
}
