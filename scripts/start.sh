#!/usr/bin/env bash
# `npm start`: installs dependencies if needed, builds, and runs the whole service on its embedded defaults
# (journal and chDB under ./data, the demo catalog, every surface on 127.0.0.1:8080).
# Arguments go to the service as settings: `npm start -- --http-port 9000`, `npm start -- --help`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensureDeps.sh
npm run --silent build
# scripts/node-flags: V8 flags the service runs with (a young generation of 64 MiB per semi-space: each
# order allocates short-lived objects, and with the default 16 MiB scavenges took ~10% of the request
# thread and promoted garbage into the old generation). bench:orders starts its server with the same.
# shellcheck disable=SC2046
exec node $(cat scripts/node-flags) dist/server/main.js "$@"
