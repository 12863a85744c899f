#!/bin/bash
# byre-firewall: the netns init hook of byre/firewall. byre runs it on the
# host's behalf in a helper container that shares ONLY the box's network
# namespace (root, NET_ADMIN). It installs a deny-by-default OUTPUT chain with
# per-IP, port-scoped ACCEPT rules for the allowlist in BYRE_EGRESS, and a
# deny-by-default INPUT chain that lets in new connections only on the
# published container ports in BYRE_INBOUND (so no neighbour on the bridge can
# connect in and relay data out over the reply path). Both chains end by
# refusing what they deny (a TCP reset; ICMP administratively prohibited
# otherwise), so a denied connect fails at once instead of hanging (adr/0061).
# It proves the wall with a deny probe on loopback (adr/0061), then opens the
# box's launch gate by listening once on loopback. Any failure exits non-zero
# before the gate opens, so the box never starts its agent without the wall
# (fail closed).
set -euo pipefail
set -f

log() { printf 'byre-firewall: %s\n' "$*" >&2; }
die() { log "FATAL: $*"; exit 1; }

gate_file=${BYRE_LAUNCH_GATE_FILE:-/etc/byre/launch-gate}
[ -r "$gate_file" ] || die "no launch gate at $gate_file"
port=$(tr -cd '0-9' < "$gate_file")
[ -n "$port" ] || die "launch gate $gate_file holds no port"

ipt() { iptables -w "$@"; }
ip6t() { ip6tables -w "$@"; }

# --- resolve the allowlist -------------------------------------------------
v4=()
v6=()
requested=0
for entry in ${BYRE_EGRESS//,/ }; do
  [ -n "$entry" ] || continue
  requested=$((requested + 1))
  if [[ $entry == \[*\]:* ]]; then
    addr=${entry%]:*}; addr=${addr#[}; p=${entry##*]:}
    v6+=("$addr $p")
    continue
  fi
  host=${entry%:*}; p=${entry##*:}
  [ "$host" != "$entry" ] || p=443
  found=0
  while read -r addr _; do
    [ -n "$addr" ] || continue
    found=1
    if [[ $addr == *:* ]]; then v6+=("$addr $p"); else v4+=("$addr $p"); fi
  done < <(getent ahosts "$host" | awk '{print $1}' | sort -u)
  [ "$found" = 1 ] || log "warning: $host does not resolve; it stays blocked"
done
if [ "$requested" -gt 0 ] && [ "${#v4[@]}" -eq 0 ] && [ "${#v6[@]}" -eq 0 ]; then
  die "none of the $requested allowlisted hosts resolved (is DNS working?)"
fi

# --- the published ports: the only doors in ---------------------------------
inbound=()
for p in ${BYRE_INBOUND:-}; do
  [[ $p =~ ^[1-9][0-9]{0,4}$ ]] && ((p <= 65535)) || die "BYRE_INBOUND holds \"$p\", not a port"
  inbound+=("$p")
done

# --- IPv6: apply where the namespace has it, or fail closed ----------------
use6=0
if ip6tables -w -L OUTPUT >/dev/null 2>&1; then
  use6=1
elif [ -r /proc/net/if_inet6 ] && awk '$6 != "lo" {found=1} END {exit !found}' /proc/net/if_inet6; then
  die "IPv6 is up in this namespace but ip6tables is unusable; refusing to leave IPv6 open"
fi

nameservers() { awk '$1 == "nameserver" {print $2}' /etc/resolv.conf | grep -v -E '^(127\.|::1$)' || true; }

# The deny probe's port: one loopback tcp port the helper listens on while
# the wall goes up, left out of the loopback ACCEPT until the probe has run.
allowed() { # ip port
  local e
  for e in "${v4[@]+"${v4[@]}"}" "${v6[@]+"${v6[@]}"}"; do [ "$e" = "$1 $2" ] && return 0; done
  return 1
}
probe_port=$((40000 + RANDOM % 20000))
while allowed 127.0.0.1 "$probe_port" || allowed ::1 "$probe_port"; do
  probe_port=$((40000 + RANDOM % 20000))
done

# The end of a chain: refuse what no rule accepted, so a denied connect fails
# at once (a TCP reset; ICMP administratively prohibited otherwise). A packet
# conntrack calls INVALID is no new connection (a late segment of one the box
# made): dropped, never answered with a reset that would tear that one down.
refuse() { # $1: iptables wrapper, $2: family (4|6), $3: chain
  local t=$1 fam=$2 chain=$3 icmp=icmp-admin-prohibited
  [ "$fam" = 4 ] || icmp=icmp6-adm-prohibited
  $t -A "$chain" -m conntrack --ctstate INVALID -j DROP
  $t -A "$chain" -p tcp -j REJECT --reject-with tcp-reset
  $t -A "$chain" -j REJECT --reject-with "$icmp"
  $t -P "$chain" DROP
}

rules() { # $1: iptables wrapper, $2: family (4|6)
  local t=$1 fam=$2 ns entry
  $t -F OUTPUT
  # Loopback, less the probe's port until the probe has run (open_loopback).
  $t -A OUTPUT -o lo ! -p tcp -j ACCEPT
  $t -A OUTPUT -o lo -p tcp ! --dport "$probe_port" -j ACCEPT
  $t -A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
  for ns in $(nameservers); do
    if { [ "$fam" = 6 ] && [[ $ns == *:* ]]; } || { [ "$fam" = 4 ] && [[ $ns != *:* ]]; }; then
      $t -A OUTPUT -p udp --dport 53 -d "$ns" -j ACCEPT
      $t -A OUTPUT -p tcp --dport 53 -d "$ns" -j ACCEPT
    fi
  done
  if [ "$fam" = 4 ]; then
    for entry in "${v4[@]+"${v4[@]}"}"; do set -- $entry; $t -A OUTPUT -d "$1" -p tcp --dport "$2" -j ACCEPT; done
  else
    for entry in "${v6[@]+"${v6[@]}"}"; do set -- $entry; $t -A OUTPUT -d "$1" -p tcp --dport "$2" -j ACCEPT; done
  fi
  refuse "$t" "$fam" OUTPUT
  # Inbound: loopback (the launch gate), replies to what the box itself
  # opened, and new connections to a published port; nothing else.
  $t -F INPUT
  $t -A INPUT -i lo -j ACCEPT
  $t -A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
  for p in "${inbound[@]+"${inbound[@]}"}"; do $t -A INPUT -p tcp --dport "$p" -j ACCEPT; done
  refuse "$t" "$fam" INPUT
}

# Once the probe has run: the whole of loopback is the box's again.
open_loopback() { # $1: iptables wrapper
  local t=$1
  $t -I OUTPUT 1 -o lo -j ACCEPT
  $t -D OUTPUT -o lo ! -p tcp -j ACCEPT
  $t -D OUTPUT -o lo -p tcp ! --dport "$probe_port" -j ACCEPT
}

# --- the deny probe (adr/0061) -----------------------------------------------
# A listener of the helper's own on loopback at probe_port. Before the rules,
# a connect to it must succeed: something would answer. After them, the same
# connect must be refused, at once, by the chain's own end: a connect that
# succeeds, or one not answered within 2 s, stops everything. Loopback never
# leaves the namespace, so the probe sends nothing off the machine, wall or no
# wall; and it never waits on a timeout unless the wall is broken.
connect() { # ip port: prints connected, refused, silent or what failed
  local out rc=0
  out=$(timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>&1) || rc=$?
  case $rc in
    0) echo connected ;;
    124) echo silent ;;
    *) case $out in *"Connection refused"*) echo refused ;; *) echo "failed (${out##*: })" ;; esac ;;
  esac
}

targets=(127.0.0.1)
listeners=()
trap 'kill "${listeners[@]}" 2>/dev/null || true' EXIT
nc -dlk 127.0.0.1 "$probe_port" </dev/null >/dev/null 2>&1 & listeners+=($!)
if [ "$use6" = 1 ]; then
  if grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null; then
    targets+=(::1)
    nc -6 -dlk ::1 "$probe_port" </dev/null >/dev/null 2>&1 & listeners+=($!)
  else
    log "IPv6 rules applied; no ::1 in this namespace, so IPv6 is off here and not probed"
  fi
fi
for ip in "${targets[@]}"; do
  for _ in $(seq 20); do
    [ "$(connect "$ip" "$probe_port")" = connected ] && continue 2
    sleep 0.05
  done
  die "the deny probe's own listener on $ip:$probe_port never answered; cannot prove the wall"
done

rules ipt 4
[ "$use6" = 1 ] && rules ip6t 6

for ip in "${targets[@]}"; do
  got=$(connect "$ip" "$probe_port")
  case $got in
    refused) log "deny probe to $ip:$probe_port refused by the wall" ;;
    connected) die "deny probe to $ip:$probe_port got through the wall" ;;
    silent) die "deny probe to $ip:$probe_port was not refused within 2 s; the wall does not refuse" ;;
    *) die "deny probe to $ip:$probe_port $got; cannot prove the wall" ;;
  esac
done
kill "${listeners[@]}" 2>/dev/null || true
open_loopback ipt
[ "$use6" = 1 ] && open_loopback ip6t

if [ "${#v4[@]}" -gt 0 ]; then
  set -- ${v4[0]}
  timeout 5 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null || log "warning: allow probe to $1:$2 did not connect"
fi
log "egress deny-by-default applied: ${#v4[@]} IPv4 / ${#v6[@]} IPv6 allow rules; inbound only on ${#inbound[@]} published port(s)"

# --- open the gate: one listen on the shared loopback ----------------------
timeout 60 nc -l 127.0.0.1 "$port" </dev/null >/dev/null || die "the box never connected to the launch gate"
