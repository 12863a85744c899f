#!/bin/sh
# byre/docker-host build step: the docker CLI with the compose and buildx
# plugins, from Debian's own archive (never a daemon: the box drives the
# host's). A base whose suite has docker-cli, docker-compose (v2, the CLI
# plugin) and docker-buildx installs them from its own suite. Debian 12
# (bookworm) has none of the three, so they come from Debian 13 (trixie):
# they depend on libc6 alone, the suite is pinned below every other so
# nothing else is taken from it, and it is removed again afterwards.
set -eu

PACKAGES="docker-cli docker-compose docker-buildx"
LIST=/etc/apt/sources.list.d/byre-docker-host.list
PIN=/etc/apt/preferences.d/byre-docker-host
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

has_candidates() {
  for p in $PACKAGES; do
    apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]' || return 1
  done
  # docker-compose 1.x is the old standalone tool, not the `docker compose` plugin.
  apt-cache policy docker-compose | grep -q 'Candidate: [2-9]'
}

apt-get update
if has_candidates; then
  apt-get install -y --no-install-recommends $PACKAGES
else
  if [ ! -r "$KEYRING" ]; then
    echo "byre/docker-host: this base has no docker-cli/docker-compose/docker-buildx packages and no Debian archive keyring to take them from Debian 13; use a Debian base (debian:bookworm or later)" >&2
    exit 1
  fi
  echo "deb [signed-by=$KEYRING] http://deb.debian.org/debian trixie main" > "$LIST"
  printf 'Package: *\nPin: release n=trixie\nPin-Priority: 100\n' > "$PIN"
  apt-get update
  apt-get install -y --no-install-recommends \
    docker-cli/trixie docker-compose/trixie docker-buildx/trixie
  rm -f "$LIST" "$PIN"
fi
rm -rf /var/lib/apt/lists/*
docker --version
docker compose version
docker buildx version
