#!/usr/bin/env bash
# The editor e2e test drives Debian's Chromium (test tools' own browser downloads cannot reach their hosts here).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "e2e: Chromium is missing: install Debian's package first (sudo apt-get install -y chromium)" >&2
  exit 1
fi
echo "e2e: installing Chromium from Debian's packages"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
