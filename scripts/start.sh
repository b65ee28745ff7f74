#!/usr/bin/env bash
# `npm start`: installs dependencies if needed, builds, and runs the whole service on its embedded defaults
# (journal and chDB under ./data, the demo catalog, every surface on 127.0.0.1:8080).
# Arguments go to the service as settings: `npm start -- --http-port 9000`, `npm start -- --help`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensureDeps.sh
npm run --silent build
exec node dist/server/main.js "$@"
