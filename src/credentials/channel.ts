// The credential channel (adr/0012), as data: where the session tmpfs sits in
// the box, the engine flag that mounts it, the payload byre streams into it
// and the POSIX sh receiver that lands the payload there. Pure; the host side
// that runs it is box-delivery.ts, the in-box side that waits for it is the
// launcher's credential gate.
//
// The payload travels only on the receiver's stdin: never in an argv, an env
// var, a label or a file on the host. Every value is base64 on its own line,
// decoded in the box by a pipeline whose left side is the shell's printf
// builtin, so no process's command line ever carries it.

import { ENV_KEY } from '../config/grammar.js';
import { CREDENTIAL_DIR } from '../gen/box-layout.js';
import type { CredentialKind } from '../config/credential-rows.js';

export { CREDENTIAL_DIR, CREDENTIAL_GATE_PATH } from '../gen/box-layout.js';

const PROTOCOL = 'byre-credentials 1';
/** What the receiver prints once every value has landed and the gate is open. */
export const RECEIVER_DONE = 'byre-credentials delivered';

export interface DeliveredValue {
  key: string;
  kind: CredentialKind;
  value: Uint8Array;
}

/** In-box subdirectory per kind: env values are read by the launcher, files are exported by path. */
function kindDir(kind: CredentialKind): 'env' | 'file' {
  return kind === 'encrypted' ? 'env' : 'file';
}

const KEY = ENV_KEY;

/** The receiver's stdin: a header, one `<kind> <KEY> <base64>` line per value, then `end`. */
export function credentialPayload(values: readonly DeliveredValue[]): string {
  const lines = [PROTOCOL];
  for (const v of values) {
    if (!KEY.test(v.key)) throw new RangeError('credential key is not a variable name');
    lines.push(`${kindDir(v.kind)} ${v.key} ${Buffer.from(v.value).toString('base64')}`);
  }
  lines.push('end', '');
  return lines.join('\n');
}

/**
 * The in-box receiver, run by `exec -i` as the dev user. It refuses anything
 * but a tmpfs at the channel directory (a value must never reach a disk
 * layer), refuses a second delivery, lands each value 0600 under a temp name
 * and renames it into place, and opens the gate (`ready`) only after the
 * `end` line: a stream cut short opens nothing. Its two arguments (the
 * directory and the mounts table) come from byre's argv, never the box's env,
 * which a skill could have set.
 */
const RECEIVER_SCRIPT = `set -eu
umask 077
d=$1
fs=
while read -r _ m t _; do
  if [ "$m" = "$d" ]; then fs=$t; fi
done < "$2"
if [ "$fs" != tmpfs ]; then
  echo "byre-credentials: $d is not a tmpfs; refusing to land credentials on disk" >&2
  exit 3
fi
if [ -e "$d/ready" ] || [ -e "$d/env" ] || [ -e "$d/file" ]; then
  echo "byre-credentials: credentials were already delivered to this box" >&2
  exit 3
fi
mkdir "$d/env" "$d/file"
IFS= read -r head || head=
if [ "$head" != "${PROTOCOL}" ]; then
  echo "byre-credentials: unknown protocol" >&2
  exit 4
fi
while IFS=' ' read -r kind key data; do
  case $kind in
    end)
      : > "$d/.ready"
      mv "$d/.ready" "$d/ready"
      echo "${RECEIVER_DONE}"
      exit 0
      ;;
    env | file) ;;
    *)
      echo "byre-credentials: malformed payload" >&2
      exit 4
      ;;
  esac
  case $key in
    '' | [0-9]* | *[!A-Za-z0-9_]*)
      echo "byre-credentials: malformed key" >&2
      exit 4
      ;;
  esac
  printf '%s' "$data" | base64 -d > "$d/$kind/.$key"
  mv "$d/$kind/.$key" "$d/$kind/$key"
done
echo "byre-credentials: the payload ended before its end line" >&2
exit 5
`;

/** The receiver's command line: the script and its arguments, no value among them. */
export function receiverCommand(dir = CREDENTIAL_DIR, mounts = '/proc/mounts'): string[] {
  return ['sh', '-c', RECEIVER_SCRIPT, 'byre-credentials', dir, mounts];
}
