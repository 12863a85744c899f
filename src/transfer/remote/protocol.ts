// The near side of remote delivery (byre here driving byre on an ssh host),
// pure: parsing an `ssh://[user@]host[:port]` target, the remote argv and its
// single-quoted form, the ssh argv, and what a remote exit code means. Never
// spawns.

import { ByreError, RefusedError, UsageError } from '../../errors.js';
import { escapeTerminal } from '../../output/escape.js';
import { shQuote } from '../../gen/quote.js';
import { PROTO_VERSION } from '../boxes-grammar.js';

export interface SshTarget {
  /** The argument as given (what a deliver app bakes). */
  raw: string;
  user?: string;
  /** Without brackets for an IPv6 literal. */
  host: string;
  port?: number;
  /** What ssh is handed after `--`: `user@host` or `host`. */
  dest: string;
}

export function isSshTarget(arg: string | undefined): arg is string {
  return arg?.startsWith('ssh://') === true;
}

function badTarget(raw: string, why: string, rule: string): UsageError {
  return new UsageError(`${escapeTerminal(raw)} is not a usable ssh target: ${why}`, {
    rule,
    remedy: 'write it as ssh://[user@]host[:port]; keep passwords in ssh (keys or ssh-agent)',
  });
}

/** `ssh://[user@]host[:port]` with an optional trailing `/`; nothing else. */
export function parseSshTarget(raw: string): SshTarget {
  const rest = raw.slice('ssh://'.length);
  if (/[\u0000-\u0020\u007f-\u009f]/.test(rest)) {
    return thrown(
      badTarget(raw, 'it contains spaces or control characters', 'transfer.ssh-target'),
    );
  }
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  if (slash >= 0 && slash !== rest.length - 1) {
    return thrown(badTarget(raw, 'it carries a path', 'transfer.ssh-path'));
  }
  if (/[?#]/.test(authority)) {
    return thrown(badTarget(raw, 'it carries a query or fragment', 'transfer.ssh-path'));
  }
  const at = authority.lastIndexOf('@');
  const userinfo = at < 0 ? undefined : authority.slice(0, at);
  const hostport = at < 0 ? authority : authority.slice(at + 1);
  if (userinfo?.includes(':') === true) {
    return thrown(badTarget(raw, 'it carries a password', 'transfer.ssh-password'));
  }
  if (userinfo !== undefined && !/^[A-Za-z0-9._][A-Za-z0-9._-]*$/.test(userinfo)) {
    return thrown(badTarget(raw, 'the user name is not plain', 'transfer.ssh-target'));
  }
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9_][A-Za-z0-9._-]*))(?::(\d{1,5}))?$/.exec(
    hostport,
  );
  if (m === null) return thrown(badTarget(raw, 'no usable host', 'transfer.ssh-target'));
  const host = m[1] ?? m[2] ?? '';
  const portText = m[3];
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535)) {
    return thrown(badTarget(raw, 'the port is out of range', 'transfer.ssh-target'));
  }
  return {
    raw,
    host,
    dest: userinfo === undefined ? host : `${userinfo}@${host}`,
    ...(userinfo === undefined ? {} : { user: userinfo }),
    ...(port === undefined ? {} : { port }),
  };
}

/** Every word single-quoted: the remote login shell sees exactly each one. */
function quoteRemoteArgv(argv: readonly string[]): string {
  return argv.map(shQuote).join(' ');
}

export interface RemoteOptions {
  remoteByre?: string;
  skipUidCheck: boolean;
}

/** `<remote-byre|byre> deliver --boxes --proto 1 [--skip-uid-check]`. */
export function remoteListArgv(o: RemoteOptions): string[] {
  return [
    o.remoteByre ?? 'byre',
    'deliver',
    '--boxes',
    '--proto',
    String(PROTO_VERSION),
    ...(o.skipUidCheck ? ['--skip-uid-check'] : []),
  ];
}

/** `… deliver --proto 1 --box <id> --no-clip [--skip-uid-check] --tar -`. */
export function remoteDeliverArgv(o: RemoteOptions & { box: string }): string[] {
  return [
    o.remoteByre ?? 'byre',
    'deliver',
    '--proto',
    String(PROTO_VERSION),
    '--box',
    o.box,
    '--no-clip',
    ...(o.skipUidCheck ? ['--skip-uid-check'] : []),
    '--tar',
    '-',
  ];
}

/** `ssh [-p port] -- <dest> '<single-quoted remote argv>'`: the user's own config and auth. */
export function sshArgv(target: SshTarget, remoteArgv: readonly string[]): string[] {
  return [
    ...(target.port === undefined ? [] : ['-p', String(target.port)]),
    '--',
    target.dest,
    quoteRemoteArgv(remoteArgv),
  ];
}

const SSH_FAILED = 255;

/**
 * What a remote exit means. `said` is the remote's stderr (already relayed
 * to the user); only its last line rides along, escaped. Exit 4 on the list
 * call is not a failure (a partial pool) and never reaches here.
 */
export function remoteExitError(
  code: number | null,
  ctx: { target: SshTarget; remoteByre?: string; said: string },
): ByreError {
  const where = escapeTerminal(ctx.target.dest);
  const byre = escapeTerminal(ctx.remoteByre ?? 'byre');
  const last = escapeTerminal(
    ctx.said
      .trim()
      .split('\n')
      .map((l) => l.replace(/^byre: /, ''))
      .pop() ?? '',
  );
  const tail = last === '' ? '' : `: ${last}`;
  switch (code) {
    case 127:
      return new ByreError(
        ctx.remoteByre === undefined
          ? `no byre on the ssh PATH of ${where} — use --remote-byre`
          : `${byre} was not found on ${where}`,
        {
          rule: 'transfer.remote-no-byre',
          remedy: 'name the remote binary: --remote-byre /absolute/path/to/byre',
        },
      );
    case 126:
      return new ByreError(`${byre} on ${where} is not executable`, {
        rule: 'transfer.remote-not-executable',
        remedy: `check the path and mode of ${byre} on ${where}`,
      });
    case 2:
      return new ByreError(
        `the byre on ${where} is too old: it does not speak --proto ${PROTO_VERSION}${tail}`,
        {
          rule: 'transfer.remote-too-old',
          remedy: `update byre on ${where}`,
        },
      );
    case SSH_FAILED:
    case null:
      return new ByreError(`ssh to ${where} failed${tail}`, {
        rule: 'transfer.ssh-failed',
        remedy: `check that \`ssh ${where}\` works on its own`,
      });
    case 3:
      return new RefusedError(`the byre on ${where} refused${tail}`, {
        rule: 'transfer.remote-refused',
      });
    default:
      return new ByreError(`the byre on ${where} failed (exit ${code})${tail}`, {
        rule: 'transfer.remote-failed',
      });
  }
}

function thrown(error: UsageError): never {
  throw error;
}
