#!/usr/bin/env bash
# Makes .venv-py hold the Python tools of scripts/python/requirements.txt and prints the venv's python path
# on its last line. Installs only when the venv is missing or the requirements changed since it was filled
# (a stamp file holds their checksum), so repeated test runs cost nothing. Needs python3 with venv and pip.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.venv-py
req=scripts/python/requirements.txt
stamp=$venv/.requirements.sha256
want=$(sha256sum "$req" | cut -d' ' -f1)
if [[ ! -x $venv/bin/python || ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
  if ! command -v python3 >/dev/null; then
    echo "scripts/python/venv.sh: python3 is needed (Debian: apt-get install python3 python3-venv)" >&2
    exit 1
  fi
  echo "python tools: installing ${req} into ${venv}" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" >"$stamp"
fi
echo "$PWD/$venv/bin/python"
