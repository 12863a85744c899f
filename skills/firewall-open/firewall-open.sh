#!/bin/bash
# byre-firewall-open: the netns init hook of byre/firewall-open. The OUTPUT
# policy stays ACCEPT; each closure in BYRE_EGRESS_DENY (`host` drops every
# port, `host:port` that port, tcp and udp) drops its resolved IPs. A closure
# that does not resolve is fatal: it would otherwise stay silently reachable.
# The gate opens only after the drops verify.
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

first4=""
first6=""
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
      [ -n "$first6" ] || first6="$addr ${p:-443}"
    else
      [ -n "$first4" ] || first4="$addr ${p:-443}"
    fi
    if [ -z "$p" ]; then
      $t -w -A OUTPUT -d "$addr" -j DROP
    else
      $t -w -A OUTPUT -d "$addr" -p tcp --dport "$p" -j DROP
      $t -w -A OUTPUT -d "$addr" -p udp --dport "$p" -j DROP
    fi
    count=$((count + 1))
  done
done

for target in "$first4" "$first6"; do
  [ -n "$target" ] || continue
  set -- $target
  if timeout 3 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; then die "deny probe to $1:$2 got through"; fi
done
log "egress open-denylist applied: $count drop rules"

timeout 60 nc -l 127.0.0.1 "$port" </dev/null >/dev/null || die "the box never connected to the launch gate"
