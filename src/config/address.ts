// IP address grammar shared by the port and egress rules: canonical IPv4
// (no leading zeros, four decimal octets) and IPv6 canonicalised per RFC 5952.
// Pure string work; never resolves names.

/** True for a dotted quad whose every octet is written without leading zeros. */
export function isCanonicalIPv4(text: string): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  return parts.every((part) => /^(0|[1-9][0-9]{0,2})$/.test(part) && Number(part) <= 255);
}

function parseIPv4Groups(text: string): [number, number] | null {
  if (!isCanonicalIPv4(text)) return null;
  const [a, b, c, d] = text.split('.').map(Number) as [number, number, number, number];
  return [(a << 8) | b, (c << 8) | d];
}

function parseHexGroups(text: string): number[] | null {
  if (text === '') return [];
  const groups: number[] = [];
  for (const part of text.split(':')) {
    if (!/^[0-9A-Fa-f]{1,4}$/.test(part)) return null;
    groups.push(parseInt(part, 16));
  }
  return groups;
}

/** Parse an IPv6 address (no zone, no brackets) into its eight 16-bit groups. */
export function parseIPv6(text: string): number[] | null {
  if (text.includes('%') || text.length === 0) return null;
  let body = text;
  let tail: number[] = [];
  const lastColon = body.lastIndexOf(':');
  if (lastColon >= 0 && body.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4Groups(body.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = v4;
    const prefix = body.slice(0, lastColon + 1);
    body = prefix.endsWith('::') ? prefix : prefix.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const room = 8 - tail.length;
  if (halves.length === 2) {
    const head = parseHexGroups(halves[0] ?? '');
    const rest = parseHexGroups(halves[1] ?? '');
    if (head === null || rest === null) return null;
    const zeros = room - head.length - rest.length;
    if (zeros < 1) return null;
    return [...head, ...new Array<number>(zeros).fill(0), ...rest, ...tail];
  }
  const groups = parseHexGroups(body);
  if (groups === null || groups.length !== room) return null;
  return [...groups, ...tail];
}

function longestZeroRun(groups: readonly number[]): { start: number; length: number } {
  let best = { start: -1, length: 0 };
  let start = -1;
  for (let i = 0; i <= groups.length; i++) {
    if (i < groups.length && groups[i] === 0) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start > best.length) best = { start, length: i - start };
    start = -1;
  }
  return best;
}

/** Format eight groups per RFC 5952: lowercase, no leading zeros, longest zero run (≥2) as `::`. */
export function formatIPv6(groups: readonly number[]): string {
  const isMapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (isMapped) {
    const hi = groups[6] ?? 0;
    const lo = groups[7] ?? 0;
    return `::ffff:${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  const hex = groups.map((g) => g.toString(16));
  const run = longestZeroRun(groups);
  if (run.length < 2) return hex.join(':');
  const head = hex.slice(0, run.start).join(':');
  const tail = hex.slice(run.start + run.length).join(':');
  return `${head}::${tail}`;
}

/** The RFC 5952 spelling of an IPv6 address, or null when it is not one. */
export function canonicalIPv6(text: string): string | null {
  const groups = parseIPv6(text);
  return groups === null ? null : formatIPv6(groups);
}
