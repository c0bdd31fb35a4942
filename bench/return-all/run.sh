#!/usr/bin/env bash
# Compiles the benchmark with the node, the harness and the sandbox, then runs it (Node 24).
set -euo pipefail
cd "$(dirname "$0")/../.."
# An empty output folder each time: a compiled file whose source moved would otherwise shadow the new one.
rm -rf bench/out/return-all
npx tsc -p bench/return-all/tsconfig.json
node bench/out/return-all/bench/return-all/run.js "$@"
