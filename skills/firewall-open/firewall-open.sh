#!/bin/bash
# byre-firewall: the netns init hook of byre/firewall, and (the same file) of
# byre/firewall-open. (Over 500 lines: a package ships one hook file, run alone.) byre runs it on the host's behalf in a helper container
# that shares ONLY the box's network namespace (root, NET_ADMIN), and the
# helper stays up for the session: it runs the box's resolver (adr/0063).
# BYRE_WALL_POSTURE says which wall: deny-by-default (the default) or
# open-denylist.
#
# The wall is one nftables table (`inet byre`, IPv4 and IPv6 together).
# deny-by-default (BYRE_EGRESS, the allowlist):
# - OUTPUT admits loopback, replies, the box's DNS (redirected, whatever
#   address it was sent to, to the resolver on loopback), direct address
#   entries, and names' addresses only once the resolver has handed them out
#   (one allow set per family and port); everything else is refused at once
#   (a TCP reset; ICMP administratively prohibited otherwise; adr/0061) and
#   counted in a set the helper reports from.
# - INPUT lets in new connections only on the published container ports in
#   BYRE_INBOUND (adr/0049), then refuses.
# - The resolver is dnsmasq, run as its own user: only that user may send DNS
#   out, and only names on the allowlist are forwarded (to the engine's
#   resolver, or BYRE_WALL_UPSTREAM); every address it answers with joins the
#   allow set of that entry's ports for the rest of the session. Every other
#   name is refused. Nothing is resolved at launch (adr/0063).
# open-denylist (BYRE_EGRESS_DENY, the closures, `host` for every port):
# - OUTPUT stays open but for the closures: closed addresses, and the
#   addresses the resolver hands out for a closed name (or a name under it),
#   which join the deny set of that closure's ports for the rest of the
#   session, so a fresh address of a closed host is closed too. Those are
#   refused at once and counted. INPUT is not touched.
# - Every name is forwarded; the box's DNS is redirected to the resolver all
#   the same, so an answer for a closed name always passes the deny sets.
# The edge (adr/0070; deny-by-default only): BYRE_EDGE_HOSTS names the
# injected hosts (`name:port`) and BYRE_EDGE_UID the edge helper's user. The
# resolver forwards those names too, and their answers join edge sets that
# only that user's connections may use: the box reaches those names at the
# edge (its /etc/hosts), and its own direct connect to their addresses is
# refused unless its allowlist admits them. A closure closes them to the
# edge as to the box. Under open-denylist the edge is as open as the box.
# Both prove the wall with a deny probe on loopback (adr/0061), then open the
# box's launch gate by listening once on loopback. Any failure exits non-zero
# before the gate opens, so the box never starts its agent without the wall
# (fail closed). After the gate it prints the wall's event lines on stdout
# (`byre-wall 1 ...`, adr/0063) until the box's network goes.
#
# skills/firewall-open/firewall-open.sh is this file, byte for byte (a
# package ships only its own files; src/skills/firewall-rules.test.ts pins it).
set -euo pipefail
set -f
export LC_ALL=C

# Stopped by its engine (the session ended: `rm -f`), the helper ends at once.
# As PID 1, bash ignores a TERM it has no trap for, and podman's `rm -f` then
# waits out the stop timeout before it kills (docker kills at once). A trapped
# signal interrupts a `wait`, so every long wait below is one.
trap 'exit 143' TERM

log() { printf 'byre-firewall: %s\n' "$*" >&2; }
die() { log "FATAL: $*"; exit 1; }

gate_file=${BYRE_LAUNCH_GATE_FILE:-/etc/byre/launch-gate}
[ -r "$gate_file" ] || die "no launch gate at $gate_file"
port=$(tr -cd '0-9' < "$gate_file")
[ -n "$port" ] || die "launch gate $gate_file holds no port"
run_dir=${BYRE_WALL_DIR:-/run/byre-wall}

valid_port() { [[ $1 =~ ^[1-9][0-9]{0,4}$ ]] && (($1 <= 65535)); }

case ${BYRE_WALL_POSTURE:-deny-by-default} in
  deny-by-default) open=0 ;;
  open-denylist) open=1 ;;
  *) die "BYRE_WALL_POSTURE holds \"$BYRE_WALL_POSTURE\", not a posture this hook builds" ;;
esac

# --- the entries: names (resolved later, by the resolver) and addresses -------
# Under deny-by-default the allowlist (an entry without a port is port 443),
# and the closures of names, which carve names out of it; under open-denylist
# the closures (without a port: every port, "all").
names=()       # "name port"
static4=()     # "address port"
static6=()     # "address port"
closed=()      # deny-by-default: "name port|all", names only (adr/0063)

# A closure's port may be "all" (the port of a closure without one); an
# allowlist entry's is a port.
port_ok() { valid_port "$1" || { [ "$2" = all ] && [ "$1" = all ]; }; } # port, bare

read_entries() { # variable, port of an entry without one, names, addresses v4, v6
  local src=$1 bare=$2 entry addr rest host p
  local -n into_names=$3 into4=$4 into6=$5
  local list=${!src:-}
  for entry in ${list//,/ }; do
    [ -n "$entry" ] || continue
    if [[ $entry == \[*\]* ]]; then
      addr=${entry%%]*}; addr=${addr#[}; rest=${entry#*]}
      case $rest in '') p=$bare ;; :*) p=${rest#:} ;; *) die "$src holds \"$entry\", not an entry" ;; esac
      [[ $addr =~ ^[0-9a-fA-F:.]+$ ]] || die "$src holds \"$entry\", not an entry"
      port_ok "$p" "$bare" || die "$src holds \"$entry\", not an entry"
      into6+=("$addr $p")
      continue
    fi
    host=${entry%:*}; p=${entry##*:}
    [ "$host" != "$entry" ] || p=$bare
    port_ok "$p" "$bare" || die "$src holds \"$entry\", not an entry"
    host=${host,,}
    if [[ $host =~ ^[0-9]+(\.[0-9]+){3}$ ]]; then
      into4+=("$host $p")
    elif [[ $host =~ ^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$ && $host != *..* ]]; then
      into_names+=("${host%.} $p")
    else
      die "$src holds \"$entry\", not an entry"
    fi
  done
}

if [ "$open" = 1 ]; then
  read_entries BYRE_EGRESS_DENY all names static4 static6
else
  read_entries BYRE_EGRESS 443 names static4 static6
  # A closed name closes it and the names under it out of the allowlist's
  # names. A closed address is refused ahead of every accept, so an allowed
  # name's answer that hands it out stays closed.
  closed_static4=() closed_static6=()
  read_entries BYRE_EGRESS_DENY all closed closed_static4 closed_static6
fi

# --- the edge's hosts: names only, reached by the edge's user alone -------------
edge=()        # "name port"
edge_uid=''
if [ "$open" = 0 ] && [ -n "${BYRE_EDGE_HOSTS:-}" ]; then
  edge_uid=${BYRE_EDGE_UID:-}
  [[ $edge_uid =~ ^[1-9][0-9]{0,9}$ ]] || die "BYRE_EDGE_UID holds \"$edge_uid\", not a uid"
  [ "$edge_uid" != "${BYRE_BOX_UID:-}" ] ||
    die "the box runs as uid $edge_uid, the edge's user; the wall cannot tell them apart"
  edge4=() edge6=()
  read_entries BYRE_EDGE_HOSTS 443 edge edge4 edge6
  [ "$((${#edge4[@]} + ${#edge6[@]}))" = 0 ] || die "BYRE_EDGE_HOSTS holds an address; the edge serves names only"
fi

# --- the published ports: the only doors in ---------------------------------
inbound=()
for p in ${BYRE_INBOUND:-}; do
  valid_port "$p" || die "BYRE_INBOUND holds \"$p\", not a port"
  inbound+=("$p")
done

# --- the resolver's user and upstream ---------------------------------------
# Only this user may send DNS out of the namespace. The box runs without
# capabilities and with no-new-privileges (adr/0050), so it cannot become
# this user; it must not already be it.
dns_user=dnsmasq
dns_uid=$(id -u "$dns_user" 2>/dev/null) || { dns_user=nobody; dns_uid=$(id -u nobody 2>/dev/null); } ||
  die "neither a dnsmasq nor a nobody user in the image; rebuild it (\`byre rebuild\`)"
[ "$dns_uid" != 0 ] || die "the $dns_user user is root; the resolver needs a user of its own"
[ "$dns_uid" != "${BYRE_BOX_UID:-}" ] ||
  die "the box runs as uid $dns_uid, the resolver's user; the wall cannot tell them apart"
[ "$dns_uid" != "$edge_uid" ] ||
  die "the edge runs as uid $edge_uid, the resolver's user; the wall cannot tell them apart"

upstreams=()
if [ -n "${BYRE_WALL_UPSTREAM:-}" ]; then
  for u in ${BYRE_WALL_UPSTREAM//,/ }; do
    [[ $u =~ ^[0-9a-fA-F:.]+(#[0-9]{1,5})?$ ]] || die "BYRE_WALL_UPSTREAM holds \"$u\", not ip[#port]"
    upstreams+=("$u")
  done
else
  # The engine's resolver for this namespace; never the resolver itself.
  while read -r kw ns _; do
    [ "$kw" = nameserver ] || continue
    [[ $ns =~ ^[0-9a-fA-F:.]+$ ]] || continue
    [ "$ns" != 127.0.0.1 ] && [ "$ns" != ::1 ] || continue
    upstreams+=("$ns")
  done < /etc/resolv.conf
fi
if [ "${#upstreams[@]}" -eq 0 ] && [ "$open" = 1 ]; then
  log "warning: no upstream resolver; no name will resolve in the box"
elif [ "${#upstreams[@]}" -eq 0 ] && [ "${#names[@]}" -gt 0 ]; then
  log "warning: no upstream resolver; allowlisted names will not resolve"
fi
# Whose sets a name's answers fill: the allowlist's, or the closures'.
if [ "$open" = 1 ]; then kind=deny; else kind=allow; fi

# --- the pure parts: the resolver's config and the ruleset --------------------
# The ports of every entry covering a name: its own, and those of every entry
# it lies under (an entry covers its name and every name below it).
ports_for() { # name
  local e n p out=()
  for e in "${names[@]+"${names[@]}"}"; do
    n=${e% *}; p=${e#* }
    [[ $1 == "$n" || $1 == *."$n" ]] && out+=("$p")
  done
  printf '%s\n' "${out[@]+"${out[@]}"}" | sort -un
}

# The ports of the `entries` (names of an array of "name port") that cover a
# name, less those of the closures covering it (deny-by-default; a closure
# covers its name and every name below it, as an entry does). None when a
# closure without a port covers it.
open_ports_of() { # name, entries
  local e n p
  local -A shut=()
  for e in "${closed[@]+"${closed[@]}"}"; do
    n=${e% *}; p=${e#* }
    [[ $1 == "$n" || $1 == *."$n" ]] || continue
    [ "$p" != all ] || return 0
    shut[$p]=1
  done
  for p in $($2 "$1"); do [ -n "${shut[$p]:-}" ] || echo "$p"; done
}

# The ports a name's own answers open to the box.
ports_open() { open_ports_of "$1" ports_for; } # name

# The ports of the edge's entries covering a name.
edge_ports_for() { # name
  local e n out=()
  for e in "${edge[@]+"${edge[@]}"}"; do
    n=${e% *}
    if [[ $1 == "$n" || $1 == *."$n" ]]; then out+=("${e#* }"); fi
  done
  printf '%s\n' "${out[@]+"${out[@]}"}" | sort -un
}

# The ports a name's answers open to the edge's user alone.
edge_ports_open() { open_ports_of "$1" edge_ports_for; } # name

# The names the resolver is told about: the entries', and the closed names
# below them (deny-by-default), so the most specific match is the closure's.
distinct_names() {
  local e
  {
    for e in "${names[@]+"${names[@]}"}" "${edge[@]+"${edge[@]}"}"; do echo "${e% *}"; done
    for e in "${closed[@]+"${closed[@]}"}"; do
      [ -z "$(ports_for "${e% *}")" ] || echo "${e% *}"
    done
  } | sort -u
}

dnsmasq_conf() {
  local n p u sets ports
  cat <<EOF
keep-in-foreground
log-facility=-
log-queries
no-resolv
no-hosts
no-poll
interface=lo
bind-interfaces
user=$dns_user
pid-file=
EOF
  # open-denylist: every name goes upstream. deny-by-default: allowlisted ones only.
  if [ "$open" = 1 ]; then
    for u in "${upstreams[@]+"${upstreams[@]}"}"; do echo "server=$u"; done
  fi
  for n in $(distinct_names); do
    ports=$(ports_open "$n")
    edge_ports=$(edge_ports_open "$n")
    if [ "$open" = 0 ] && [ -z "$ports$edge_ports" ]; then
      # Closed on every port it had: answered locally, never forwarded (refused).
      echo "server=/$n/"
      continue
    fi
    if [ "$open" = 0 ]; then
      for u in "${upstreams[@]+"${upstreams[@]}"}"; do echo "server=/$n/$u"; done
    fi
    # One line per name: the most specific name's line is the one dnsmasq uses.
    sets=()
    for p in $ports; do sets+=("4#inet#byre#${kind}4_$p" "6#inet#byre#${kind}6_$p"); done
    for p in $edge_ports; do sets+=("4#inet#byre#edge4_$p" "6#inet#byre#edge6_$p"); done
    (IFS=,; echo "nftset=/$n/${sets[*]}")
  done
}

name_ports() {
  local e
  for e in "${names[@]+"${names[@]}"}"; do echo "${e#* }"; done | sort -un
}

edge_ports() {
  local e
  for e in "${edge[@]+"${edge[@]}"}"; do echo "${e#* }"; done | sort -un
}

ruleset() { # probe port
  if [ "$open" = 1 ]; then ruleset_open "$1"; else ruleset_deny "$1"; fi
}

# The table's head: the probe port, the given sets, the refused counters, and
# the DNS redirect to the resolver (every port-53 packet but its own user's).
ruleset_head() { # probe port, set kind
  local p
  cat <<EOF
table inet byre
delete table inet byre
table inet byre {
	set probe { type inet_service; elements = { $1 } }
EOF
  for p in $(name_ports); do
    printf '\tset %s4_%s { type ipv4_addr; }\n\tset %s6_%s { type ipv6_addr; }\n' "$2" "$p" "$2" "$p"
  done
  for p in $(edge_ports); do
    printf '\tset edge4_%s { type ipv4_addr; }\n\tset edge6_%s { type ipv6_addr; }\n' "$p" "$p"
  done
  cat <<EOF
	set refused4 { type ipv4_addr . inet_proto . inet_service; size 4096; flags dynamic; counter; }
	set refused6 { type ipv6_addr . inet_proto . inet_service; size 4096; flags dynamic; counter; }
	chain dns {
		type nat hook output priority -101; policy accept;
		meta skuid $dns_uid return
		meta l4proto { tcp, udp } th dport 53 redirect to :53
	}
EOF
}

# The one refusal: counted for the event lines, then refused at once.
refuse_chain() {
  cat <<EOF
	chain refuse {
		oifname != "lo" meta l4proto { tcp, udp } update @refused4 { ip daddr . meta l4proto . th dport }
		oifname != "lo" meta l4proto { tcp, udp } update @refused6 { ip6 daddr . meta l4proto . th dport }
		meta l4proto tcp reject with tcp reset
		reject with icmpx admin-prohibited
	}
EOF
}

# A rule sending each closed address ("address port|all") to the refusal.
address_closures() { # "address port" entries
  local e a p fam
  for e in "$@"; do
    read -r a p <<< "$e"
    if [[ $a == *:* ]]; then fam=ip6; else fam=ip; fi
    if [ "$p" = all ]; then
      printf '\t\t%s daddr %s goto refuse\n' "$fam" "$a"
    else
      printf '\t\t%s daddr %s meta l4proto { tcp, udp } th dport %s goto refuse\n' "$fam" "$a" "$p"
    fi
  done
}

# open-denylist: OUTPUT accepts but for the closures, each sent to one refusal;
# loopback only on the probe port, while it is in its set.
ruleset_open() { # probe port
  local p
  ruleset_head "$1" deny
  refuse_chain
  cat <<EOF
	chain output {
		type filter hook output priority 0; policy accept;
		oifname "lo" tcp dport @probe goto refuse
		oifname "lo" accept
		ct state established,related accept
EOF
  address_closures "${static4[@]+"${static4[@]}"}" "${static6[@]+"${static6[@]}"}"
  for p in $(name_ports); do
    if [ "$p" = all ]; then
      printf '\t\tip daddr @deny4_all goto refuse\n\t\tip6 daddr @deny6_all goto refuse\n'
    else
      printf '\t\tip daddr @deny4_%s meta l4proto { tcp, udp } th dport %s goto refuse\n' "$p" "$p"
      printf '\t\tip6 daddr @deny6_%s meta l4proto { tcp, udp } th dport %s goto refuse\n' "$p" "$p"
    fi
  done
  printf '\t}\n}\n'
}

ruleset_deny() { # probe port
  local probe=$1 p e u a fam
  local closures=("${closed_static4[@]+"${closed_static4[@]}"}" "${closed_static6[@]+"${closed_static6[@]}"}")
  ruleset_head "$probe" allow
  [ "${#closures[@]}" -eq 0 ] || refuse_chain
  cat <<EOF
	chain output {
		type filter hook output priority 0; policy drop;
		oifname "lo" tcp dport != @probe accept
		oifname "lo" meta l4proto != tcp accept
		ct state established,related accept
EOF
  for u in "${upstreams[@]+"${upstreams[@]}"}"; do
    a=${u%#*}; p=53
    [ "$a" = "$u" ] || p=${u#*#}
    if [[ $a == *:* ]]; then fam=ip6; else fam=ip; fi
    printf '\t\tmeta skuid %s %s daddr %s meta l4proto { tcp, udp } th dport %s accept\n' "$dns_uid" "$fam" "$a" "$p"
  done
  cat <<EOF
		ip daddr 127.0.0.1 meta l4proto { tcp, udp } th dport 53 accept
		ip6 daddr ::1 meta l4proto { tcp, udp } th dport 53 accept
EOF
  address_closures "${closures[@]+"${closures[@]}"}"
  for e in "${static4[@]+"${static4[@]}"}"; do printf '\t\tip daddr %s tcp dport %s accept\n' ${e}; done
  for e in "${static6[@]+"${static6[@]}"}"; do printf '\t\tip6 daddr %s tcp dport %s accept\n' ${e}; done
  for p in $(name_ports); do
    printf '\t\tip daddr @allow4_%s tcp dport %s accept\n\t\tip6 daddr @allow6_%s tcp dport %s accept\n' "$p" "$p" "$p" "$p"
  done
  for p in $(edge_ports); do
    printf '\t\tmeta skuid %s ip daddr @edge4_%s tcp dport %s accept\n' "$edge_uid" "$p" "$p"
    printf '\t\tmeta skuid %s ip6 daddr @edge6_%s tcp dport %s accept\n' "$edge_uid" "$p" "$p"
  done
  cat <<EOF
		ct state invalid drop
		oifname != "lo" meta l4proto { tcp, udp } update @refused4 { ip daddr . meta l4proto . th dport }
		oifname != "lo" meta l4proto { tcp, udp } update @refused6 { ip6 daddr . meta l4proto . th dport }
		meta l4proto tcp reject with tcp reset
		reject with icmpx admin-prohibited
	}
	chain input {
		type filter hook input priority 0; policy drop;
		iifname "lo" accept
		ct state established,related accept
EOF
  if [ "${#inbound[@]}" -gt 0 ]; then
    (IFS=,; printf '\t\ttcp dport { %s } accept\n' "${inbound[*]}")
  fi
  cat <<EOF
		ct state invalid drop
		meta l4proto tcp reject with tcp reset
		reject with icmpx admin-prohibited
	}
}
EOF
}

# The deny probe's port: one loopback tcp port the helper listens on while
# the wall goes up, left out of the loopback accept until the probe has run.
probe_port=$((40000 + RANDOM % 20000))
for e in "${static4[@]+"${static4[@]}"}" "${static6[@]+"${static6[@]}"}"; do
  [ "${e#* }" != "$probe_port" ] || probe_port=$((probe_port == 59999 ? 40000 : probe_port + 1))
done

mkdir -p "$run_dir"
dnsmasq_conf > "$run_dir/dnsmasq.conf"
ruleset "$probe_port" > "$run_dir/wall.nft"

# --- events (adr/0063): `byre-wall 1 <event> <unix-seconds> <fields...>` -----
now() { printf '%(%s)T' -1; }

# A name as the box sent it, lower-cased, every byte outside [a-z0-9._-] as
# \DDD; leading labels dropped until it fits an event line.
escape_name() {
  local s=${1,,} out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    if [[ $c == [a-z0-9._-] ]]; then out+=$c; else printf -v c '\\%03d' "'$c"; out+=$c; fi
  done
  while ((${#out} > 480)) && [[ $out == *.* ]]; do out=${out#*.}; done
  ((${#out} <= 480)) || out=${out: -480}
  REPLY=$out
}

# A name the resolver forwards as the wall's business: allowed on some port
# (deny-by-default), or closed (open-denylist); the entry itself or a name below it.
covered() { # name
  [ -n "$(ports_open "$1")$(edge_ports_open "$1")" ]
}

# dnsmasq's own lines: `query[TYPE] NAME from ADDR` and `reply NAME is ADDR`.
resolver_events() {
  local line t name addr n
  while IFS= read -r line; do
    if [[ $line =~ query\[([A-Za-z0-9=]+)\]\ (.*)\ from\ [0-9a-fA-F:.]+$ ]]; then
      t=${BASH_REMATCH[1]}; name=${BASH_REMATCH[2],,}
      [[ $t == type=* ]] && t=TYPE${t#type=}
      covered "${name%.}" && continue
      # Under open-denylist every name is answered: nothing was refused.
      [ "$open" = 0 ] || continue
      escape_name "$name"
      echo "byre-wall 1 refused-name $(now) $REPLY $t"
    elif [[ $line =~ reply\ (.*)\ is\ ([0-9]+(\.[0-9]+){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)$ ]]; then
      name=${BASH_REMATCH[1]}; addr=${BASH_REMATCH[2]}
      # The allowlist's answers (an answer for the edge alone is not the box's),
      # and under open-denylist a closed name's.
      n=${name,,}
      [ -n "$(ports_open "${n%.}")" ] || continue
      escape_name "$name"
      echo "byre-wall 1 resolved $(now) $REPLY $addr 0"
    elif [ "$open" = 1 ] && [[ $line =~ (forwarded|cached|config|reply|validation)\  ]]; then
      continue # the open network's own lookups, one line each: not kept
    else
      printf '%s\n' "$line" >&2
    fi
  done
}

# The refused set: one line per (proto, address, port) when its count moves.
# nft names a protocol from /etc/protocols and prints its number without it
# (an image without netbase, as firewall-open's packages leave it): both read.
declare -A seen=()
refused_events() {
  local fam key count
  for fam in 4 6; do
    while read -r key count; do
      [ "${seen[$key]:-}" != "$count" ] || continue
      seen[$key]=$count
      set -- ${key//|/ }
      echo "byre-wall 1 refused-connect $(now) $2 $1 $3 count=$count"
    done < <(nft list set inet byre "refused$fam" 2>/dev/null |
      grep -oE '[0-9a-fA-F:.]+ \. (tcp|udp|6|17) \. [0-9]+ counter packets [0-9]+' |
      awk '{p = $3 == 6 ? "tcp" : $3 == 17 ? "udp" : $3; print $1 "|" p "|" $5, $8}')
  done
}

# The box's network is gone once no interface but loopback is left. Read
# from /proc/net/dev, which is this namespace's own: /sys/class/net is the
# host's in a helper of rootless podman (its sysfs is not remounted there),
# where a helper left by a killed byre would then never end.
links() {
  local line out=()
  while IFS= read -r line; do
    [[ $line == *:* ]] || continue
    line=${line%%:*}
    line=${line//[[:space:]]/}
    [ "$line" = lo ] || out+=("$line")
  done < "${BYRE_WALL_NET_FILE:-/proc/net/dev}"
  echo "${out[*]}"
}

# Is the resolver running? Not `kill -0`: once dnsmasq dropped to its user,
# a helper without CAP_KILL (adr/0050) may not signal it even to ask, and
# would call a running resolver dead. /proc tells without asking: the pid is
# there and not a zombie.
resolver_alive() { # pid
  local stat
  [ -n "$1" ] || return 1
  { read -r stat < "/proc/$1/stat"; } 2>/dev/null || return 1
  stat=${stat##*) }
  [[ ${stat%% *} != [ZX] ]]
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
if grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null; then
  targets+=(::1)
  nc -6 -dlk ::1 "$probe_port" </dev/null >/dev/null 2>&1 & listeners+=($!)
else
  log "IPv6 rules applied; no ::1 in this namespace, so IPv6 is off here and not probed"
fi
for ip in "${targets[@]}"; do
  for _ in $(seq 20); do
    [ "$(connect "$ip" "$probe_port")" = connected ] && continue 2
    sleep 0.05
  done
  die "the deny probe's own listener on $ip:$probe_port never answered; cannot prove the wall"
done

nft -f "$run_dir/wall.nft" || die "nftables refused the wall"

# The resolver starts now, behind the wall: only its user's DNS leaves. Its
# log goes through the event filter (defined below, started here).
dnsmasq --conf-file="$run_dir/dnsmasq.conf" 2> >(resolver_events) &
resolver=$!
echo "$resolver" > "$run_dir/resolver.pid"

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
listeners=()
trap - EXIT
nft delete element inet byre probe "{ $probe_port }" || die "could not give loopback back to the box"

# The resolver answers before the box runs (its first query must not be lost).
ready=0
for _ in $(seq 100); do
  if [ "$(connect 127.0.0.1 53)" = connected ]; then ready=1; break; fi
  resolver_alive "$resolver" || die "the resolver did not start"
  sleep 0.02
done
[ "$ready" = 1 ] || die "the resolver never answered on 127.0.0.1:53"

if [ "$open" = 1 ]; then
  log "egress open-denylist applied: ${#names[@]} name / $((${#static4[@]} + ${#static6[@]})) address closures, each refused at once; closed names' addresses closed as the wall's own resolver answers them; deny probe refused"
else
  log "egress deny-by-default applied: ${#names[@]} name / $((${#static4[@]} + ${#static6[@]})) address entries, resolved by the wall's own resolver; inbound only on ${#inbound[@]} published port(s)"
fi

# --- open the gate: one listen on the shared loopback ----------------------
timeout 60 nc -l 127.0.0.1 "$port" </dev/null >/dev/null &
wait $! || die "the box never connected to the launch gate"
log "gate opened"

had=$(links)
while :; do
  refused_events
  if [ -n "$resolver" ] && ! resolver_alive "$resolver"; then
    log "the resolver exited: no DNS and no new address for the rest of the session (fail closed)"
    resolver=''
  fi
  if [ -n "$had" ] && [ -z "$(links)" ]; then exit 0; fi
  sleep 1 &
  wait $!
done
