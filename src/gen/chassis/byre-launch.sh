#!/bin/bash
# byre-launch: the box's constant ENTRYPOINT, installed by byre's core block
# and re-asserted by its security guard. Runs as the baked dev user, as PID 1.
# Order is load-bearing: the bind proof comes first, so nothing runs over a
# bind that is not what byre checked; then the launch gate, before any hook
# can run, so nothing in the box talks to the network before the wall is up.
# Every directory is overridable through BYRE_*_DIR for byre's own tests.
set -euo pipefail

# --- bind proof (adr/0045) ---------------------------------------------------
# byre pinned each bind's host source (the device and inode of the object its
# checks judged) and lists them in BYRE_BIND_PROOF; the engine resolved the
# sources again at start. Any other object here means a path was swapped in
# between, and nothing else runs. First, before any gate or hook.
byre_bind_refuse() {
  printf 'byre: bind proof: %s; refusing to run anything in this box (failing closed).\n' "$1" >&2
  exit 222
}
byre_prove_binds() {
  byre_expected=''
  byre_ifs=$IFS
  IFS=,
  set -f
  # shellcheck disable=SC2086
  set -- $BYRE_BIND_PROOF
  set +f
  IFS=$byre_ifs
  for byre_entry do
    shift
    byre_dev=${byre_entry%%:*}
    byre_rest=${byre_entry#*:}
    byre_ino=${byre_rest%%:*}
    byre_target=${byre_rest#*:}
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
    printf 'byre: bind proof: a bind is not the object byre checked before it started this box:\n' >&2
    printf '%s' "$byre_expected" | while IFS= read -r byre_line; do
      byre_target=${byre_line#* * }
      byre_found=$(stat -L -c '%d %i' -- "$byre_target" 2>&1) || true
      if [ "$byre_found $byre_target" != "$byre_line" ]; then
        printf 'byre:   %s: byre checked device and inode %s, the box has %s\n' "$byre_target" "${byre_line% "$byre_target"}" "$byre_found" >&2
      fi
    done
    byre_bind_refuse 'something replaced a bind source, or a directory above it, after byre checked it'
  fi
}
if [ -n "${BYRE_BIND_PROOF:-}" ]; then byre_prove_binds; fi
# --- end of bind proof --------------------------------------------------------

export HOME="${BYRE_DEV_HOME:-/home/dev}"

context_dir="${BYRE_CONTEXT_DIR:-/etc/byre}"
workspace="${BYRE_WORKSPACE_DIR:-/workspace}"
gate_file="${BYRE_LAUNCH_GATE_FILE:-/etc/byre/launch-gate}"

# refuse_launch GATE WHY WHAT HINT: the one way a gate fails closed.
refuse_launch() {
  printf 'byre: %s: %s — refusing to launch without %s (failing closed).\n' "$1" "$2" "$3" >&2
  printf 'byre: %s\n' "$4" >&2
  exit 1
}

fail_closed() {
  refuse_launch 'launch gate' "$1" it \
    'outside byre, apply the wall with `byre ejectfirewall`, or set BYRE_LAUNCH_GATE_FILE=/dev/null to run with no walls.'
}

# gate_tenths VALUE DEFAULT: a gate's timeout in tenths of a second, from
# seconds with at most one decimal (`30`, `0.2`); anything else is DEFAULT.
gate_tenths() {
  if [[ "$1" =~ ^([0-9]{1,6})(\.([0-9]))?$ ]]; then
    echo $((10#${BASH_REMATCH[1]} * 10 + 10#${BASH_REMATCH[3]:-0}))
  else
    echo $(($2 * 10))
  fi
}

# gate_pause SLOW: sleep before a gate's next look and add the sleep to
# gate_waited (hundredths of a second): 0.01 s through the first second (a
# gate usually opens within it, and this wait is paid on every launch it
# gates), SLOW hundredths (under 100) after that.
gate_pause() {
  local step=$1
  ((gate_waited >= 100)) || step=1
  sleep "0.$(printf '%02d' "$step")"
  gate_waited=$((gate_waited + step))
}

# gate_shown TENTHS: the timeout as the user set it, in seconds.
gate_shown() {
  if (($1 % 10 == 0)); then echo "$(($1 / 10))"; else echo "$(($1 / 10)).$(($1 % 10))"; fi
}

# gate_wait ADDRESS PORT TENTHS REFUSE WHO: wait until something listens on
# ADDRESS:PORT; past TENTHS tenths of a second, REFUSE (the gate's
# fail-closed function) says WHO never signaled ready there. At least one
# look; then every 0.01 s, and every 0.05 s after a second.
gate_wait() {
  gate_waited=0
  until (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; do
    ((gate_waited < $3 * 10)) ||
      "$4" "$5 never signaled ready on $1:$2 after $(gate_shown "$3")s"
    gate_pause 5
  done
}

# --- launch gate -------------------------------------------------------------
# A network-posture skill bakes a port into the gate file; byre's netns helper
# listens there once the wall is installed. No signal within the timeout means
# no wall, so the box dies rather than run open. The handshake keeps no state:
# a restarted container gates again and, with no helper, times out.
if [ -s "$gate_file" ]; then
  gate_text="$(cat "$gate_file")"
  if [[ "$gate_text" =~ ^[[:space:]]*([0-9]{1,5})[[:space:]]*$ ]] &&
    ((10#${BASH_REMATCH[1]} >= 1 && 10#${BASH_REMATCH[1]} <= 65535)); then
    gate_port=$((10#${BASH_REMATCH[1]}))
  else
    fail_closed "$gate_file does not hold a port number, so network setup cannot signal ready"
  fi
  gate_timeout="$(gate_tenths "${BYRE_LAUNCH_GATE_TIMEOUT:-30}" 30)"
  gate_wait 127.0.0.1 "$gate_port" "$gate_timeout" fail_closed 'network setup'
fi

# --- edge gate ---------------------------------------------------------------
# An image whose project injects credentials at the edge bakes this file
# (adr/0084): the loopback address and port where the box's edge listens
# once it holds its routes. The box runs in the edge's network namespace
# (adr/0079), so nothing of the box's runs before the edge is ready; then
# each injected key BYRE_EDGE_SENTINELS names holds the sentinel, never a
# value (the value lives in the edge alone). No edge (an ejected run, a
# restarted box) means no launch.
edge_gate_file="${BYRE_EDGE_GATE_FILE:-/etc/byre/edge-gate}"

edge_fail_closed() {
  refuse_launch 'edge gate' "$1" it \
    'credentials injected at the edge need byre develop, which starts the edge; set BYRE_EDGE_GATE_FILE=/dev/null to run this box without them.'
}

if [ -s "$edge_gate_file" ]; then
  edge_text="$(cat "$edge_gate_file")"
  if [[ "$edge_text" =~ ^[[:space:]]*(127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})[[:space:]]+([0-9]{1,5})[[:space:]]*$ ]] &&
    ((10#${BASH_REMATCH[2]} >= 1 && 10#${BASH_REMATCH[2]} <= 65535)); then
    edge_address=${BASH_REMATCH[1]}
    edge_port=$((10#${BASH_REMATCH[2]}))
  else
    edge_fail_closed "$edge_gate_file does not hold a loopback address and a port, so the edge cannot signal ready"
  fi
  edge_timeout="$(gate_tenths "${BYRE_EDGE_GATE_TIMEOUT:-30}" 30)"
  gate_wait "$edge_address" "$edge_port" "$edge_timeout" edge_fail_closed 'the edge'
  edge_ifs=$IFS
  IFS=,
  set -f
  for edge_key in ${BYRE_EDGE_SENTINELS:-}; do
    [[ "$edge_key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && [[ "$edge_key" != BYRE_* ]] ||
      edge_fail_closed "an injected key has an unusable name"
    export "$edge_key=byre-edge-sentinel"
  done
  set +f
  IFS=$edge_ifs
  unset edge_text edge_address edge_port edge_timeout edge_ifs edge_key
fi

# --- credential gate ---------------------------------------------------------
# An image whose config holds encrypted credential rows bakes this gate file
# (adr/0012). byre develop decrypts the values on the host and streams them
# onto the session tmpfs through an exec; the box waits here until that
# delivery opened the gate (`ready`), then exports each value to the agent.
# No delivery (an ejected run, a restarted box: the tmpfs starts empty) means
# no launch. Values never pass through argv: `read` and `export` are builtins.
credential_gate_file="${BYRE_CREDENTIAL_GATE_FILE:-/etc/byre/credential-gate}"
credential_dir="${BYRE_CREDENTIAL_DIR:-/run/byre/credentials}"

credentials_fail_closed() {
  refuse_launch 'credential gate' "$1" them \
    'credentials are delivered only by `byre develop` (they need its passphrase); set BYRE_CREDENTIAL_GATE_FILE=/dev/null to run this box without them.'
}

if [ -s "$credential_gate_file" ]; then
  credential_timeout="$(gate_tenths "${BYRE_CREDENTIAL_GATE_TIMEOUT:-30}" 30)"
  gate_waited=0
  # At least one look; then every 0.01 s, and every 0.2 s after a second.
  until [ -f "$credential_dir/ready" ] && [ ! -L "$credential_dir/ready" ]; do
    ((gate_waited < credential_timeout * 10)) ||
      credentials_fail_closed "no credentials were delivered to $credential_dir within $(gate_shown "$credential_timeout")s"
    gate_pause 20
  done
  credential_fs=""
  while read -r _ mount_point mount_type _; do
    if [ "$mount_point" = "$credential_dir" ]; then credential_fs="$mount_type"; fi
  done < "${BYRE_MOUNTS_FILE:-/proc/mounts}"
  if [ "$credential_fs" != "tmpfs" ]; then
    credentials_fail_closed "$credential_dir is not a tmpfs"
  fi
  for credential in "$credential_dir"/env/*; do
    [ -f "$credential" ] && [ ! -L "$credential" ] || continue
    credential_key="${credential##*/}"
    [[ "$credential_key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && [[ "$credential_key" != BYRE_* ]] ||
      credentials_fail_closed "a delivered credential has an unusable name"
    credential_value=""
    IFS= read -r -d '' credential_value < "$credential" || true
    export "$credential_key=$credential_value"
  done
  for credential in "$credential_dir"/file/*; do
    [ -f "$credential" ] && [ ! -L "$credential" ] || continue
    credential_key="${credential##*/}"
    [[ "$credential_key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && [[ "$credential_key" != BYRE_* ]] ||
      credentials_fail_closed "a delivered credential has an unusable name"
    export "$credential_key=$credential"
  done
  unset credential credential_key credential_value
fi

# --- git safe.directory ------------------------------------------------------
# /workspace is owned by the host user, not necessarily the baked uid.
if command -v git >/dev/null 2>&1; then
  if ! git config --global --get-all safe.directory 2>/dev/null | grep -qxF -- "$workspace"; then
    git config --global --add safe.directory "$workspace" >/dev/null 2>&1 || true
  fi
fi

# --- worktree populate -------------------------------------------------------
# byre registers a new worktree without checking it out (checkout runs hooks
# and filters); the first launch checks it out here, inside the box.
if [ -f "$workspace/.git" ]; then
  gitdir_line="$(head -n 1 "$workspace/.git" 2>/dev/null || true)"
  if [[ "$gitdir_line" == gitdir:* ]]; then
    gitdir="${gitdir_line#gitdir:}"
    gitdir="${gitdir#"${gitdir%%[![:space:]]*}"}"
    [[ "$gitdir" == /* ]] || gitdir="$workspace/$gitdir"
    if [ -e "$gitdir/byre-needs-checkout" ]; then
      if ! command -v git >/dev/null 2>&1; then
        printf 'byre: this worktree has not been checked out yet, and the image has no git to do it.\n' >&2
        printf 'byre: add git to the box (apt = ["git"]) and launch again; continuing with an empty /workspace.\n' >&2
      elif git -C "$workspace" checkout; then
        rm -f "$gitdir/byre-needs-checkout"
      else
        printf 'byre: checking out this worktree failed; the next launch will try again.\n' >&2
      fi
    elif [ -z "$(find "$workspace" -mindepth 1 -maxdepth 1 ! -name .git -print -quit 2>/dev/null)" ]; then
      printf 'byre: warning: this linked worktree has no files checked out.\n' >&2
    fi
  fi
fi

# --- session context ---------------------------------------------------------
# Per-session additions to the baked agent context. The agent command injects
# them through its own channel; the launcher writes no agent file.
session_parts=()
if [ -s "$gate_file" ] && [ -n "${BYRE_EGRESS+set}" ]; then
  egress_list="$(printf '%s' "$BYRE_EGRESS" | tr ', ' '\n\n' | sed '/^$/d' | paste -sd, - | sed 's/,/, /g')"
  if [ -n "$egress_list" ]; then
    session_parts+=("## This session's egress allowlist

$egress_list

Anything not listed is closed: connections to any other host or port fail. If a task needs another host, tell the user which one; they can open it in byre's config.")
  else
    session_parts+=("## This session's egress allowlist

The allowlist is EMPTY: every outbound connection from this box fails. If a task needs the network, tell the user which host; they can open it in byre's config.")
  fi
fi
self_edit_mount="$HOME/.byre-self"
if [ -f "$context_dir/self-edit.md" ] && [ -r "${BYRE_MOUNTS_FILE:-/proc/mounts}" ]; then
  while read -r _ mount_point _ mount_opts _; do
    if [ "$mount_point" = "$self_edit_mount" ] && [[ ",$mount_opts," == *,rw,* ]]; then
      session_parts+=("$(cat "$context_dir/self-edit.md")")
      break
    fi
  done < "${BYRE_MOUNTS_FILE:-/proc/mounts}"
fi
BYRE_SESSION_CONTEXT=""
for part in "${session_parts[@]+"${session_parts[@]}"}"; do
  BYRE_SESSION_CONTEXT+=$'\n\n'"$part"
done
export BYRE_SESSION_CONTEXT

# --- first-run hooks ---------------------------------------------------------
# Skills' login flows and setup steps. One failing hook must not cost the user
# the session, so failures are reported and the launch continues.
for hook in "${BYRE_FIRSTRUN_DIR:-/etc/byre/firstrun.d}"/*; do
  [ -f "$hook" ] && [ -r "$hook" ] || continue
  hook_status=0
  bash "$hook" || hook_status=$?
  if [ "$hook_status" -ne 0 ]; then
    hook_name="$(basename "$hook")"
    hook_name="${hook_name//\\/\\\\}"
    hook_name="${hook_name//\"/\\\"}"
    printf 'byre: firstrun hook "%s" exited %d (continuing)\n' "$hook_name" "$hook_status" >&2
  fi
done

# --- env.d hooks -------------------------------------------------------------
# Sourced last, right before exec, so the env they export reaches the agent.
# Hooks only export variables (they are sourced, so anything else they do
# happens in the launcher itself); strict mode is lifted around each one.
for envd_hook in "${BYRE_ENVD_DIR:-/etc/byre/env.d}"/*.sh; do
  [ -f "$envd_hook" ] && [ -r "$envd_hook" ] || continue
  set +eu
  # shellcheck disable=SC1090
  . "$envd_hook"
  set -eu
done

# --- exec --------------------------------------------------------------------
if [ "$#" -gt 0 ]; then
  exec "$@"
fi
if [ -x "$context_dir/agent-cmd" ]; then
  exec "$context_dir/agent-cmd"
fi
exec bash -l
