#!/bin/bash
# byre-firewall: the netns init hook of byre/firewall. byre runs it on the
# host's behalf in a helper container that shares ONLY the box's network
# namespace (root, NET_ADMIN). It installs a deny-by-default OUTPUT policy with
# per-IP, port-scoped ACCEPT rules for the allowlist in BYRE_EGRESS, and a
# deny-by-default INPUT policy that lets in new connections only on the
# published container ports in BYRE_INBOUND (so no neighbour on the bridge can
# connect in and relay data out over the reply path), verifies the wall with a
# deny probe, then opens the box's launch gate by listening once on loopback.
# Any failure exits non-zero before the gate opens, so the box never starts
# its agent without the wall (fail closed).
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

rules() { # $1: iptables wrapper, $2: family (4|6)
  local t=$1 fam=$2 ns entry
  $t -F OUTPUT
  $t -A OUTPUT -o lo -j ACCEPT
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
  $t -P OUTPUT DROP
  # Inbound: loopback (the launch gate), replies to what the box itself
  # opened, and new connections to a published port; nothing else.
  $t -F INPUT
  $t -A INPUT -i lo -j ACCEPT
  $t -A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
  for p in "${inbound[@]+"${inbound[@]}"}"; do $t -A INPUT -p tcp --dport "$p" -j ACCEPT; done
  $t -P INPUT DROP
}

rules ipt 4
[ "$use6" = 1 ] && rules ip6t 6

# --- verify: a probe that gets through is fatal ----------------------------
allowed() { # ip port
  local e
  for e in "${v4[@]+"${v4[@]}"}" "${v6[@]+"${v6[@]}"}"; do [ "$e" = "$1 $2" ] && return 0; done
  return 1
}
probe_targets=${BYRE_DENY_PROBE:-1.1.1.1:443 8.8.8.8:443 9.9.9.9:443}
for target in $probe_targets; do
  ip=${target%:*}; p=${target##*:}
  allowed "$ip" "$p" && continue
  if timeout 3 bash -c "exec 3<>/dev/tcp/$ip/$p" 2>/dev/null; then
    die "deny probe to $ip:$p got through the wall"
  fi
  log "deny probe to $ip:$p blocked"
  break
done
if [ "$use6" = 1 ]; then
  if awk '$6 != "lo" && $4 == "00" {found=1} END {exit !found}' /proc/net/if_inet6 2>/dev/null; then
    for target in ${BYRE_DENY_PROBE6:-2606:4700:4700::1111 2001:4860:4860::8888 2620:fe::fe}; do
      allowed "$target" 443 && continue
      rc=0; timeout 3 bash -c "exec 3<>/dev/tcp/$target/443" 2>/dev/null || rc=$?
      [ "$rc" = 0 ] && die "IPv6 deny probe to [$target]:443 got through the wall"
      if [ "$rc" = 124 ]; then log "IPv6 deny probe blocked"; else log "IPv6 rules applied but NOT probe-verified"; fi
      break
    done
  else
    log "IPv6 rules applied but NOT probe-verified (no global IPv6 address to probe from)"
  fi
fi
if [ "${#v4[@]}" -gt 0 ]; then
  set -- ${v4[0]}
  timeout 5 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null || log "warning: allow probe to $1:$2 did not connect"
fi
log "egress deny-by-default applied: ${#v4[@]} IPv4 / ${#v6[@]} IPv6 allow rules; inbound only on ${#inbound[@]} published port(s)"

# --- open the gate: one listen on the shared loopback ----------------------
timeout 60 nc -l 127.0.0.1 "$port" </dev/null >/dev/null || die "the box never connected to the launch gate"
