#!/usr/bin/env bash
# Compiles the benchmark with the node, the harness and the sandbox, then runs it (Node 24).
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc -p bench/multi-worker/tsconfig.json
node bench/out/multi-worker/bench/multi-worker/run.js "$@"
