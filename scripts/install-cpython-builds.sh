#!/usr/bin/env bash
# Install the extra CPython builds the lens tests run against:
#   Debian's python3.13 (a later 3.13 patch release), python3.14 and python3.15
#   (both built with the experimental JIT, off unless PYTHON_JIT=1).
# They need a newer C library than the host has, so they come from a minimal
# Debian "sid" tree (debootstrap) and each binary is copied and patched
# (patchelf) to use that tree's loader and libraries; the copies then run
# directly on the host and find their own stdlib.
#
# Idempotent: a finished tree is recorded by a stamp and reused.
# Where: $QUICKENING_CPYTHON_BUILDS, default ~/.cache/quickening/cpython-builds.
# Result: DIR/bin/python3.13, python3.14, python3.15 (the tests find them
# through tests/builds.py).
# Exit status: 0 when the builds are present afterwards, 1 otherwise (the
# caller decides whether that is fatal; `make test` goes on and the tests
# skip, or fail under CI=true).
set -u

DIR="${QUICKENING_CPYTHON_BUILDS:-$HOME/.cache/quickening/cpython-builds}"
ROOT="$DIR/sid"
STAMP="$DIR/.complete"
VERSIONS="3.13 3.14 3.15"
SUITE=sid

say() { echo "install-cpython-builds: $*" >&2; }

if [ -f "$STAMP" ]; then
    ok=1
    for v in $VERSIONS; do [ -x "$DIR/bin/python$v" ] || ok=0; done
    [ "$ok" = 1 ] && exit 0
fi

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
    say "only Linux x86-64 is supported by this route; the 3.14/3.15 lens tests will skip"
    exit 1
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        say "needs root (or password-less sudo) for debootstrap; the 3.14/3.15 lens tests will skip"
        exit 1
    fi
fi

say "installing Debian's CPython 3.13/3.14/3.15 into $DIR (debootstrap of Debian $SUITE + patchelf, ~3 min, ~400 MB, once) so the lens is tested on 3.14/3.15 and the JIT"

export DEBIAN_FRONTEND=noninteractive
need=""
command -v debootstrap >/dev/null 2>&1 || need="$need debootstrap"
command -v patchelf >/dev/null 2>&1 || need="$need patchelf"
if [ -n "$need" ]; then
    if ! { $SUDO apt-get update -qq >/dev/null 2>&1 &&
           $SUDO apt-get install -y -qq $need >/dev/null 2>&1; }; then
        say "could not apt-get install$need (offline?)"
        exit 1
    fi
fi

# The mirror the host's own apt sources use (deb822 or one-line format).
MIRROR="$(grep -rhoE '^(URIs:[[:space:]]*|deb[[:space:]]+)https?://[^[:space:]]+/debian/?([[:space:]]|$)' \
            /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
          grep -oE 'https?://[^[:space:]]+' | head -n1)"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"

pkgs=""
for v in $VERSIONS; do pkgs="$pkgs,python$v,python$v-venv"; done
pkgs="${pkgs#,}"

mkdir -p "$DIR"
if [ ! -x "$ROOT/usr/bin/python3.15" ]; then
    rm -rf "$ROOT"
    log="$DIR/debootstrap.log"
    if ! $SUDO debootstrap --variant=minbase --include="$pkgs" "$SUITE" "$ROOT" "$MIRROR" >"$log" 2>&1; then
        say "debootstrap failed (see $log)"
        exit 1
    fi
fi

LIB="$ROOT/usr/lib/x86_64-linux-gnu"
mkdir -p "$DIR/bin"
for v in $VERSIONS; do
    src="$ROOT/usr/bin/python$v"
    dst="$DIR/bin/python$v"
    if [ ! -x "$src" ]; then
        say "$src missing after debootstrap"
        exit 1
    fi
    # The copy must live inside the tree's usr/bin for the stdlib to be found
    # (sys.prefix is derived from the executable's location).
    cp -f "$src" "$ROOT/usr/bin/python$v-host"
    patchelf --set-interpreter "$LIB/ld-linux-x86-64.so.2" --force-rpath \
        --set-rpath "$LIB" "$ROOT/usr/bin/python$v-host"
    ln -sf "$ROOT/usr/bin/python$v-host" "$dst"
    if ! "$dst" -c 'import sys, ssl, ctypes' >/dev/null 2>&1; then
        say "$dst does not run on this host"
        exit 1
    fi
done
touch "$STAMP"
say "done: $(for v in $VERSIONS; do "$DIR/bin/python$v" -c 'import sys; print(sys.version.split()[0], end=" ")'; done)"
exit 0
