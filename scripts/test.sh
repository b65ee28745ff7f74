#!/usr/bin/env bash
# `npm test`: install dependencies if needed, type-check, lint, run the tap suite. Exits non-zero when any
# step fails. Contract: the last line printed is exactly "N passed, N failed", counted from the summary that
# tap itself writes at the end of its raw TAP stream ("# { total: T, pass: P, fail: F, ... }"), so a run in
# which no test executed shows as "0 passed, 0 failed" (and fails).
#
# On a terminal tap shows its `base` report and saves the raw TAP stream with --output-file; elsewhere (CI,
# pipes) it prints raw TAP, which carries every failure's diagnostics, and tee saves it (tap's --output-file
# together with its `tap` reporter would print every line twice). The counts come from the saved stream.
set -uo pipefail
cd "$(dirname "$0")/.."

bin=node_modules/.bin
status=0
passed=0
failed=0
raw_tap=$(mktemp "${TMPDIR:-/tmp}/pmx-tap.XXXXXX")

finish() {
  rm -f "$raw_tap"
  echo "${passed} passed, ${failed} failed"
  exit "$status"
}

step() { # step NAME COMMAND...: runs a step, remembers its failure, carries on with the next one
  local name=$1
  shift
  echo "== ${name}: $*"
  if ! "$@"; then
    echo "== ${name} FAILED; the remaining steps still run, and npm test exits 1"
    status=1
  fi
}

if ! bash scripts/ensureDeps.sh; then
  echo "== installing dependencies FAILED; no test ran"
  status=1
  finish
fi

step typecheck "$bin/tsc" -p tsconfig.json --noEmit
step lint "$bin/eslint" .

# --- Test services -------------------------------------------------------------------------------------
# TODO(event log issue): start a local Kafka broker here for the integration tier (scripts that fetch the
# broker jars with Maven, format KRaft storage in a temporary directory, listen on 127.0.0.1), export its
# address as KAFKA_BROKERS unless one is already given, and stop it in an EXIT trap after the suite. When
# Java or Maven is missing that tier must fail with a message saying what to install, never skip silently.
# --------------------------------------------------------------------------------------------------------

echo "== tests: tap"
if [[ -t 1 ]]; then
  "$bin/tap" --reporter=base --output-file "$raw_tap"
  tap_status=$?
else
  "$bin/tap" --reporter=tap | tee "$raw_tap"
  tap_status=${PIPESTATUS[0]}
fi

summary=$(grep -E '^# \{ total: [0-9]+' "$raw_tap" | tail -n 1)
if [[ -z "$summary" ]]; then
  echo "== tap wrote no summary (exit status ${tap_status}): no test result to count"
  status=1
  finish
fi
[[ $summary =~ pass:\ ([0-9]+) ]] && passed=${BASH_REMATCH[1]}
[[ $summary =~ fail:\ ([0-9]+) ]] && failed=${BASH_REMATCH[1]}

if ((tap_status != 0 || failed > 0 || passed + failed == 0)); then
  status=1
fi
finish
