#!/usr/bin/env bash
# Checks the dev server's REST routes against the OpenAPI documents that describe them, with
# schemathesis (from PyPI, into a virtual environment of the project's own).
set -uo pipefail
source "$(dirname "$0")/lib.sh"

SCHEMATHESIS_VERSION=4.32.5
# The documents the dev server answers.
DOCUMENTS=(ProductKit/OpenAPI/openapi.yaml)

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/openapi-conformance.sh [max-examples]

Starts the dev server (pantry serve, built if needed), and runs schemathesis $SCHEMATHESIS_VERSION
with every check (status codes, content types, response schemas, negative and positive data,
server errors) on every operation of:
$(printf '  %s\n' "${DOCUMENTS[@]}")
max-examples (default 50) bounds the examples generated per operation; the seed is fixed, so a
run is repeatable. schemathesis is installed into .build-venv on first use. Exits non-zero when
an answer does not conform, or when schemathesis cannot be installed.
USAGE
  exit 0
fi
max_examples="${1:-50}"
[[ "$max_examples" =~ ^[1-9][0-9]*$ ]] || { echo "openapi-conformance: max-examples must be a positive number, not '$max_examples'" >&2; exit 2; }

venv="$ROOT/.build-venv"
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "== installing schemathesis $SCHEMATHESIS_VERSION into .build-venv"
  python3 -m venv "$venv" && "$venv/bin/pip" install -q "schemathesis==$SCHEMATHESIS_VERSION" || {
    echo "openapi-conformance: could not install schemathesis from PyPI (python3 -m venv, pip)" >&2
    exit 1
  }
fi

work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; }; rm -rf "$work"' EXIT
require_buildable_root
swift build --package-path "$ROOT" --product pantry >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; echo "openapi-conformance: pantry does not build" >&2; exit 1; }
pantry="$(swift build --package-path "$ROOT" --show-bin-path)/pantry"
"$pantry" serve --port 0 >"$work/serve.log" 2>&1 &
server=$!
url=""
for _ in $(seq 1 600); do
  url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+/' "$work/serve.log" | head -1)
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
[ -n "$url" ] || { echo "openapi-conformance: the dev server did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }

status=0
for document in "${DOCUMENTS[@]}"; do
  echo "== schemathesis: $document against the dev server at $url"
  # From the scratch folder: schemathesis keeps a cache of failures in the current folder.
  if (cd "$work" && "$venv/bin/schemathesis" --no-color run "$ROOT/$document" --url "$url" --checks all --max-examples "$max_examples" \
      --seed 20261126 --generation-deterministic --workers 1 --request-timeout 10 >"$work/report.txt" 2>&1); then
    sed -n "/SUMMARY/,\$p" "$work/report.txt"
    echo "== $document: the dev server conforms"
  else
    cat "$work/report.txt"
    echo "openapi-conformance: the dev server's answers do not conform to $document" >&2
    status=1
  fi
done
exit $status
