// The POSIX sh that runs inside the box for deliver and grab, and the exec
// specs that carry it. Every name travels as argv or inside the byte stream,
// never spliced into script text; the scripts judge nothing they do not have
// to (grab's host side treats all of their output as hostile).

import type { ExecSpec } from '../engine/types.js';
import { DEV_HOME, INBOX } from '../gen/box-layout.js';

/** Exit statuses the box-side scripts use beyond 0/1. */
export const BOX_EXIT = {
  /** No usable inbox: missing (old image) or not a plain directory. */
  noInbox: 3,
  /** grab: no such path, or neither a regular file nor a directory. */
  grabClassify: 4,
} as const;

/** Marker the host writes last into a staged tar; its absence means the stream died. */
export const STAGE_COMPLETE = '.byre-complete';

const COMMON = String.raw`
set -u
set -C
die() { printf 'byre-deliver: %s\n' "$1" >&2; exit "$2"; }
inbox=$1
if [ -L "$inbox" ] || { [ -e "$inbox" ] && [ ! -d "$inbox" ]; }; then
  die "$inbox is not a plain directory - refusing" 3
fi
[ -d "$inbox" ] || die "this box has no $inbox (its image predates it); rebuild it" 3
split() {
  stem=$1; ext=
  case $1 in ?*.*) ext=.\${1##*.}; stem=\${1%.*} ;; esac
}
taken() { [ -e "$1" ] || [ -L "$1" ]; }
claim_file() {
  split "$2"; k=1; c=$2
  while :; do
    if ! taken "$inbox/$c"; then
      if ln "$1" "$inbox/$c" 2>/dev/null; then
        [ "$inbox/$c" -ef "$1" ] && [ ! -d "$inbox/$c" ] && break
        # A directory took the name first, and ln put the link inside it.
        [ "$inbox/$c/\${1##*/}" -ef "$1" ] && rm -f "$inbox/$c/\${1##*/}"
      elif ! taken "$inbox/$c"; then
        ln "$1" "$inbox/$c"; die "could not claim $c" 1
      fi
    fi
    k=$((k + 1)); [ "$k" -le 9999 ] || die "no free name for $2" 1
    c=$stem-$k$ext
  done
  landed=$inbox/$c
}
claim_dir() {
  split "$2"; k=1; c=$2
  until mkdir "$inbox/$c" 2>/dev/null; do
    taken "$inbox/$c" || { mkdir "$inbox/$c"; die "could not claim $c" 1; }
    k=$((k + 1)); [ "$k" -le 9999 ] || die "no free name for $2" 1
    c=$stem-$k$ext
  done
  mv -T "$1" "$inbox/$c" || { rmdir "$inbox/$c"; die "could not move $c into place" 1; }
  landed=$inbox/$c
}
`.replace(/\\\$/g, '$');

/**
 * One file from stdin: `$1` inbox, `$2` landing name, `$3` exact byte count.
 * Streams into a noclobber dotfile temp; a short stream claims nothing.
 */
export const DELIVER_FILE_SCRIPT = `${COMMON}
name=$2; size=$3
i=0
until : > "$inbox/.byre-tmp-$$-$i" 2>/dev/null; do
  i=$((i + 1)); [ "$i" -le 100 ] || die "cannot create a temp file in $inbox" 1
done
tmp=$inbox/.byre-tmp-$$-$i
trap 'rm -f "$tmp"' EXIT
trap 'exit 1' HUP INT TERM PIPE
cat >> "$tmp" || die "the stream failed; nothing landed" 1
got=$(wc -c < "$tmp")
[ "$got" -eq "$size" ] || die "the stream ended early ($got of $size bytes); nothing landed" 1
claim_file "$tmp" "$name"
printf '%s\\n' "$landed"
`;

/**
 * A staged tar on stdin: \`$1\` inbox. Each top-level item arrives as the one
 * entry of a numbered directory (000001/<name>), so names come from the
 * archive, never from argv or script text; the completion marker is written
 * last. Items claim in archive order and each landed path is printed.
 */
export const DELIVER_TAR_SCRIPT = `${COMMON}
i=0
until mkdir "$inbox/.byre-stage-$$-$i" 2>/dev/null; do
  i=$((i + 1)); [ "$i" -le 100 ] || die "cannot create a staging directory in $inbox" 1
done
stage=$inbox/.byre-stage-$$-$i
trap 'rm -rf "$stage"' EXIT
trap 'exit 1' HUP INT TERM PIPE
command -v tar >/dev/null 2>&1 || die "this box has no tar, which deliver needs for several files or a directory" 1
tar -x -o -f - -C "$stage" || die "the stream failed; nothing landed" 1
[ -f "$stage/${STAGE_COMPLETE}" ] || die "the stream ended early; nothing landed" 1
for d in "$stage"/[0-9]*; do
  [ -d "$d" ] || continue
  found=
  for e in "$d"/* "$d"/.[!.]* "$d"/..?*; do
    taken "$e" || continue
    found=$e
  done
  [ -n "$found" ] || die "an empty item in the stream" 1
  if [ -d "$found" ] && [ ! -L "$found" ]; then
    claim_dir "$found" "\${found##*/}"
  else
    claim_file "$found" "\${found##*/}"
  fi
  printf '%s\\n' "$landed"
done
`;

/**
 * The first line both grab scripts say on stderr: their pid, which the
 * process they exec keeps. An exec's process leads its own process group on
 * both engines, so the host can stop the exec and all it started
 * (GRAB_STOP_SCRIPT) when it stops reading: killing the engine client does
 * not stop the box's side (adr/0004).
 */
const SAY_PID = String.raw`printf 'byre-grab pid %s\n' "$$" >&2`;

/**
 * grab, first exec: \`$1\` the box path. Says its pid, then what the path is
 * on stderr's next line (\`byre-grab 1 f\` or \`byre-grab 1 d\`, no names),
 * then for a file streams its bytes on stdout, so the host can hand stdout
 * straight to a file; a directory streams nothing here (GRAB_TREE_SCRIPT
 * sends it).
 */
export const GRAB_SCRIPT = String.raw`
set -u
${SAY_PID}
p=$1
if [ -d "$p" ]; then
  printf 'byre-grab 1 d\n' >&2
elif [ -f "$p" ]; then
  printf 'byre-grab 1 f\n' >&2
  exec cat -- "$p"
elif [ -e "$p" ] || [ -L "$p" ]; then
  printf 'byre-grab: not a regular file or directory\n' >&2; exit 4
else
  printf 'byre-grab: no such path in the box\n' >&2; exit 4
fi
`;

/**
 * grab, second exec for a directory: \`$1\` the box path; a tar of its
 * contents on stdout. GNU tar sends a file's second name as a hard-link
 * entry, which the host never lands (adr/0004); \`--hard-dereference\` sends
 * its bytes again instead, so a tree with hard links (pnpm's node_modules)
 * lands whole. Other tars (busybox) are asked for nothing they lack. Says
 * its pid first on stderr, as GRAB_SCRIPT does.
 */
export const GRAB_TREE_SCRIPT = String.raw`
set -u
${SAY_PID}
p=$1
[ -d "$p" ] || { printf 'byre-grab: no longer a directory\n' >&2; exit 4; }
cd "$p" || { printf 'byre-grab: cannot enter the directory\n' >&2; exit 4; }
command -v tar >/dev/null 2>&1 || { printf 'byre-grab: this box has no tar, which grabbing a directory needs\n' >&2; exit 1; }
case $(tar --version 2>/dev/null) in *'GNU tar'*) exec tar -c --hard-dereference -f - . ;; esac
exec tar -c -f - .
`;

/**
 * The variable each grab exec carries, set to a fresh random mark: what the
 * exec and everything it starts inherit, so the host can find them even when
 * the box's pid line never arrived (each engine relays stdout and stderr on
 * their own, so a box writing fast can send the cap's worth of stdout before
 * the pid line; seen on docker under load).
 */
const GRAB_MARK_VAR = 'BYRE_GRAB';

/**
 * Stops a grab exec the host no longer reads: \`$1\` the pid its script
 * said (empty when it said none), \`$2\` the exec's mark. Kills the process
 * group that pid leads (what the box's \`tar\` or \`cat\` started too), or
 * the process alone if it leads none; then every process whose environment
 * still carries the mark. Runs as the grab's own user, so a pid the box lied
 * about, or a mark it copied, reaches only that user's processes. Exits 0
 * whatever it found: anything else is the engine failing to run it.
 */
export const GRAB_STOP_SCRIPT = String.raw`
set -u
[ -z "$1" ] || kill -s KILL -- "-$1" 2>/dev/null || kill -s KILL -- "$1" 2>/dev/null
cd /proc || exit 0
for p in [0-9]*; do
  grep -qsF "${GRAB_MARK_VAR}=$2" "$p/environ" 2>/dev/null && kill -s KILL -- "$p" 2>/dev/null
done
exit 0
`;

export interface BoxUser {
  id: string;
  uid: number;
  gid: number;
}

function spec(
  box: BoxUser,
  script: string,
  argv0: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): ExecSpec {
  return {
    id: box.id,
    user: `${box.uid}:${box.gid}`,
    env: { HOME: DEV_HOME, ...env },
    command: ['sh', '-c', script, argv0, ...args],
  };
}

export { INBOX };

export function deliverFileSpec(box: BoxUser, name: string, size: number, inbox = INBOX): ExecSpec {
  return spec(box, DELIVER_FILE_SCRIPT, 'byre-deliver', [inbox, name, String(size)]);
}

export function deliverTarSpec(box: BoxUser, inbox = INBOX): ExecSpec {
  return spec(box, DELIVER_TAR_SCRIPT, 'byre-deliver', [inbox]);
}

/** A grab's first exec; `mark` is its GRAB_MARK_VAR value, for grabStopSpec. */
export function grabSpec(box: BoxUser, boxPath: string, mark: string): ExecSpec {
  return spec(box, GRAB_SCRIPT, 'byre-grab', [boxPath], { [GRAB_MARK_VAR]: mark });
}

/** A grab's tree exec; `mark` as for grabSpec. */
export function grabTreeSpec(box: BoxUser, boxPath: string, mark: string): ExecSpec {
  return spec(box, GRAB_TREE_SCRIPT, 'byre-grab', [boxPath], { [GRAB_MARK_VAR]: mark });
}

/** Stops the grab exec carrying `mark` (the mark is an argument here, not the stop's own environment). */
export function grabStopSpec(box: BoxUser, pid: number | null, mark: string): ExecSpec {
  return spec(box, GRAB_STOP_SCRIPT, 'byre-grab', [pid === null ? '' : String(pid), mark]);
}
