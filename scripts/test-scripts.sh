#!/usr/bin/env bash
# Runs the scripts' own tests (scripts/tests/*-tests.sh): new-kit.sh and test-affected.sh over
# scratch copies of this repository.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/test-scripts.sh [name…]

Runs scripts/tests/<name>-tests.sh (all of them without names: $(cd "$ROOT/scripts/tests" && ls ./*-tests.sh | sed 's|^\./||; s|-tests\.sh$||' | xargs)).
Each makes scratch git repositories from this working tree in a temporary folder (removed at the
end), builds apicore-codegen once (or uses \$APICORE_CODEGEN), and prints one line per test as
swift-testing does, so that test-all.sh counts them. new-kit's tests build and test two new kits
(a few minutes). Exits non-zero when a test fails.
USAGE
  exit 0
fi

names=("$@")
if [ $# -eq 0 ]; then
  names=()
  while IFS= read -r name; do names+=("$name"); done < <(cd "$ROOT/scripts/tests" && ls ./*-tests.sh | sed 's|^\./||; s|-tests\.sh$||')
fi
status=0
for name in "${names[@]}"; do
  file="$ROOT/scripts/tests/$name-tests.sh"
  [ -f "$file" ] || { echo "test-scripts.sh: no tests named '$name' ($file)" >&2; exit 2; }
  echo "== scripts: $name"
  bash "$file" || status=1
done
exit $status
