// The egress entry grammar: `host[:port]`, `[ipv6][:port]`, and `!`-prefixed
// closures. Owns normalisation (lowercased hosts, RFC 5952 IPv6, default port
// 443) so rules and merge agree on what one entry means.

import { canonicalIPv6, isCanonicalIPv4 } from './address.js';
import type { EgressEntry } from './types.js';

const DEFAULT_EGRESS_PORT = 443;

const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9.:_-]*[A-Za-z0-9])?$/;

type EgressParse =
  { ok: true; closure: boolean; entry: EgressEntry } | { ok: false; message: string; fix: string };

function refuse(raw: string, why: string, fix: string): EgressParse {
  return { ok: false, message: `egress ${JSON.stringify(raw)}: ${why}`, fix };
}

const GRAMMAR_FIX = 'write host, host:port, an IPv4 address, or [ipv6]:port (port 1-65535)';

function parsePort(text: string): number | null {
  if (!/^[0-9]{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

function parseHost(text: string): string | null {
  if (/^[0-9.]+$/.test(text)) return isCanonicalIPv4(text) ? text : null;
  return HOSTNAME.test(text) && !text.includes(':') ? text.toLowerCase() : null;
}

const SCHEME_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443 };

/**
 * An entry written as a URL (`https://github.com/x`) or with a path
 * (`github.com/x`): the fix, naming its host (and port) as the egress grammar
 * takes them; null when it is neither, or names no host to suggest.
 */
function urlSuggestion(body: string, closure: boolean): string | null {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(body);
  if (scheme === null && !body.includes('/')) return null;
  let url: URL;
  try {
    url = new URL(scheme === null ? `https://${body}` : body);
  } catch {
    return null;
  }
  if (url.hostname === '') return null;
  const port =
    url.port !== ''
      ? Number(url.port)
      : (SCHEME_PORTS[(scheme?.[1] ?? 'https').toLowerCase()] ?? DEFAULT_EGRESS_PORT);
  if (!parseEgressEntry(url.hostname).ok) return null;
  const entry = `${closure ? '!' : ''}${url.hostname}`;
  if (port === DEFAULT_EGRESS_PORT) return `write ${JSON.stringify(entry)}`;
  return `write ${JSON.stringify(`${entry}:${port}`)} (the port that URL reaches; ${JSON.stringify(entry)} alone is port ${DEFAULT_EGRESS_PORT})`;
}

/** Parse one egress string. Plain entries default to port 443; a portless closure closes every port. */
export function parseEgressEntry(raw: string): EgressParse {
  const closure = raw.startsWith('!');
  const body = closure ? raw.slice(1) : raw;
  if (body === '') return refuse(raw, 'empty host', GRAMMAR_FIX);
  const suggested = urlSuggestion(body, closure);
  if (suggested !== null) {
    return refuse(raw, 'a URL was given; egress takes a host and port, not a URL', suggested);
  }
  let hostPart: string;
  let portPart: string | undefined;
  let host: string | null;
  if (body.startsWith('[')) {
    const match = /^\[([^\]]*)\](?::(.*))?$/.exec(body);
    if (!match) return refuse(raw, 'malformed bracketed IPv6 address', GRAMMAR_FIX);
    hostPart = match[1] ?? '';
    portPart = match[2];
    const canonical = canonicalIPv6(hostPart);
    host = canonical === null ? null : `[${canonical}]`;
    if (host === null)
      return refuse(raw, `${JSON.stringify(hostPart)} is not an IPv6 address`, GRAMMAR_FIX);
  } else {
    const colons = body.split(':').length - 1;
    if (colons > 1) {
      const canonical = canonicalIPv6(body);
      const fix =
        canonical === null
          ? GRAMMAR_FIX
          : `write it in brackets: ${closure ? '!' : ''}[${canonical}]:${DEFAULT_EGRESS_PORT}`;
      return refuse(raw, 'a bare IPv6 address is ambiguous with a port', fix);
    }
    const colon = body.indexOf(':');
    hostPart = colon < 0 ? body : body.slice(0, colon);
    portPart = colon < 0 ? undefined : body.slice(colon + 1);
    host = parseHost(hostPart);
    if (host === null)
      return refuse(raw, `${JSON.stringify(hostPart)} is not a valid host`, GRAMMAR_FIX);
  }
  if (portPart === undefined) {
    return { ok: true, closure, entry: { host, port: closure ? null : DEFAULT_EGRESS_PORT } };
  }
  const port = parsePort(portPart);
  if (port === null)
    return refuse(raw, `port ${JSON.stringify(portPart)} must be 1-65535`, GRAMMAR_FIX);
  return { ok: true, closure, entry: { host, port } };
}

/** Identity of an entry for dedup: `host:port`, or `host:*` for a portless closure. */
export function egressKey(entry: EgressEntry): string {
  return `${entry.host}:${entry.port === null ? '*' : String(entry.port)}`;
}

/** Does a closure cover this entry? A portless closure covers every port of its host. */
export function closureCovers(closure: EgressEntry, entry: EgressEntry): boolean {
  return closure.host === entry.host && (closure.port === null || closure.port === entry.port);
}

/**
 * Does a closure reach this entry at the wall? As closureCovers, and a closed
 * name reaches every name under it (`!github.com` closes `api.github.com`), as
 * an entry covers the names under it (adr/0063). Merging layers keeps
 * closureCovers: a closure there cancels or is cancelled by its own host only.
 */
export function closureReaches(closure: EgressEntry, entry: EgressEntry): boolean {
  if (closureCovers(closure, entry)) return true;
  const name = !/^[0-9.]+$/.test(closure.host) && !closure.host.includes(':');
  return (
    name &&
    entry.host.endsWith(`.${closure.host}`) &&
    (closure.port === null || closure.port === entry.port)
  );
}
