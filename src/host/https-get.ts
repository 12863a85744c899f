// The one request byre makes over the network itself (a package's manifest
// and payload): a single GET over TLS, certificates verified against node's
// roots plus any CA the caller adds, bounded by a deadline, its body handed
// to the caller chunk by chunk so a byte budget can stop it mid-stream, and
// a redirect answered with its Location, never followed here (the caller
// decides where it may lead). It never speaks plain http.

import https from 'node:https';
import tls from 'node:tls';

interface HttpsGetOptions {
  /** The whole request's deadline; past it the request is destroyed with `timeoutError()`. */
  timeoutMs: number;
  headers: Record<string, string>;
  /** A CA (PEM) trusted besides node's roots: a test's self-signed server. */
  ca?: string | Uint8Array;
  /** Told each body chunk's length before it is kept; a throw stops the request and rejects with it. */
  onChunk: (bytes: number) => void;
  timeoutError: () => Error;
  /** What a failed request (DNS, TLS, reset) rejects with; errors from the hooks above pass as they are. */
  requestError: (error: Error) => Error;
}

export interface HttpsGetResult {
  status: number;
  /** A 3xx answer's Location (its body dropped); null otherwise. */
  location: string | null;
  body: Buffer;
}

/** One GET of the https URL `url`; anything but https is refused before a socket opens. */
export function httpsGetOnce(url: URL, opts: HttpsGetOptions): Promise<HttpsGetResult> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== 'https:') {
      reject(opts.requestError(new Error(`not an https URL: ${url.href}`)));
      return;
    }
    if (opts.timeoutMs <= 0) {
      reject(opts.timeoutError());
      return;
    }
    const own = new WeakSet<Error>();
    const timedOut = (): Error => {
      const error = opts.timeoutError();
      own.add(error);
      return error;
    };
    const ca = opts.ca;
    const request = https.get(
      url,
      {
        timeout: opts.timeoutMs,
        headers: opts.headers,
        ...(ca === undefined
          ? {}
          : { ca: [...tls.rootCertificates, Buffer.from(ca).toString('utf8')] }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          response.resume();
          resolve({ status, location: response.headers.location ?? null, body: Buffer.alloc(0) });
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => {
          try {
            opts.onChunk(chunk.length);
          } catch (error) {
            request.destroy();
            reject(error);
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status, location: null, body: Buffer.concat(chunks) }));
        response.on('error', (error) => reject(opts.requestError(error)));
      },
    );
    const timer = setTimeout(() => request.destroy(timedOut()), opts.timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('timeout', () => request.destroy(timedOut()));
    request.on('error', (error) => reject(own.has(error) ? error : opts.requestError(error)));
  });
}
