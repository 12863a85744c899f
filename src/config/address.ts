// IP address grammar shared by the port and egress rules: canonical IPv4
// (no leading zeros, four decimal octets) and IPv6 canonicalised per RFC 5952.
// Pure string work; never resolves names.

// node:net is required on first use: every config read loads this module,
// few configs hold an IPv6 address, and loading node:net costs a short
// command ~0.5 ms (a CommonJS builtin, so the require is synchronous).
function isIPv6(text: string): boolean {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the lazy load is the point
  return (require('node:net') as typeof import('node:net')).isIPv6(text);
}

/** True for a dotted quad whose every octet is written without leading zeros. */
export function isCanonicalIPv4(text: string): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  return parts.every((part) => /^(0|[1-9][0-9]{0,2})$/.test(part) && Number(part) <= 255);
}

/**
 * The RFC 5952 spelling of an IPv6 address (no zone, no brackets), or null
 * when it is not one. The platform parses (net.isIPv6) and the URL standard's
 * host serialiser writes it (lowercase, no leading zeros, the longest run of
 * two or more zero groups as `::`); an IPv4-mapped address keeps RFC 5952's
 * dotted tail, which the URL serialiser writes in hex.
 */
export function canonicalIPv6(text: string): string | null {
  if (!isIPv6(text) || text.includes('%')) return null;
  // An embedded IPv4 tail is held to the same canonical spelling as IPv4 itself.
  const tail = /:([^:]*\.[^:]*)$/.exec(text)?.[1];
  if (tail !== undefined && !isCanonicalIPv4(tail)) return null;
  const host = new URL(`http://[${text}]`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped === null) return host;
  const hi = parseInt(mapped[1] ?? '0', 16);
  const lo = parseInt(mapped[2] ?? '0', 16);
  return `::ffff:${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}
