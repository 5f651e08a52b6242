#!/usr/bin/env bash
# The code generator's property run: many random valid schemas and operations, each generated
# and checked (the test suite runs 60 seeds; this runs as many as you ask, in a release build).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/codegen-properties.sh [seeds] [first seed] [--large]

Generates RandomGraphQL samples (Tools/Fuzz/Targets/RandomGraphQL.swift) for [seeds] seeds
(default 5000) from [first seed] (default 0) and checks each: accepted, finished within 20 s,
at most (selection sets)² + 10 structs, byte-identical when run twice. --large uses samples of
about 1,000 types and 50 operations. Prints the first failing seed and exits 1, else a summary.
Reproduce a failing seed with: codegen-properties sample <seed> <folder>.
USAGE
  exit 0
fi

large=()
positional=()
for arg in "$@"; do
  if [ "$arg" = "--large" ]; then large=(--large); else positional+=("$arg"); fi
done
swift build -c release --package-path "$ROOT/Tools" --product codegen-properties >&2
"$ROOT/Tools/.build/release/codegen-properties" run --seeds "${positional[0]:-5000}" --first "${positional[1]:-0}" "${large[@]}"
