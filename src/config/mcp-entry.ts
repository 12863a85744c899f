// `byre mcp add`'s arguments as an [[mcp]] entry: `<url>` makes a remote
// server, `-- <argv>...` a local one; --env names what it reads, --egress
// what else it reaches, --header and --bearer what a remote one is sent.
// Pure; every refusal names the argument. Values (tokens) never become
// config through this verb: a credential-looking header written literally is
// refused with the ${VAR} form as the remedy.

import { UsageError } from '../errors.js';
import type { TomlTable } from '../tomldoc/index.js';
import { parseEgressEntry } from './egress-entry.js';
import { ENV_KEY, HEADER_NAME, WIRING_NAME } from './grammar.js';

export interface McpAddFlags {
  env?: readonly string[];
  egress?: readonly string[];
  header?: readonly string[];
  bearer?: string;
}

const REMOTE = /^https?:\/\//i;

function usage(message: string, remedy: string, rule: string): UsageError {
  return new UsageError(message, { rule, remedy });
}

/** A wiring name (`[[mcp]]`, `[[claude_skills]]`, `[[context]]`), or a usage error naming it. */
export function checkWiringName(name: string, what: string): void {
  if (WIRING_NAME.test(name)) return;
  throw usage(
    `${what} name ${JSON.stringify(name)} invalid`,
    'use lowercase letters, digits and "-", at most 64 characters',
    'wiring.name-invalid',
  );
}

function headerPair(raw: string): [string, string] {
  const eq = raw.indexOf('=');
  const name = eq < 0 ? raw : raw.slice(0, eq);
  if (eq < 0 || !HEADER_NAME.test(name)) {
    throw usage(
      `--header ${JSON.stringify(raw)}: write it as Name=value`,
      'e.g. --header "X-Api-Version=2"; put secrets in ${VAR} (or use --bearer NAME)',
      'mcp.header-invalid',
    );
  }
  return [name, raw.slice(eq + 1)];
}

const SECRET_HEADER = /authorization|token|key|secret|cookie/i;

export function mcpAddEntry(
  name: string,
  operands: readonly string[],
  flags: McpAddFlags,
): TomlTable & { name: string } {
  checkWiringName(name, 'mcp');
  if (operands.length === 0) {
    throw usage(
      `mcp add ${name}: give the server's URL, or its argv after --`,
      'byre mcp add <name> https://host/mcp   or   byre mcp add <name> -- <program> [args...]',
      'mcp.target-missing',
    );
  }
  const first = operands[0] ?? '';
  const remote = operands.length === 1 && REMOTE.test(first);
  const env = [...(flags.env ?? [])];
  for (const v of env) {
    if (!ENV_KEY.test(v)) {
      throw usage(
        `--env ${JSON.stringify(v)} is not a variable name`,
        'name the variable the server reads (its value comes from env_from_host or [env])',
        'mcp.env-invalid',
      );
    }
  }
  const egress = [...(flags.egress ?? [])];
  for (const e of egress) {
    const parsed = parseEgressEntry(e);
    if (!parsed.ok || parsed.closure) {
      throw usage(
        `--egress ${JSON.stringify(e)}: ${parsed.ok ? 'a closure has no meaning here' : parsed.message}`,
        'write host[:port], e.g. --egress api.example.com:443',
        'mcp.egress-invalid',
      );
    }
  }
  const headers: Record<string, string> = {};
  for (const raw of flags.header ?? []) {
    const [key, value] = headerPair(raw);
    headers[key] = value;
  }
  if (flags.bearer !== undefined) {
    if (!ENV_KEY.test(flags.bearer)) {
      throw usage(
        `--bearer ${JSON.stringify(flags.bearer)} is not a variable name`,
        'name the variable that holds the token, e.g. --bearer GITHUB_TOKEN',
        'mcp.env-invalid',
      );
    }
    headers['Authorization'] = `Bearer \${${flags.bearer}}`;
    if (!env.includes(flags.bearer)) env.push(flags.bearer);
  }
  const literal = Object.keys(headers).find(
    (key) => SECRET_HEADER.test(key) && !(headers[key] ?? '').includes('${'),
  );
  if (literal !== undefined) {
    throw usage(
      `--header ${literal}: byre keeps tokens out of its files, and this value is written literally`,
      `write the value as \${VAR} (e.g. --header "${literal}=Token \${MY_TOKEN}", or --bearer MY_TOKEN) and pass the variable with env_from_host`,
      'mcp.header-literal-secret',
    );
  }
  const hasHeaders = Object.keys(headers).length > 0;
  if (!remote && hasHeaders) {
    throw usage(
      `mcp add ${name}: --header and --bearer apply only to a remote (URL) server`,
      'drop them, or give the server as an http(s) URL',
      'mcp.headers-local',
    );
  }
  if (!remote && REMOTE.test(first)) {
    throw usage(
      `mcp add ${name}: a URL takes no further arguments`,
      'give only the URL, or the local server argv after --',
      'mcp.target-invalid',
    );
  }
  const entry: TomlTable & { name: string } = remote
    ? { name, url: first }
    : { name, command: [...operands] };
  if (env.length > 0) entry['env'] = env;
  if (egress.length > 0) entry['egress'] = egress;
  if (hasHeaders) entry['headers'] = headers;
  return entry;
}
