#!/usr/bin/env bash
# The console test (npm test) and the editor e2e drive Debian's Chromium (test tools' own browser downloads cannot
# reach their hosts here). As root it is installed from Debian's packages when missing.
#   --optional   (npm test) without root and without Chromium: say which tests will be skipped, and go on
# E2E_CHROMIUM_PATH names another Chromium or Chrome binary (the tests use it too).
set -euo pipefail
optional=false
[ "${1:-}" = "--optional" ] && optional=true
if [ -x "${E2E_CHROMIUM_PATH:-/usr/bin/chromium}" ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  if $optional && [ -z "${CI:-}" ]; then
    echo "tests: Chromium is missing (sudo apt-get install -y chromium): the console's browser tests are skipped" >&2
    exit 0
  fi
  echo "tests: Chromium is missing: install Debian's package first (sudo apt-get install -y chromium)" >&2
  exit 1
fi
# One line now, progress while apt works, the total at the end (scripts/lib/longStep.cjs).
node "$(dirname "$0")/lib/longStep.cjs" tests "installing Chromium from Debian's packages (about 0.3 GB)" "1 to 3 min" -- \
  bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null'
