// Rules for [[mcp]] servers: name, command or url, env names, headers.

import { CONTROL, ENV_KEY, HEADER_NAME, WIRING_NAME } from '../grammar.js';
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

/**
 * The authority of an http(s) URL as written: WHATWG parsing would read
 * `https:///mcp` as host `mcp` and drop tabs and newlines silently, so the
 * host is judged on the text, before any parser normalises it.
 */
function urlAuthority(url: string): { host: string; port: string | undefined } | null {
  const match = /^https?:\/\/([^/?#]*)/i.exec(url);
  if (match === null) return null;
  const hostPort = (match[1] ?? '').replace(/^.*@/, '');
  const bracketed = /^(\[[^\]]*\])(?::([0-9]*))?$/.exec(hostPort);
  if (bracketed !== null) return { host: bracketed[1] ?? '', port: bracketed[2] };
  const colon = hostPort.lastIndexOf(':');
  return colon < 0
    ? { host: hostPort, port: undefined }
    : { host: hostPort.slice(0, colon), port: hostPort.slice(colon + 1) };
}

function checkMcpUrl(url: string, path: PathSegment[], name: string): Finding[] {
  const bad = (why: string): Finding[] => [
    finding(
      'config.mcp-url-invalid',
      [...path, 'url'],
      `mcp ${q(name)}: url ${q(url)} ${why}`,
      'write an http:// or https:// URL with a host, e.g. "https://mcp.example.com/mcp"',
    ),
  ];
  if (CONTROL.test(url) || /\s/.test(url)) return bad('contains whitespace or control characters');
  const authority = urlAuthority(url);
  if (authority === null) {
    return bad(/^[A-Za-z][A-Za-z0-9+.-]*:/.test(url) ? 'must be http or https' : 'is not a URL');
  }
  if (authority.host === '') return bad('has no host');
  const port = authority.port;
  if (port !== undefined && (!/^[0-9]+$/.test(port) || Number(port) < 1 || Number(port) > 65535)) {
    return bad('has a port outside 1-65535');
  }
  try {
    new URL(url);
  } catch {
    return bad('is not a URL');
  }
  return [];
}

/**
 * argv[0] names the server's program; no element is empty (an unset shell
 * variable in `byre mcp add x -- srv "$TOKEN"` arrives as one, and the server
 * would get a silent empty argument); ESC or any control character never
 * reaches a terminal or a spawn.
 */
function checkMcpCommand(command: readonly string[], path: PathSegment[], name: string): Finding[] {
  const out: Finding[] = [];
  command.forEach((arg, j) => {
    if (arg !== '') return;
    out.push(
      finding(
        'config.mcp-command-empty',
        [...path, 'command', j],
        `mcp ${q(name)}: command[${j}] is empty${j === 0 ? ', so it names no program' : ''}`,
        j === 0
          ? 'write the program first, e.g. command = ["github-mcp-server", "stdio"]'
          : 'remove the empty element, or write the argument it was meant to carry',
      ),
    );
  });
  const program = command[0];
  if (program !== undefined && program !== '' && program.trim() === '') {
    out.push(
      finding(
        'config.mcp-command-blank',
        [...path, 'command', 0],
        `mcp ${q(name)}: command[0] is blank, so it names no program`,
        'write the program first, e.g. command = ["github-mcp-server", "stdio"]',
      ),
    );
  }
  command.forEach((arg, j) => {
    if (!CONTROL.test(arg)) return;
    out.push(
      finding(
        'config.mcp-control-chars',
        [...path, 'command', j],
        `mcp ${q(name)}: command[${j}] contains a control character`,
        'remove the control character (ESC, C0 or C1) from the argument',
      ),
    );
  });
  return out;
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
  if (mcp.command !== undefined) out.push(...checkMcpCommand(mcp.command, path, name));
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
    if (CONTROL.test(mcp.headers?.[header] ?? '')) {
      out.push(
        finding(
          'config.mcp-control-chars',
          [...path, 'headers', header],
          `mcp ${q(name)}: header ${q(header)} has a control character in its value`,
          'remove the control character (ESC, C0 or C1); ${VAR} templates fill values at launch',
        ),
      );
    }
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
