#!/usr/bin/env bash
# Prints the path of an nginx binary on its last line, installing Debian's nginx-light package when none is
# found (apt-get, as root): the proxy test (test/deploy/proxy.test.ts) runs deploy/nginx/nginx.conf with it.
set -euo pipefail

if command -v nginx >/dev/null; then
  command -v nginx
  exit 0
fi
if [[ -x /usr/sbin/nginx ]]; then
  echo /usr/sbin/nginx
  exit 0
fi
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  echo "nginx: installing Debian's nginx-light package (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq nginx-light >&2; then
    apt-get update -qq >&2 && apt-get install -y -qq nginx-light >&2
  fi
  # The package starts its own server where it can; the test runs nginx with its own prefix and port.
  if [[ -x /usr/sbin/nginx ]]; then
    echo /usr/sbin/nginx
    exit 0
  fi
fi
echo "scripts/compose/nginx.sh: no nginx; install Debian's nginx-light package" >&2
exit 1
