#!/usr/bin/env bash
# Prints the path of a Chromium for the browser tests (test/ui/*.test.ts, driven by playwright-core) on its
# last line, installing Debian's `chromium` package when none is found. PMX_CHROMIUM, when set, names the
# browser to use. Playwright's own browser downloads are never used: they need a host that is not reachable
# here. Fails with a message saying what to install when no browser can be had.
set -euo pipefail

if [[ -n ${PMX_CHROMIUM:-} ]]; then
  if [[ -x $PMX_CHROMIUM ]]; then
    echo "$PMX_CHROMIUM"
    exit 0
  fi
  echo "scripts/browser.sh: PMX_CHROMIUM=${PMX_CHROMIUM} is not an executable" >&2
  exit 1
fi

find_browser() {
  local name
  for name in chromium chromium-browser; do
    if command -v "$name" >/dev/null; then
      command -v "$name"
      return 0
    fi
  done
  return 1
}

if path=$(find_browser); then
  echo "$path"
  exit 0
fi

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  echo "browser: installing Debian's chromium package (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq chromium >&2; then
    apt-get update -qq >&2 && apt-get install -y -qq chromium >&2 || true
  fi
  if path=$(find_browser); then
    echo "$path"
    exit 0
  fi
fi

echo "scripts/browser.sh: no Chromium found, and it could not be installed; the browser tests need one (Debian: apt-get install chromium; or set PMX_CHROMIUM to a Chromium binary)" >&2
exit 1
