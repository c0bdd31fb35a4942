#!/usr/bin/env bash
# Runs CI as CI runs it, on a busy machine: each run clones this repository's HEAD into a new temporary folder (with
# ../shared beside it when there is one), holds every core busy with a CPU hog, and runs `CI=true bash .ci/run`
# there. The runs go one after another; the script fails at the first red run.
#
#   bash scripts/ci-under-load.sh            two runs (the default)
#   bash scripts/ci-under-load.sh --runs 1   one run
#   HOGS=4 bash scripts/ci-under-load.sh     four hogs instead of one per core
#
# Each hog ends with the run (and after 90 minutes at the latest). The clone is removed after a green run and kept
# after a red one, with its log, so the failure can be read.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
runs=2
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    *) echo "ci-under-load: unknown argument $1 (use --runs N)" >&2; exit 2 ;;
  esac
done
hogs="${HOGS:-$(nproc)}"
if [ -n "$(git -C "$repo" status --porcelain)" ]; then
  echo "ci-under-load: uncommitted changes are not part of the run: it clones HEAD ($(git -C "$repo" rev-parse --short HEAD))" >&2
fi

hog_pids=()
stop_hogs() {
  for pid in "${hog_pids[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
  hog_pids=()
}
trap stop_hogs EXIT

for run in $(seq "$runs"); do
  work="$(mktemp -d)"
  git clone -q "$repo" "$work/project"
  [ -d "$repo/../shared" ] && cp -r "$repo/../shared" "$work/shared"
  for _ in $(seq "$hogs"); do
    timeout 5400 sh -c 'while :; do :; done' &
    hog_pids+=("$!")
  done
  echo "ci-under-load: run $run of $runs in $work/project, $hogs CPU hogs, log $work/ci.log"
  started=$(date +%s)
  if (cd "$work/project" && CI=true bash .ci/run) >"$work/ci.log" 2>&1 </dev/null; then
    stop_hogs
    echo "ci-under-load: run $run passed in $(( $(date +%s) - started )) s"
    tail -n 3 "$work/ci.log"
    rm -rf "$work"
  else
    status=$?
    stop_hogs
    echo "ci-under-load: run $run FAILED (exit $status) after $(( $(date +%s) - started )) s; the clone and its log stay in $work"
    grep -nE '✕|FAIL |not ok|Error:' "$work/ci.log" | head -n 40 || true
    exit 1
  fi
done
echo "ci-under-load: $runs of $runs runs passed"
