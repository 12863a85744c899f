// Bounded fetching for package install and inspect: https:// URLs, file: URIs
// and plain paths only (http:// is refused), one 60 s deadline for the whole
// install, at most 5 redirects per request, and a byte budget shared by every read.

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isContainedRelative } from '../../config/grammar.js';
import { ByreError } from '../../errors.js';
import { canonicalPathSync } from '../../host/canonical.js';
import { httpsGetOnce, type HttpsGetResult } from '../../host/https-get.js';
import { readCapped, withNamedRegularFile } from '../../host/read-regular.js';

export const FETCH_LIMITS = {
  timeoutMs: 60_000,
  maxRedirects: 5,
  maxFiles: 64,
  maxBytes: 64 * 1024 * 1024,
} as const;

export interface FetchOptions {
  /** Extra trusted CA certificates (PEM), added to node's defaults; tests inject a self-signed one. */
  ca?: string | Uint8Array;
  timeoutMs?: number;
  maxBytes?: number;
}

/** Where a manifest came from, and how its payload sources resolve. */
type ManifestLocation = { kind: 'https'; url: URL } | { kind: 'file'; path: string };

export function describeLocation(loc: ManifestLocation): string {
  return loc.kind === 'https' ? loc.url.href : loc.path;
}

/** Classify a user-supplied manifest URI; refuses http:// and other schemes. */
export function parseManifestUri(uri: string, cwd: string): ManifestLocation {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase();
  if (scheme === 'https') {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new ByreError(`${uri} is not a valid URL`, {
        rule: 'package.uri-invalid',
        remedy: 'check the manifest URL',
      });
    }
    return { kind: 'https', url };
  }
  if (scheme === 'http') {
    throw new ByreError(`refusing to fetch ${uri} over plain http`, {
      rule: 'package.http-refused',
      remedy: 'use the https:// URL of the manifest (packages are never fetched unencrypted)',
    });
  }
  if (scheme === 'file') return { kind: 'file', path: fileURLToPath(uri) };
  if (scheme !== undefined && scheme.length > 1) {
    throw new ByreError(`unsupported manifest URI scheme ${scheme}: in ${uri}`, {
      rule: 'package.uri-unsupported',
      remedy: 'use an https:// URL, a file: URI, or a path',
    });
  }
  return { kind: 'file', path: path.resolve(cwd, uri) };
}

/** A shared budget: one deadline and one byte allowance for all reads of an install. */
export class FetchBudget {
  private readonly deadline: number;
  private bytes = 0;
  readonly maxBytes: number;
  constructor(private readonly options: FetchOptions = {}) {
    this.deadline = Date.now() + (options.timeoutMs ?? FETCH_LIMITS.timeoutMs);
    this.maxBytes = options.maxBytes ?? FETCH_LIMITS.maxBytes;
  }

  remainingMs(): number {
    return this.deadline - Date.now();
  }

  charge(n: number, what: string): void {
    this.bytes += n;
    if (this.bytes > this.maxBytes) {
      throw new ByreError(
        `${what}: the package is larger than ${Math.round(this.maxBytes / 1024 / 1024)} MiB`,
        {
          rule: 'package.too-large',
          remedy: 'packages are capped at 64 MiB in total; ask the author to slim it down',
        },
      );
    }
  }

  get ca(): string | Uint8Array | undefined {
    return this.options.ca;
  }
}

function timeoutError(what: string): ByreError {
  return new ByreError(
    `${what}: timed out (package fetches are bounded to ${FETCH_LIMITS.timeoutMs / 1000} s in total)`,
    {
      rule: 'package.fetch-timeout',
      remedy: 'check the network and retry',
    },
  );
}

function getOnce(url: URL, budget: FetchBudget): Promise<HttpsGetResult> {
  const ca = budget.ca;
  return httpsGetOnce(url, {
    timeoutMs: budget.remainingMs(),
    headers: { 'user-agent': 'byre-package-fetch' },
    ...(ca === undefined ? {} : { ca }),
    onChunk: (n) => budget.charge(n, url.href),
    timeoutError: () => timeoutError(url.href),
    requestError: (error) =>
      new ByreError(`fetching ${url.href} failed: ${error.message}`, {
        rule: 'package.fetch-failed',
        remedy: 'check the URL and the network, then retry',
        cause: error,
      }),
  });
}

/**
 * GET an https URL, following at most 5 redirects, each to https (and, when
 * `origin` is given, on that origin). Returns the final URL and the body.
 */
export async function fetchHttps(
  start: URL,
  budget: FetchBudget,
  origin: string | null = null,
): Promise<{ url: URL; body: Buffer }> {
  let url = start;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'https:') {
      throw new ByreError(`refusing to follow ${url.href}: only https is allowed`, {
        rule: 'package.http-refused',
        remedy: 'publish the package over https',
      });
    }
    if (origin !== null && url.origin !== origin) {
      throw new ByreError(`payload ${url.href} is not on the manifest's origin ${origin}`, {
        rule: 'package.payload-off-origin',
        remedy: "payload files must be served from the manifest's own origin",
      });
    }
    const { status, location, body } = await getOnce(url, budget);
    if (location !== null) {
      if (hop >= FETCH_LIMITS.maxRedirects) {
        throw new ByreError(`${start.href}: more than ${FETCH_LIMITS.maxRedirects} redirects`, {
          rule: 'package.too-many-redirects',
          remedy: 'use the final URL of the manifest',
        });
      }
      url = new URL(location, url);
      continue;
    }
    if (status !== 200) {
      throw new ByreError(`fetching ${url.href} failed: HTTP ${status}`, {
        rule: 'package.fetch-failed',
        remedy: 'check the URL; the server did not return the file',
      });
    }
    return { url, body };
  }
}

/**
 * A local manifest or payload, its last link followed (the user named it) but
 * only a regular file, never waited on as a FIFO, charged to the budget
 * before it is read and never read past it.
 */
async function readLocal(file: string, budget: FetchBudget): Promise<Buffer> {
  const cannot = (why: string): ByreError =>
    new ByreError(`cannot read ${file}: ${why}`, {
      rule: 'package.fetch-failed',
      remedy: 'check the path',
    });
  let read;
  try {
    read = await withNamedRegularFile(file, async ({ fd, size }) => {
      budget.charge(size, file);
      const bytes = readCapped(fd, budget.maxBytes + 1, size + 1);
      // A file that grew since its size was charged is charged the rest.
      if (bytes.length > size) budget.charge(bytes.length - size, file);
      return bytes;
    });
  } catch (error) {
    if (error instanceof ByreError) throw error;
    throw cannot((error as Error).message);
  }
  if (read.kind === 'missing') throw cannot('no such file or directory');
  if (read.kind === 'not-regular') throw cannot('not a regular file');
  return read.value;
}

/** Fetch the manifest; returns its bytes and where its payload sources resolve from. */
export async function fetchManifest(
  loc: ManifestLocation,
  budget: FetchBudget,
): Promise<{ bytes: Buffer; base: ManifestLocation }> {
  if (loc.kind === 'file') return { bytes: await readLocal(loc.path, budget), base: loc };
  const { url, body } = await fetchHttps(loc.url, budget);
  return { bytes: body, base: { kind: 'https', url } };
}

/** Fetch one payload source, resolved against the manifest and confined to its origin (or directory). */
export async function fetchPayload(
  src: string,
  base: ManifestLocation,
  budget: FetchBudget,
): Promise<Buffer> {
  if (base.kind === 'https') {
    let url: URL;
    try {
      url = new URL(src, base.url);
    } catch {
      throw new ByreError(`payload src ${JSON.stringify(src)} is not a URL`, {
        rule: 'package.uri-invalid',
        remedy: 'fix [[package.files]] src',
      });
    }
    return (await fetchHttps(url, budget, base.url.origin)).body;
  }
  const dir = path.dirname(base.path);
  if (!isContainedRelative(src)) {
    throw new ByreError(`payload src ${JSON.stringify(src)} leaves the manifest's directory`, {
      rule: 'skill.payload-escapes',
      remedy: 'payload sources of a file manifest are paths relative to it, inside its directory',
    });
  }
  const file = path.join(dir, ...src.split('/'));
  let real: string;
  try {
    real = canonicalPathSync(file);
  } catch {
    throw new ByreError(`payload ${file} does not exist`, {
      rule: 'package.fetch-failed',
      remedy: 'publish the payload next to the manifest',
    });
  }
  const realDir = canonicalPathSync(dir);
  if (!real.startsWith(`${realDir}${path.sep}`)) {
    throw new ByreError(`payload ${file} is a symlink leading outside the manifest's directory`, {
      rule: 'skill.payload-escapes',
      remedy: 'copy the file in instead of linking it',
    });
  }
  return readLocal(real, budget);
}

/** The file: URI for a local path (used in pinned install commands). */
export function fileUri(p: string): string {
  return pathToFileURL(p).href;
}
