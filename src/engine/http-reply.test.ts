import { describe, expect, it } from 'vitest';

import { getRequest, MAX_HEADER_BYTES, parseReply } from './http-reply.js';

const HEAD = 'HTTP/1.1 200 OK\r\nApi-Version: 1.41\r\nContent-Type: application/json\r\n';
const reply = (text: string | Buffer): ReturnType<typeof parseReply> =>
  parseReply(typeof text === 'string' ? Buffer.from(text, 'latin1') : text, 1024);
const body = (text: string): string | undefined => reply(text)?.body.toString('latin1');

describe('getRequest', () => {
  it('is a GET with Connection: close', () => {
    expect(getRequest('/containers/json?all=1&filters=%7B%7D')).toBe(
      'GET /containers/json?all=1&filters=%7B%7D HTTP/1.1\r\nHost: docker\r\n' +
        'Accept: application/json\r\nConnection: close\r\n\r\n',
    );
  });

  it.each(['', 'x', '/a b', '/a\r\nX: y', '/a\n', '/\u00e9', '/a\t'])(
    'refuses a path that would not be one request line: %j',
    (p) => {
      expect(getRequest(p)).toBeNull();
    },
  );
});

describe('parseReply: the three framings', () => {
  it('Content-Length: exactly that many bytes', () => {
    expect(reply(`${HEAD}Content-Length: 2\r\n\r\n[]`)).toEqual({
      status: 200,
      body: Buffer.from('[]'),
    });
    expect(body(`${HEAD}Content-Length: 0\r\n\r\n`)).toBe('');
  });

  it('chunked: the chunks joined, in any sizes', () => {
    expect(
      body(`${HEAD}Transfer-Encoding: chunked\r\n\r\n2\r\n[1\r\nb\r\n,2,3,4,5,6]\r\n0\r\n\r\n`),
    ).toBe('[1,2,3,4,5,6]');
    expect(body(`${HEAD}Transfer-Encoding: Chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\n`)).toBe(
      '0123456789',
    );
    expect(body(`${HEAD}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`)).toBe('');
  });

  it('close-delimited: everything after the header block (HTTP/1.0, or no length)', () => {
    expect(body('HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n[{"Id":"x"}]\n')).toBe(
      '[{"Id":"x"}]\n',
    );
    expect(body(`${HEAD}\r\n[]`)).toBe('[]');
  });

  it('any status from 200 up passes through, with its body', () => {
    expect(reply(`HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\n{"a"`)?.status).toBe(404);
    expect(reply(`HTTP/1.1 500 \r\nContent-Length: 0\r\n\r\n`)?.status).toBe(500);
    expect(reply(`HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n`)?.status).toBe(200);
  });

  it('reads field names in any case and trims spaces around values', () => {
    expect(body(`HTTP/1.1 200 OK\r\ncontent-LENGTH:   2 \r\n\r\n[]`)).toBe('[]');
    expect(
      body(`HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\nContent-Length: 2\r\n\r\n[]`),
    ).toBe('[]');
  });

  it('keeps the body bytes as sent (the caller decodes UTF-8)', () => {
    const bytes = Buffer.concat([
      Buffer.from(`${HEAD}Content-Length: 4\r\n\r\n`),
      Buffer.from([0xef, 0xbb, 0xbf, 0xff]),
    ]);
    expect(reply(bytes)?.body).toEqual(Buffer.from([0xef, 0xbb, 0xbf, 0xff]));
  });
});

describe('parseReply: every doubt is null', () => {
  it.each<[string, string]>([
    ['no header end', `${HEAD}Content-Length: 2\r\n`],
    ['nothing at all', ''],
    ['not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n'],
    ['HTTP/2 status line', 'HTTP/2 200\r\n\r\n[]'],
    ['a two-digit status', 'HTTP/1.1 20 OK\r\n\r\n'],
    ['an interim reply', 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n[]'],
    ['204, which has no body', 'HTTP/1.1 204 No Content\r\n\r\n'],
    ['304, which has no body', 'HTTP/1.1 304 Not Modified\r\n\r\n'],
    ['a bare LF between fields', `${HEAD}X: 1\nContent-Length: 2\r\n\r\n[]`],
    ['a bare CR in a value', `${HEAD}X: 1\rContent-Length: 2\r\n\r\n[]`],
    ['a folded field', `${HEAD}X: 1\r\n continued\r\nContent-Length: 2\r\n\r\n[]`],
    ['a space before the colon', `${HEAD}Content-Length : 2\r\n\r\n[]`],
    ['a field without a colon', `${HEAD}Content-Length 2\r\n\r\n[]`],
    ['a control byte in a value', `${HEAD}X: a\u0000b\r\nContent-Length: 2\r\n\r\n[]`],
    ['a short body', `${HEAD}Content-Length: 3\r\n\r\n[]`],
    ['bytes after the body', `${HEAD}Content-Length: 2\r\n\r\n[]x`],
    ['two lengths, even equal', `${HEAD}Content-Length: 2\r\nContent-Length: 2\r\n\r\n[]`],
    ['a list of lengths', `${HEAD}Content-Length: 2, 2\r\n\r\n[]`],
    ['a signed length', `${HEAD}Content-Length: +2\r\n\r\n[]`],
    ['an empty length', `${HEAD}Content-Length:\r\n\r\n`],
    ['a length over the cap', `${HEAD}Content-Length: 1025\r\n\r\n${'x'.repeat(1025)}`],
    [
      'a length and chunked',
      `${HEAD}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    ['gzip then chunked', `${HEAD}Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`],
    [
      'chunked twice',
      `${HEAD}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    ['identity coding', `${HEAD}Transfer-Encoding: identity\r\n\r\n[]`],
    ['a content-coding', `${HEAD}Content-Encoding: gzip\r\nContent-Length: 2\r\n\r\n[]`],
    ['chunked on HTTP/1.0', 'HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['a chunk cut short', `${HEAD}Transfer-Encoding: chunked\r\n\r\n5\r\n[]`],
    ['no last chunk', `${HEAD}Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n`],
    ['no CRLF after the last chunk', `${HEAD}Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n`],
    ['a chunk without its CRLF', `${HEAD}Transfer-Encoding: chunked\r\n\r\n2\r\n[]xx0\r\n\r\n`],
    [
      'a chunk size that is not hex',
      `${HEAD}Transfer-Encoding: chunked\r\n\r\n2g\r\n[]\r\n0\r\n\r\n`,
    ],
    ['a signed chunk size', `${HEAD}Transfer-Encoding: chunked\r\n\r\n-2\r\n[]\r\n0\r\n\r\n`],
    ['a chunk extension', `${HEAD}Transfer-Encoding: chunked\r\n\r\n2;x=y\r\n[]\r\n0\r\n\r\n`],
    ['a space after the size', `${HEAD}Transfer-Encoding: chunked\r\n\r\n2 \r\n[]\r\n0\r\n\r\n`],
    ['a trailer field', `${HEAD}Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\nX: y\r\n\r\n`],
    ['bytes after the last chunk', `${HEAD}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nx`],
    [
      'chunks over the cap',
      `${HEAD}Transfer-Encoding: chunked\r\n\r\n401\r\n${'x'.repeat(1025)}\r\n0\r\n\r\n`,
    ],
    ['a close-delimited body over the cap', `${HEAD}\r\n${'x'.repeat(1025)}`],
  ])('%s', (_what, text) => {
    expect(reply(text)).toBeNull();
  });

  it('a header block over its bound', () => {
    const big = `HTTP/1.1 200 OK\r\nX: ${'a'.repeat(MAX_HEADER_BYTES)}\r\nContent-Length: 2\r\n\r\n[]`;
    expect(reply(big)).toBeNull();
  });

  it('the caps are exact: a body of exactly maxBody is read', () => {
    expect(reply(`${HEAD}Content-Length: 1024\r\n\r\n${'x'.repeat(1024)}`)?.body).toHaveLength(
      1024,
    );
    expect(reply(`${HEAD}\r\n${'x'.repeat(1024)}`)?.body).toHaveLength(1024);
    expect(
      reply(`${HEAD}Transfer-Encoding: chunked\r\n\r\n400\r\n${'x'.repeat(1024)}\r\n0\r\n\r\n`)
        ?.body,
    ).toHaveLength(1024);
  });
});
