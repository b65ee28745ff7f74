#!/usr/bin/env bash
# Makes node_modules match package-lock.json: runs `npm ci` only when scripts/depsFresh.mjs finds it missing
# or stale, so `npm test` and `npm start` stay fast on a machine that is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
if reason=$(node scripts/depsFresh.mjs); then
  exit 0
fi
echo "dependencies: ${reason}; running npm ci"
npm ci --no-audit --no-fund
