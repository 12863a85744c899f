// Rules for [[mcp]] servers: name, command or url, env names, headers.

import { ENV_KEY, HEADER_NAME, WIRING_NAME } from '../grammar.js';
import type { PathSegment } from '../locate.js';
import type { RawLayer, RawMcp } from '../schema.js';
import { egressFindings } from './egress.js';
import { duplicateNames, finding, missing, q, removalExtras, type Finding } from './finding.js';

export function wiringNameFindings(
  name: string,
  path: PathSegment[],
  what: string,
  rule: string,
): Finding[] {
  const bare = name.startsWith('!') ? name.slice(1) : name;
  if (WIRING_NAME.test(bare)) return [];
  return [
    finding(
      rule,
      [...path, 'name'],
      `${what} name ${q(name)} invalid`,
      'use lowercase letters, digits and "-", at most 64 characters',
    ),
  ];
}

function checkMcpUrl(url: string, path: PathSegment[], name: string): Finding[] {
  const bad = (why: string): Finding[] => [
    finding(
      'config.mcp-url-invalid',
      [...path, 'url'],
      `mcp ${q(name)}: url ${q(url)} ${why}`,
      'write an http:// or https:// URL',
    ),
  ];
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1];
  const port =
    authority === undefined
      ? undefined
      : /:([0-9]*)$/.exec(authority.replace(/^\[[^\]]*\]/, ''))?.[1];
  if (port !== undefined && (port === '' || Number(port) < 1 || Number(port) > 65535)) {
    return bad('has a port outside 1-65535');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return bad('is not a URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return bad('must be http or https');
  if (parsed.hostname === '') return bad('has no host');
  return [];
}

function checkMcpEntry(mcp: RawMcp, i: number): Finding[] {
  const path: PathSegment[] = ['mcp', i];
  if (mcp.name === undefined) return [missing(path, 'name', 'an [[mcp]] entry')];
  const name = mcp.name;
  const out = wiringNameFindings(name, path, 'mcp', 'config.mcp-name-invalid');
  if (name.startsWith('!')) return [...out, ...removalExtras(path, mcp, 'name', 'mcp')];
  const hasCommand = mcp.command !== undefined;
  const hasUrl = mcp.url !== undefined;
  if (hasCommand && hasUrl) {
    out.push(
      finding(
        'config.mcp-command-and-url',
        path,
        `mcp ${q(name)} has both command and url`,
        'keep command for a local server or url for a remote one',
      ),
    );
  } else if (!hasUrl && (mcp.command ?? []).length === 0) {
    out.push(
      finding(
        'config.mcp-needs-command-or-url',
        path,
        `mcp ${q(name)} needs a command (argv list) or a url`,
        'add command = ["server", "stdio"] or url = "https://…"',
      ),
    );
  }
  if (mcp.url !== undefined) out.push(...checkMcpUrl(mcp.url, path, name));
  (mcp.env ?? []).forEach((envName, j) => {
    if (ENV_KEY.test(envName)) return;
    out.push(
      finding(
        'config.mcp-env-invalid',
        [...path, 'env', j],
        `mcp ${q(name)}: env entry ${q(envName)} is not a variable name`,
        'list variable NAMES the server reads (values come from [env] or env_from_host)',
      ),
    );
  });
  out.push(...egressFindings(mcp.egress ?? [], [...path, 'egress'], false));
  out.push(...checkMcpHeaders(mcp, path, name, hasCommand));
  return out;
}

function checkMcpHeaders(
  mcp: RawMcp,
  path: PathSegment[],
  name: string,
  local: boolean,
): Finding[] {
  const headers = Object.keys(mcp.headers ?? {});
  if (headers.length === 0) return [];
  if (local) {
    return [
      finding(
        'config.mcp-headers-local',
        [...path, 'headers'],
        `mcp ${q(name)}: headers apply only to a remote (url) server`,
        'remove headers, or use url',
      ),
    ];
  }
  const seen = new Set<string>();
  return headers.flatMap((header) => {
    const out: Finding[] = [];
    if (!HEADER_NAME.test(header)) {
      out.push(
        finding(
          'config.mcp-header-invalid',
          [...path, 'headers', header],
          `mcp ${q(name)}: header name ${q(header)} invalid`,
          'use an HTTP header token such as "Authorization"',
        ),
      );
    }
    const folded = header.toLowerCase();
    if (seen.has(folded)) {
      out.push(
        finding(
          'config.mcp-header-duplicate',
          [...path, 'headers', header],
          `mcp ${q(name)}: header ${q(header)} repeats another header (names are case-insensitive)`,
          'keep one spelling',
        ),
      );
    }
    seen.add(folded);
    return out;
  });
}

export function checkMcp(layer: RawLayer): Finding[] {
  const entries = layer.mcp ?? [];
  return [
    ...entries.flatMap(checkMcpEntry),
    ...duplicateNames(entries, 'mcp', 'mcp', 'config.mcp-duplicate'),
  ];
}
