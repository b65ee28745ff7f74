#!/usr/bin/env bash
# `npm start`: installs dependencies if needed, builds, and runs the whole service on its embedded defaults
# (journal and chDB under ./data, the demo catalog, every surface on 127.0.0.1:8080).
# Arguments go to the service as settings: `npm start -- --http-port 9000`, `npm start -- --help`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensureDeps.sh
npm run --silent build
# scripts/node-flags: V8 flags the service runs with (a young generation of 16 MiB per semi-space: rare
# scavenges at a few thousand orders per second, each short; docs/deployment.md says why not larger).
# bench:orders and bench:cluster start their servers with the same.
# shellcheck disable=SC2046
exec node $(cat scripts/node-flags) dist/server/main.js "$@"
