// The pure half of one HTTP/1.1 GET over docker's API socket (adr/0040):
// the request's bytes, and the whole reply (read until the daemon closed the
// connection) turned into a status and a body. The request says `Connection:
// close`, so the reply is framed by a Content-Length, by chunked
// transfer-coding (Go's server chunks a reply of more than ~2 KiB), or by the
// close itself. Anything this reader is not sure of (a header it cannot
// read, two framings at once, a short body, bytes after the reply, an
// encoding) is `null`: the caller then asks the CLI.

interface HttpReply {
  status: number;
  body: Buffer;
}

/** A request path byre writes: a slash and visible ASCII (no space, CR or LF to split the line). */
const REQUEST_PATH = /^\/[\x21-\x7e]*$/;

/** The request's bytes, or null for a path that cannot go on a request line as it is. */
export function getRequest(urlPath: string): string | null {
  if (!REQUEST_PATH.test(urlPath)) return null;
  return (
    `GET ${urlPath} HTTP/1.1\r\n` +
    'Host: docker\r\n' +
    'Accept: application/json\r\n' +
    'Connection: close\r\n' +
    '\r\n'
  );
}

/** The header block's bound: Go's server writes a few hundred bytes. */
export const MAX_HEADER_BYTES = 64 * 1024;

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9][0-9]{2})(?: [\t\x20-\x7e\x80-\xff]*)?$/;
// A field name is an RFC 9110 token; its value is visible bytes, spaces and tabs.
const FIELD = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[\t ]*([\t\x20-\x7e\x80-\xff]*?)[\t ]*$/;

type Framing = { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'close' };

/**
 * The reply in `bytes` (everything the daemon sent before it closed), or
 * null when in doubt. `maxBody` bounds the body, after de-chunking.
 */
export function parseReply(bytes: Buffer, maxBody: number): HttpReply | null {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0 || end > MAX_HEADER_BYTES) return null;
  const lines = bytes.toString('latin1', 0, end).split('\r\n');
  const head = STATUS_LINE.exec(lines[0] ?? '');
  if (head === null) return null;
  const status = Number(head[2]);
  // An interim (1xx) reply is not an answer to a GET byre sends; 204 and
  // 304 have no body by rule, which a reader that takes the rest would get wrong.
  if (status < 200 || status === 204 || status === 304) return null;
  const framing = framingOf(lines.slice(1), maxBody);
  // HTTP/1.0 has no chunked coding: a 1.0 reply that claims it is confused.
  if (framing === null || (framing.kind === 'chunked' && head[1] === '0')) return null;
  const rest = bytes.subarray(end + 4);
  let body: Buffer | null;
  if (framing.kind === 'length') {
    body = rest.length === framing.length ? rest : null;
  } else if (framing.kind === 'chunked') {
    body = dechunk(rest, maxBody);
  } else {
    body = rest;
  }
  if (body === null || body.length > maxBody) return null;
  return { status, body };
}

/**
 * How the body is framed, from the header lines; null for a line that is
 * not a plain field (a bare CR or LF, a folded line), a length that is not
 * one plain number, a transfer-coding other than a lone `chunked`, both
 * framings at once, or any content-coding.
 */
function framingOf(lines: readonly string[], maxBody: number): Framing | null {
  let length: number | null = null;
  let chunked = false;
  let seenLength = false;
  let seenCoding = false;
  for (const line of lines) {
    const m = FIELD.exec(line);
    if (m === null) return null;
    const name = (m[1] ?? '').toLowerCase();
    const value = m[2] ?? '';
    if (name === 'content-length') {
      if (seenLength || !/^[0-9]{1,10}$/.test(value)) return null;
      seenLength = true;
      length = Number(value);
      if (length > maxBody) return null;
    } else if (name === 'transfer-encoding') {
      if (seenCoding || value.toLowerCase() !== 'chunked') return null;
      seenCoding = true;
      chunked = true;
    } else if (name === 'content-encoding') {
      if (value.toLowerCase() !== 'identity') return null;
    }
  }
  if (chunked && seenLength) return null;
  if (chunked) return { kind: 'chunked' };
  return length === null ? { kind: 'close' } : { kind: 'length', length };
}

/**
 * The body of a chunked reply: `<hex size>CRLF<data>CRLF` until a zero
 * size, then the final CRLF and nothing after. Chunk extensions and
 * trailer fields (which Go's server does not write here) are doubts.
 */
function dechunk(bytes: Buffer, maxBody: number): Buffer | null {
  const parts: Buffer[] = [];
  let total = 0;
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf('\r\n', at);
    if (eol < 0 || eol - at > 16) return null;
    const size = bytes.toString('latin1', at, eol);
    if (!/^[0-9A-Fa-f]{1,8}$/.test(size)) return null;
    const n = parseInt(size, 16);
    at = eol + 2;
    if (n === 0) break;
    total += n;
    if (total > maxBody || at + n + 2 > bytes.length) return null;
    if (bytes[at + n] !== 0x0d || bytes[at + n + 1] !== 0x0a) return null;
    parts.push(bytes.subarray(at, at + n));
    at += n + 2;
  }
  // No trailer fields: the last chunk's line is followed by CRLF and the end.
  if (bytes.length !== at + 2 || bytes[at] !== 0x0d || bytes[at + 1] !== 0x0a) return null;
  return Buffer.concat(parts, total);
}
