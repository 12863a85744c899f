#!/bin/sh
# Installs byre for this user: sh install.sh [BINARY]
#
# BINARY defaults to the release artifact for this machine beside this script
# (byre-<os>-<arch>, checked against SHA256SUMS when that file is there), else
# dist/byre of the checkout this script lives in. The binary lands in
# $BYRE_INSTALL_DIR (default ~/.local/bin), which is created when missing; the
# old byre is replaced only once the new one has run. Says how to put the
# directory on PATH when it is not.
set -eu

say() { printf 'install: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) die "byre is built for Linux and macOS, not $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "byre is built for x86-64 and arm64, not $(uname -m)" ;;
esac

if [ $# -gt 1 ]; then die "usage: sh install.sh [BINARY]"; fi
if [ $# -eq 1 ]; then
  src=$1
elif [ -f "$here/byre-$os-$arch" ]; then
  src=$here/byre-$os-$arch
elif [ -f "$here/../dist/byre" ]; then
  src=$here/../dist/byre
else
  die "no byre-$os-$arch beside this script and no dist/byre; pass the binary to install"
fi
[ -f "$src" ] || die "$src is not a file"

# A release artifact is checked against the sums published with it.
sums=$(dirname -- "$src")/SHA256SUMS
name=$(basename -- "$src")
if [ -f "$sums" ] && grep -q "  $name\$" "$sums"; then
  if command -v sha256sum >/dev/null 2>&1; then
    got=$(sha256sum "$src" | cut -d' ' -f1)
  else
    got=$(shasum -a 256 "$src" | cut -d' ' -f1)
  fi
  want=$(grep "  $name\$" "$sums" | cut -d' ' -f1)
  [ "$got" = "$want" ] || die "$src does not match SHA256SUMS (got $got, want $want); download it again"
fi

dest=${BYRE_INSTALL_DIR:-$HOME/.local/bin}
mkdir -p "$dest" || die "could not create $dest"
tmp=$(mktemp "$dest/.byre-install.XXXXXX") || die "could not write in $dest"
trap 'rm -f "$tmp"' EXIT
cp "$src" "$tmp"
chmod 0755 "$tmp"
# A downloaded file on macOS carries a quarantine flag that blocks its first run.
if [ "$os" = darwin ]; then xattr -d com.apple.quarantine "$tmp" 2>/dev/null || true; fi
version=$("$tmp" version) || die "$src does not run on this machine ($os-$arch); nothing was installed"
mv -f "$tmp" "$dest/byre"
trap - EXIT
say "installed $version as $dest/byre"

case ":${PATH:-}:" in
  *":$dest:"*)
    found=$(command -v byre || true)
    if [ "$found" != "$dest/byre" ]; then
      say "note: \`byre\` on your PATH is $found, which comes before $dest"
    fi
    ;;
  *)
    say "$dest is not on your PATH; to add it:"
    case "$(basename -- "${SHELL:-sh}")" in
      bash) say "  echo 'export PATH=\"$dest:\$PATH\"' >> ~/.bashrc   # then open a new terminal" ;;
      zsh) say "  echo 'export PATH=\"$dest:\$PATH\"' >> ~/.zshrc   # then open a new terminal" ;;
      fish) say "  fish_add_path $dest" ;;
      *) say "  echo 'export PATH=\"$dest:\$PATH\"' >> ~/.profile   # then log in again" ;;
    esac
    ;;
esac
