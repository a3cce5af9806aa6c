#!/usr/bin/env bash
# Install Debian's chromium and chromedriver (the browser tests of `make test-slow` drive
# them); as root or with passwordless sudo, else say what to run.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then exit 0; fi
if [[ "$(id -u)" -eq 0 ]]; then
    SUDO=()
elif sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
else
    echo "error: chromium and chromedriver are missing; run: sudo apt-get install -y chromium chromium-driver" >&2
    exit 1
fi
echo "test-slow: installing chromium and chromium-driver (apt-get)"
"${SUDO[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq chromium chromium-driver
