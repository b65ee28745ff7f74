#!/usr/bin/env bash
# `npm start`: installs dependencies if needed, builds, and runs the service on its embedded defaults.
# Arguments go to the service as settings: `npm start -- --http-port 9000`, `npm start -- --help`.
# Today there is no HTTP server yet, so this runs the matching-engine demo (scripts/engineDemo.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensureDeps.sh
npm run --silent build
exec node dist/scripts/engineDemo.js "$@"
