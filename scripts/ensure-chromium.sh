#!/usr/bin/env bash
# Make sure Debian's chromium is installed for the lens HTML test
# (tests/lens/test_lens_html.py drives it with playwright's executable_path).
# Quiet; never fails the run: if it cannot install (offline, no root), the
# HTML test itself fails loudly and says chromium is missing.
set -u
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "ensure-chromium: /usr/bin/chromium missing and not root; the HTML test will fail" >&2
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq >/dev/null 2>&1 &&
       $SUDO apt-get install -y -qq chromium >/dev/null 2>&1; }; then
    echo "ensure-chromium: could not install chromium (offline?); the HTML test will fail" >&2
fi
exit 0
