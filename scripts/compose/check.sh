#!/usr/bin/env bash
# Validates docker-compose.yml with Debian's docker-compose (`docker-compose config -q`, with the placeholder
# secrets of deploy/cluster.env.example), installing the package when missing (apt-get, as root). No Docker
# engine is needed or used: nothing is built or started. Exits non-zero, saying why, when the file is invalid
# or docker-compose cannot be had.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v docker-compose >/dev/null; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "compose: installing Debian's docker-compose package (apt-get)" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq docker-compose >&2; then
      apt-get update -qq >&2 && apt-get install -y -qq docker-compose >&2
    fi
  else
    echo "scripts/compose/check.sh: docker-compose is not installed; install Debian's docker-compose package" >&2
    exit 1
  fi
fi

docker-compose --env-file deploy/cluster.env.example -f docker-compose.yml config -q
echo "docker-compose.yml is valid ($(docker-compose version --short))"
