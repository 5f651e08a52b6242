#!/usr/bin/env bash
# Installs the interop suite's third-party server (strawberry-graphql under uvicorn, every package
# pinned in requirements.txt) into a virtualenv at ../.build-interop/venv (ignored by git).
# Does nothing when that virtualenv holds exactly these pins. On failure, prints one line saying
# why and exits 1; the interop tests run it and fail with that line.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/../.build-interop/venv"
stamp="$venv/installed-requirements.txt"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: Interop/setup.sh    (installs $here/requirements.txt into $venv)"
  exit 0
fi
if [ -x "$venv/bin/python" ] && cmp -s "$here/requirements.txt" "$stamp"; then exit 0; fi

command -v python3 >/dev/null || { echo "interop: python3 is not on PATH; the interop server needs Python 3.10 or later" >&2; exit 1; }
rm -rf "$venv"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! python3 -m venv "$venv" >"$log" 2>&1; then
  echo "interop: 'python3 -m venv $venv' failed: $(tail -1 "$log")" >&2
  exit 1
fi
if ! "$venv/bin/python" -m pip install --disable-pip-version-check --no-input --quiet -r "$here/requirements.txt" >"$log" 2>&1; then
  echo "interop: pip could not install $here/requirements.txt (is PyPI reachable?): $(grep -m1 -iE 'error' "$log" || tail -1 "$log")" >&2
  exit 1
fi
cp "$here/requirements.txt" "$stamp"
