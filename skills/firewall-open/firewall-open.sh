#!/bin/bash
# byre-firewall-open: the netns init hook of byre/firewall-open. The OUTPUT
# policy stays ACCEPT; each closure in BYRE_EGRESS_DENY (`host` closes every
# port, `host:port` that port, tcp and udp) refuses its resolved IPs at once
# (a TCP reset; ICMP administratively prohibited otherwise; adr/0061). A
# closure that does not resolve is fatal: it would otherwise stay silently
# reachable. The gate opens only after a deny probe on loopback proves the
# closures' rules refuse (adr/0061).
set -euo pipefail
set -f

log() { printf 'byre-firewall-open: %s\n' "$*" >&2; }
die() { log "FATAL: $*"; exit 1; }

gate_file=${BYRE_LAUNCH_GATE_FILE:-/etc/byre/launch-gate}
[ -r "$gate_file" ] || die "no launch gate at $gate_file"
port=$(tr -cd '0-9' < "$gate_file")
[ -n "$port" ] || die "launch gate $gate_file holds no port"

use6=0
if ip6tables -w -L OUTPUT >/dev/null 2>&1; then
  use6=1
elif [ -r /proc/net/if_inet6 ] && awk '$6 != "lo" {found=1} END {exit !found}' /proc/net/if_inet6; then
  die "IPv6 is up in this namespace but ip6tables is unusable; refusing to leave closed hosts reachable over IPv6"
fi

# One closure's rules: $1 -A to add, -D to delete; $2 the tool; $3 address; $4 port or "".
closure() {
  local op=$1 t=$2 addr=$3 p=$4 icmp=icmp-admin-prohibited
  [ "$t" = iptables ] || icmp=icmp6-adm-prohibited
  if [ -z "$p" ]; then
    $t -w "$op" OUTPUT -d "$addr" -p tcp -j REJECT --reject-with tcp-reset
    $t -w "$op" OUTPUT -d "$addr" -j REJECT --reject-with "$icmp"
  else
    $t -w "$op" OUTPUT -d "$addr" -p tcp --dport "$p" -j REJECT --reject-with tcp-reset
    $t -w "$op" OUTPUT -d "$addr" -p udp --dport "$p" -j REJECT --reject-with "$icmp"
  fi
}

# --- the deny probe (adr/0061) -----------------------------------------------
# A closure of a loopback port the helper itself listens on: connected before
# the closure, refused at once after it, or nothing opens. Loopback never
# leaves the namespace, so the probe sends nothing off the machine.
connect() { # ip port: prints connected, refused, silent or what failed
  local out rc=0
  out=$(timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>&1) || rc=$?
  case $rc in
    0) echo connected ;;
    124) echo silent ;;
    *) case $out in *"Connection refused"*) echo refused ;; *) echo "failed (${out##*: })" ;; esac ;;
  esac
}
probe_port=$((40000 + RANDOM % 20000))
trap 'kill "$listener" 2>/dev/null || true' EXIT
nc -dlk 127.0.0.1 "$probe_port" </dev/null >/dev/null 2>&1 & listener=$!
ready=0
for _ in $(seq 20); do
  if [ "$(connect 127.0.0.1 "$probe_port")" = connected ]; then ready=1; break; fi
  sleep 0.05
done
[ "$ready" = 1 ] ||
  die "the deny probe's own listener on 127.0.0.1:$probe_port never answered; cannot prove the closures"
closure -A iptables 127.0.0.1 "$probe_port"
got=$(connect 127.0.0.1 "$probe_port")
case $got in
  refused) ;;
  connected) die "deny probe to 127.0.0.1:$probe_port got through its closure" ;;
  silent) die "deny probe to 127.0.0.1:$probe_port was not refused within 2 s; closures do not refuse" ;;
  *) die "deny probe to 127.0.0.1:$probe_port $got; cannot prove the closures" ;;
esac
closure -D iptables 127.0.0.1 "$probe_port"
kill "$listener" 2>/dev/null || true

count=0
for entry in ${BYRE_EGRESS_DENY//,/ }; do
  [ -n "$entry" ] || continue
  if [[ $entry == \[*\]* ]]; then
    addrs=${entry%%]*}; addrs=${addrs#[}; rest=${entry#*]}; p=${rest#:}
  else
    host=${entry%:*}; p=${entry##*:}
    [ "$host" != "$entry" ] || p=""
    addrs=$(getent ahosts "$host" | awk '{print $1}' | sort -u) || true
    [ -n "$addrs" ] || die "closed host $host does not resolve; refusing to launch with it reachable"
  fi
  for addr in $addrs; do
    t=iptables
    if [[ $addr == *:* ]]; then
      [ "$use6" = 1 ] || continue
      t=ip6tables
    fi
    closure -A "$t" "$addr" "$p"
    count=$((count + 1))
  done
done
log "egress open-denylist applied: $count closures, each refused at once; deny probe refused"

timeout 60 nc -l 127.0.0.1 "$port" </dev/null >/dev/null || die "the box never connected to the launch gate"
# byre waits for this line (adr/0063).
printf 'byre-firewall: gate opened\n' >&2
