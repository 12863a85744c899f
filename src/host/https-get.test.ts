// One GET over TLS against a local self-signed server: the body under a
// budget that can stop it mid-stream, a redirect returned unfollowed, an
// untrusted certificate or a plain-http URL refused, a silent server cut at
// the deadline.

import { describe, expect, it } from 'vitest';
import { useHttpsServer } from '../../test/support/https.js';
import { httpsGetOnce } from './https-get.js';

type HttpsGetOptions = Parameters<typeof httpsGetOnce>[1];

const BIG = Buffer.alloc(4 * 1024 * 1024, 0x61);

const server = useHttpsServer((req, res) => {
  if (req.url === '/hello') {
    res.writeHead(200);
    res.end('hello');
  } else if (req.url === '/moved') {
    res.writeHead(302, { location: '/hello' });
    res.end('ignored');
  } else if (req.url === '/big') {
    res.writeHead(200);
    res.end(BIG);
  } else if (req.url === '/silent') {
    res.writeHead(200);
    res.write('x');
    // Never ends: only the deadline stops the request.
  }
});

const opts = (over: Partial<HttpsGetOptions> = {}): HttpsGetOptions => ({
  timeoutMs: 10_000,
  headers: { 'user-agent': 'byre-test' },
  ca: server.ca,
  onChunk: () => undefined,
  timeoutError: () => new Error('timed out'),
  requestError: (error) => new Error(`failed: ${error.message}`),
  ...over,
});

describe('httpsGetOnce', () => {
  it('returns the body of a 200, and a redirect as its Location without following it', async () => {
    const ok = await httpsGetOnce(new URL(`${server.base}/hello`), opts());
    expect([ok.status, ok.location, ok.body.toString()]).toEqual([200, null, 'hello']);
    const moved = await httpsGetOnce(new URL(`${server.base}/moved`), opts());
    expect([moved.status, moved.location, moved.body.length]).toEqual([302, '/hello', 0]);
  });

  it('stops a body its budget refuses, rejecting with what the budget threw', async () => {
    let seen = 0;
    const over = new Error('over budget');
    const onChunk = (n: number): void => {
      seen += n;
      if (seen > 1024 * 1024) throw over;
    };
    await expect(httpsGetOnce(new URL(`${server.base}/big`), opts({ onChunk }))).rejects.toBe(over);
    expect(seen).toBeLessThan(BIG.length);
  });

  it('refuses an untrusted certificate and a plain-http URL through requestError', async () => {
    const untrusted = opts();
    delete untrusted.ca;
    await expect(httpsGetOnce(new URL(`${server.base}/hello`), untrusted)).rejects.toThrow(
      /^failed: /,
    );
    await expect(
      httpsGetOnce(new URL(server.base.replace('https:', 'http:')), opts()),
    ).rejects.toThrow(/^failed: not an https URL/);
  });

  it('cuts a server that never finishes at the deadline, with timeoutError', async () => {
    await expect(
      httpsGetOnce(new URL(`${server.base}/silent`), opts({ timeoutMs: 300 })),
    ).rejects.toThrow('timed out');
    await expect(
      httpsGetOnce(new URL(`${server.base}/hello`), opts({ timeoutMs: 0 })),
    ).rejects.toThrow('timed out');
  });
});
