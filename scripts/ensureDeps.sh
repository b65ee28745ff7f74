#!/usr/bin/env bash
# Makes node_modules match package-lock.json: runs `npm install` only when scripts/depsFresh.mjs finds it
# missing or stale, so `npm test` and `npm start` stay fast on a machine that is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
if reason=$(node scripts/depsFresh.mjs); then
  exit 0
fi
echo "dependencies: ${reason}; running npm install"
# npm install, not npm ci: see .ci/run (chdb's optional packages for other platforms cannot be locked here).
npm install --no-audit --no-fund
