// What a `byre deliver` invocation asks for, decided from argv alone: flag
// exclusivity (--install-app, --boxes and --tar each take only their own few
// flags; `-` takes no paths), the ssh:// target, and the input mode (paths,
// stdin, the paste beat). Pure; the command does the IO.

import { UsageError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import { PROTO_VERSION } from './boxes-grammar.js';
import { isSshTarget, parseSshTarget, type SshTarget } from './remote/protocol.js';

export interface DeliverOptions {
  box?: string;
  name?: string;
  skipUidCheck?: boolean;
  /** commander's --no-clip. */
  clip?: boolean;
  boxes?: boolean;
  proto?: string;
  tar?: boolean;
  remoteByre?: string;
  installApp?: boolean;
}

export type DeliverInput =
  | { kind: 'paths'; paths: string[] }
  | { kind: 'stdin' }
  /** No arguments on a terminal: wait for a paste. */
  | { kind: 'paste' }
  /** No arguments, stdin a device that is no terminal (/dev/null: a GUI launch): the clipboard as is. */
  | { kind: 'clipboard' };

export type DeliverPlan =
  | { kind: 'install-app'; remote: SshTarget | null }
  | { kind: 'boxes' }
  | { kind: 'tar' }
  | { kind: 'deliver'; remote: SshTarget | null; input: DeliverInput };

function usage(message: string, rule: string, remedy?: string): UsageError {
  return new UsageError(message, remedy === undefined ? { rule } : { rule, remedy });
}

function checkProto(proto: string | undefined): void {
  if (proto !== undefined && proto !== String(PROTO_VERSION)) {
    throw new UsageError(
      `this byre speaks --proto ${PROTO_VERSION}, not ${escapeTerminal(proto)}`,
      {
        rule: 'transfer.proto',
        remedy: 'update byre on one side so both speak the same protocol',
      },
    );
  }
}

function checkRemoteByre(value: string | undefined): void {
  if (value !== undefined && (value === '' || /[\u0000-\u001f\u007f]/.test(value))) {
    throw usage('--remote-byre needs a plain path', 'transfer.remote-byre-usage');
  }
}

export function planDelivery(
  args: readonly string[],
  o: DeliverOptions,
  host: { stdinIsTty: boolean; stdinIsDevice?: boolean },
): DeliverPlan {
  checkProto(o.proto);
  checkRemoteByre(o.remoteByre);
  const remote = isSshTarget(args[0]) ? parseSshTarget(args[0]) : null;
  const rest = remote === null ? [...args] : args.slice(1);

  if (o.installApp === true) {
    if (
      rest.length > 0 ||
      o.boxes === true ||
      o.tar === true ||
      o.proto !== undefined ||
      o.skipUidCheck === true ||
      o.clip === false
    ) {
      throw usage(
        '--install-app takes only --box, --name and an ssh:// target',
        'transfer.install-app-usage',
        'byre deliver [ssh://host] --install-app [--box <id>] [--name <label>]',
      );
    }
    if (o.remoteByre !== undefined && remote === null) {
      throw usage('--remote-byre needs an ssh:// target', 'transfer.remote-byre-usage');
    }
    return { kind: 'install-app', remote };
  }
  if (o.boxes === true) {
    if (
      args.length > 0 ||
      o.box !== undefined ||
      o.name !== undefined ||
      o.tar === true ||
      o.remoteByre !== undefined ||
      o.clip === false
    ) {
      throw usage('--boxes takes only --proto and --skip-uid-check', 'transfer.boxes-usage');
    }
    return { kind: 'boxes' };
  }
  if (o.tar === true) {
    if (args.length !== 1 || args[0] !== '-' || o.name !== undefined) {
      throw usage('--tar needs exactly the argument `-` and no --name', 'transfer.tar-usage');
    }
    if (o.remoteByre !== undefined) {
      throw usage('--remote-byre needs an ssh:// target', 'transfer.remote-byre-usage');
    }
    return { kind: 'tar' };
  }
  if (o.remoteByre !== undefined && remote === null) {
    throw usage(
      '--remote-byre needs an ssh:// target',
      'transfer.remote-byre-usage',
      'byre deliver ssh://host --remote-byre /path/to/byre <path>…',
    );
  }
  if (rest.includes('-') && rest.length > 1) {
    throw usage('`-` (stdin) cannot be mixed with paths', 'transfer.stdin-mixed');
  }
  if (o.name !== undefined && rest.length > 0 && rest[0] !== '-') {
    throw usage(
      '--name names stdin; files keep their own names',
      'transfer.name-usage',
      'rename the file, or pipe it: byre deliver --name <file> - < <path>',
    );
  }
  let input: DeliverInput;
  if (rest.length > 0) input = rest[0] === '-' ? { kind: 'stdin' } : { kind: 'paths', paths: rest };
  else if (host.stdinIsTty) input = { kind: 'paste' };
  else input = host.stdinIsDevice === true ? { kind: 'clipboard' } : { kind: 'stdin' };
  return { kind: 'deliver', remote, input };
}
