#!/usr/bin/env bash
# Runs the benchmark (Node 24) against the built sandbox (`npm run build`).
set -euo pipefail
cd "$(dirname "$0")/../.."
node scripts/node24.cjs bench/sandbox-log-flood/run.mjs "$@"
