#!/usr/bin/env bash
# `npm start`: installs dependencies if needed, builds, and runs the whole service on its embedded defaults
# (journal and chDB under ./data, the demo catalog, every surface on 127.0.0.1:8080), with the WebSocket
# channels also on a port of their own, 8081 (--ws-port: uWS without the header edge, as the public service
# gives them a host of their own; docs/websocket.md), unless the arguments or PMX_WS_PORT say otherwise.
# Arguments go to the service as settings: `npm start -- --http-port 9000`, `npm start -- --help`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensureDeps.sh
npm run --silent build
# scripts/node-flags: V8 flags the service runs with (a young generation of 16 MiB per semi-space: rare
# scavenges at a few thousand orders per second, each short; an old generation that may double before each full
# collection, so that a growing book is not marked at every tenth it grows; half V8's inlining budget, so that
# each thread's optimising compiles cost less; gc() exposed for threads/heapTrim.ts, which collects that room's
# garbage at light load; docs/deployment.md says why).
# bench:orders and bench:cluster start their servers with the same.
# shellcheck disable=SC2046
channels=(--ws-port 8081)
for arg in "$@"; do
  case "$arg" in --ws-port | --ws-port=*) channels=() ;; esac
done
if [ -n "${PMX_WS_PORT:-}" ]; then channels=(); fi
exec node $(cat scripts/node-flags) dist/server/main.js "${channels[@]}" "$@"
