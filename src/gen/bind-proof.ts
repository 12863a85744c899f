// The bind proof (adr/0045): the list of device:inode pairs byre pinned for
// each bind's host source, in the form the box's launcher and byre's helper
// containers read it from BYRE_BIND_PROOF, and the one POSIX check both run
// before anything else. Pure; the one owner of the format, the check and the
// exit status it fails with. The launcher carries the check verbatim
// (src/gen/launcher.test.ts holds the two together).

import { ByreError } from '../errors.js';
import { BIND_PROOF_ENV } from './box-layout.js';

/**
 * The status the check exits with when a bind is not the object byre
 * pinned. Above 127 on purpose: develop already treats a box status above
 * 127 as its own failure, never as the agent's passed-through status.
 */
export const BIND_PROOF_EXIT = 222;

/** One bind as the check expects to find it: the target in the box and its source's identity. */
export interface ProvenBind {
  target: string;
  dev: bigint;
  ino: bigint;
}

/**
 * `dev:ino:target,…`: targets are absolute and hold no comma or newline
 * (the engine's `--mount` could not carry one either), so the list needs no
 * quoting and survives `-e` unchanged.
 */
export function bindProofValue(binds: readonly ProvenBind[]): string {
  return binds
    .map((b) => {
      if (!b.target.startsWith('/') || /[,\n\r\0]/.test(b.target)) {
        throw new ByreError(
          `bind target ${JSON.stringify(b.target)} cannot be proven (not absolute, or it holds a comma or newline)`,
          {
            rule: 'mount.unsafe-path',
            remedy: 'rename the directory or choose another mount path',
          },
        );
      }
      return `${b.dev}:${b.ino}:${b.target}`;
    })
    .join(',');
}

/** The `-e` pair a helper container gets; none without binds to prove. */
export function bindProofEnvArgs(binds: readonly ProvenBind[] | null): string[] {
  return binds === null || binds.length === 0
    ? []
    : ['-e', `${BIND_PROOF_ENV}=${bindProofValue(binds)}`];
}

/**
 * The check, in POSIX sh (the launcher is bash; byre's helpers run `sh`).
 * One `stat -L` of every listed target against the expected lines; any
 * other object, a malformed list or a stat that fails exits
 * BIND_PROOF_EXIT, naming each bind that differs. No list, no check (an
 * ejected box, a remote engine).
 */
const BIND_PROOF_SH = `# --- bind proof (adr/0045) ---------------------------------------------------
# byre pinned each bind's host source (the device and inode of the object its
# checks judged) and lists them in BYRE_BIND_PROOF; the engine resolved the
# sources again at start. Any other object here means a path was swapped in
# between, and nothing else runs. First, before any gate or hook.
byre_bind_refuse() {
  printf 'byre: bind proof: %s; refusing to run anything in this box (failing closed).\\n' "$1" >&2
  exit ${BIND_PROOF_EXIT}
}
byre_prove_binds() {
  byre_expected=''
  byre_ifs=$IFS
  IFS=,
  set -f
  # shellcheck disable=SC2086
  set -- $${BIND_PROOF_ENV}
  set +f
  IFS=$byre_ifs
  for byre_entry do
    shift
    byre_dev=\${byre_entry%%:*}
    byre_rest=\${byre_entry#*:}
    byre_ino=\${byre_rest%%:*}
    byre_target=\${byre_rest#*:}
    case $byre_dev in '' | *[!0-9]*) byre_bind_refuse 'the list of binds to prove is malformed' ;; esac
    case $byre_ino in '' | *[!0-9]*) byre_bind_refuse 'the list of binds to prove is malformed' ;; esac
    case $byre_target in /*) ;; *) byre_bind_refuse 'the list of binds to prove is malformed' ;; esac
    byre_expected="$byre_expected$byre_dev $byre_ino $byre_target
"
    set -- "$@" "$byre_target"
  done
  byre_seen=$(stat -L -c '%d %i %n' -- "$@" 2>/dev/null) || true
  if [ "$byre_seen
" != "$byre_expected" ]; then
    printf 'byre: bind proof: a bind is not the object byre checked before it started this box:\\n' >&2
    printf '%s' "$byre_expected" | while IFS= read -r byre_line; do
      byre_target=\${byre_line#* * }
      byre_found=$(stat -L -c '%d %i' -- "$byre_target" 2>&1) || true
      if [ "$byre_found $byre_target" != "$byre_line" ]; then
        printf 'byre:   %s: byre checked device and inode %s, the box has %s\\n' "$byre_target" "\${byre_line% "$byre_target"}" "$byre_found" >&2
      fi
    done
    byre_bind_refuse 'something replaced a bind source, or a directory above it, after byre checked it'
  fi
}
if [ -n "\${${BIND_PROOF_ENV}:-}" ]; then byre_prove_binds; fi
# --- end of bind proof --------------------------------------------------------
`;

/** A helper's script with the check in front when there is a proof; unchanged without one. */
export function provenScript(script: string, proof: readonly ProvenBind[] | null): string {
  return proof === null ? script : `${BIND_PROOF_SH}${script}`;
}
