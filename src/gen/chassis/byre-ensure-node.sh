#!/bin/sh
# byre-ensure-node MIN_MAJOR: leave `node` (>= MIN_MAJOR) and `npm` on PATH.
# A base that already has them is left alone. Otherwise npm comes from the
# distribution's packages and, when its node is too old, a newer node binary
# from the npm registry (node-linux-<arch>), so no other download site is used.
set -eu
min=${1:?usage: byre-ensure-node MIN_MAJOR}
major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(major)" -ge "$min" ] && command -v npm >/dev/null 2>&1; then exit 0; fi
if ! command -v npm >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends nodejs npm ca-certificates
  rm -rf /var/lib/apt/lists/*
fi
if [ "$(major)" -lt "$min" ]; then
  case "$(dpkg --print-architecture)" in
    amd64) arch=x64 ;;
    arm64) arch=arm64 ;;
    *) echo "byre-ensure-node: no node-linux build for $(dpkg --print-architecture)" >&2; exit 1 ;;
  esac
  npm install -g --no-audit --no-fund --prefix /opt/byre-node "node-linux-$arch@$min"
  ln -sf "/opt/byre-node/lib/node_modules/node-linux-$arch/bin/node" /usr/local/bin/node
  hash -r 2>/dev/null || true
fi
node --version
npm --version
