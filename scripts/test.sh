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

kafka_state="" # state directory of the broker this run started (see "Test services")
stop_kafka() {
  [[ -n $kafka_state ]] || return 0
  KAFKA_STATE_DIR=$kafka_state bash scripts/kafka/broker.sh stop >/dev/null 2>&1
  rm -rf "$kafka_state"
  kafka_state=""
}
trap stop_kafka EXIT

finish() {
  stop_kafka
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
step typecheck-ui "$bin/tsc" -p ui/tsconfig.json --noEmit
step lint "$bin/eslint" .
# The native signature recovery (scripts/buildNative.sh, as `npm run build` makes it): the tests run from the
# sources, and auth/nativeRecovery.ts loads what this builds. Without cargo the tests use the package binding.
step native-recovery bash scripts/buildNative.sh

# --- Test services -------------------------------------------------------------------------------------
# The Kafka tier (test/log/kafka*.test.ts) runs against a real broker. Unless KAFKA_BROKERS names one, start a
# throwaway single-node broker for the whole tap run (scripts/kafka/broker.sh: jars from Maven Central, cached
# in ~/.m2 and .kafka/; KRaft storage in a temporary directory; 127.0.0.1 on free ports) and stop it when the
# run ends (before the summary line; the EXIT trap and broker.sh's watchdog cover abnormal exits). When it
# cannot start (Java or Maven missing: broker.sh says what to install), npm test fails, and the Kafka test files
# fail at once with the same message (KAFKA_TIER_ERROR) rather than each trying again; they never skip.
if [[ -n ${KAFKA_BROKERS:-} ]]; then
  echo "== kafka: using KAFKA_BROKERS=${KAFKA_BROKERS}"
else
  echo "== kafka: starting a local broker (scripts/kafka/broker.sh; the first run downloads its jars with Maven)"
  kafka_state=$(mktemp -d "${TMPDIR:-/tmp}/pmx-kafka-state.XXXXXX")
  if kafka_out=$(KAFKA_STATE_DIR=$kafka_state KAFKA_OWNER_PID=$$ bash scripts/kafka/broker.sh start 2>"$kafka_state/start.err"); then
    cat "$kafka_state/start.err"
    export KAFKA_BROKERS=${kafka_out##*$'\n'}
  else
    cat "$kafka_state/start.err"
    echo "== kafka FAILED: no broker, so the Kafka tests fail (message above); npm test exits 1"
    KAFKA_TIER_ERROR=$(cat "$kafka_state/start.err")
    export KAFKA_TIER_ERROR
    status=1
  fi
fi
# --------------------------------------------------------------------------------------------------------

# Python tools (schemathesis, clickhouse-connect) in .venv-py, filled once (scripts/python/venv.sh); the tests
# that drive them read PMX_PYTHON. A failure here fails npm test, and those tests fail with venv.sh's message.
echo "== python tools: scripts/python/venv.sh"
if py_out=$(bash scripts/python/venv.sh); then
  export PMX_PYTHON=${py_out##*$'\n'}
else
  echo "== python tools FAILED (message above); the tests that use them will fail"
  status=1
fi
# Those that need Python 3.12 (polymarket-apis) in .venv-py3.12, with a Python 3.12 the machine offers (pyenv's);
# their tests read PMX_PYTHON_3_12. None found fails npm test, and those tests, with venv.sh's message.
echo "== python 3.12 tools: scripts/python/venv.sh 3.12"
if py_out=$(bash scripts/python/venv.sh 3.12); then
  export PMX_PYTHON_3_12=${py_out##*$'\n'}
else
  echo "== python 3.12 tools FAILED (message above); the tests that use them will fail"
  status=1
fi

# A browser (Debian's chromium) for the market page's tests (test/ui/), found or installed once
# (scripts/browser.sh); they read PMX_CHROMIUM. A failure here fails npm test, and those tests fail with the
# script's message (PMX_BROWSER_ERROR) rather than skip.
echo "== browser: scripts/browser.sh"
if browser_out=$(bash scripts/browser.sh 2>/tmp/pmx-browser.$$.err); then
  cat /tmp/pmx-browser.$$.err
  export PMX_CHROMIUM=${browser_out##*$'\n'}
else
  cat /tmp/pmx-browser.$$.err
  PMX_BROWSER_ERROR=$(cat /tmp/pmx-browser.$$.err)
  export PMX_BROWSER_ERROR
  echo "== browser FAILED (message above); the browser tests will fail"
  status=1
fi
rm -f /tmp/pmx-browser.$$.err

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
# The failures again, after tap's coverage table, so that the tail of a long log names them: each "not ok"
# line (innermost first, then its parents up to the file) with the first lines of its YAML diagnostics.
if ((failed > 0)); then
  echo "== failed tests (from the raw TAP stream):"
  awk '
    /^[ \t]*not ok / { sub(/^[ \t]+/, ""); print "  " $0; yaml = 0; want = 1; shown = 0; next }
    want && /^[ \t]*---[ \t]*$/ { yaml = 1; next }
    want && yaml && /^[ \t]*\.\.\.[ \t]*$/ { yaml = 0; want = 0; next }
    want && yaml && shown < 8 { sub(/^[ \t]+/, ""); print "      " $0; shown++; next }
    /^[ \t]*(ok|not ok) / { want = 0 }
  ' "$raw_tap" | head -n 80
fi
finish
