#!/usr/bin/env bash
# Makes a venv hold the Python tools of a pinned requirements file and prints the venv's python path on its
# last line. Installs only when the venv is missing or the requirements changed since it was filled (a stamp
# file holds their checksum), so repeated test runs cost nothing.
#
#   venv.sh        .venv-py from scripts/python/requirements.txt, with the machine's python3
#   venv.sh 3.12   .venv-py3.12 from scripts/python/requirements-3.12.txt, with a Python 3.12: python3.12 on
#                  the PATH if it runs, else pyenv's newest 3.12 (the tools there need it: polymarket-apis)
#
# Needs that Python with venv and pip; without it, says what to install and exits 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=${1:-}
if [[ -z $version ]]; then
  venv=.venv-py
  req=scripts/python/requirements.txt
elif [[ $version =~ ^3\.[0-9]+$ ]]; then
  venv=.venv-py$version
  req=scripts/python/requirements-$version.txt
else
  echo "scripts/python/venv.sh: usage: venv.sh [3.N]" >&2
  exit 2
fi
stamp=$venv/.requirements.sha256
want=$(sha256sum "$req" | cut -d' ' -f1)

# An interpreter of Python $version that runs (pyenv's shims exist for versions not selected, and fail).
find_python() {
  local candidate root
  local -a candidates=("python$version")
  root=$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")
  while IFS= read -r candidate; do candidates+=("$candidate"); done < <(ls -d "$root"/versions/"$version".*/bin/python"$version" 2>/dev/null | sort -rV)
  for candidate in "${candidates[@]}"; do
    if "$candidate" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$version'.split('.'))))" >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

if [[ ! -x $venv/bin/python || ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
  if [[ -z $version ]]; then
    if ! python=$(command -v python3); then
      echo "scripts/python/venv.sh: python3 is needed (Debian: apt-get install python3 python3-venv)" >&2
      exit 1
    fi
  elif ! python=$(find_python); then
    echo "scripts/python/venv.sh: Python ${version} is needed for ${req} and none was found (python${version} on the PATH, or pyenv's versions/${version}.*): install it, e.g. \`pyenv install ${version}\`" >&2
    exit 1
  fi
  echo "python tools: installing ${req} into ${venv} with $("$python" --version 2>&1)" >&2
  "$python" -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" >"$stamp"
fi
echo "$PWD/$venv/bin/python"
