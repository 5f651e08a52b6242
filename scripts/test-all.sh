#!/usr/bin/env bash
# Runs every package's tests, each package on its own with its own .build, and fails if any
# fails. This is the README's test command and what CI runs.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/test-all.sh

Checks that no file refers to a path outside the repository and that vendored third-party
material is unmodified (scripts/check-paths.py), the kits' imports, and that generated code is up
to date (scripts/check-generated.sh),
and, when schema.graphqls differs from HEAD (or the last commit changed it), that no kit breaks
(scripts/schema-check.sh); then runs scripts/test.sh for every package:
${PACKAGES[*]/#./Pantry}
then builds APICore's DocC documentation, failing on any DocC warning (scripts/docs.sh; the
articles' samples are compiled with APICoreKit's tests), then checks the dev server's REST
routes against their OpenAPI documents with schemathesis
(scripts/openapi-conformance.sh, which installs it from PyPI into .build-venv),
then runs every fuzz target for \$FUZZ_SECONDS (default 30) seconds each (scripts/fuzz.sh all).
Fails if any package fails to build, has a compiler warning in its own sources, or has a
failing test, or if a fuzzer finds a crash, leak or timeout. Ends with a line
'tests: N passed, M failed'.
USAGE
  exit 0
fi

require_buildable_root
log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed_packages=()

"$ROOT/scripts/check-paths.py" || failed_packages+=("paths outside the repository")
"$ROOT/scripts/check-imports.sh" || failed_packages+=("imports")
"$ROOT/scripts/check-generated.sh" || failed_packages+=("generated code")
# The schema change check, when schema.graphqls changed (in the working tree, or in the last commit).
if ! git -C "$ROOT" diff --quiet HEAD -- schema.graphqls 2>/dev/null; then
  "$ROOT/scripts/schema-check.sh" HEAD || failed_packages+=("schema change")
elif git -C "$ROOT" rev-parse -q --verify HEAD~1 >/dev/null && ! git -C "$ROOT" diff --quiet HEAD~1 HEAD -- schema.graphqls; then
  "$ROOT/scripts/schema-check.sh" HEAD~1 || failed_packages+=("schema change")
fi

for package in "${PACKAGES[@]}"; do
  start=$SECONDS
  if "$ROOT/scripts/test.sh" "$package" 2>&1 | tee -a "$log"; then
    echo "== ${package/#./Pantry}: passed in $((SECONDS - start))s"
  else
    echo "== ${package/#./Pantry}: FAILED in $((SECONDS - start))s"
    failed_packages+=("${package/#./Pantry}")
  fi
done

start=$SECONDS
if "$ROOT/scripts/docs.sh"; then
  echo "== documentation: built in $((SECONDS - start))s"
else
  echo "== documentation: FAILED in $((SECONDS - start))s"
  failed_packages+=("documentation")
fi

start=$SECONDS
if "$ROOT/scripts/openapi-conformance.sh"; then
  echo "== OpenAPI conformance: passed in $((SECONDS - start))s"
else
  echo "== OpenAPI conformance: FAILED in $((SECONDS - start))s"
  failed_packages+=("OpenAPI conformance")
fi

start=$SECONDS
if "$ROOT/scripts/fuzz.sh" all "${FUZZ_SECONDS:-30}"; then
  echo "== fuzz: passed in $((SECONDS - start))s"
else
  echo "== fuzz: FAILED in $((SECONDS - start))s"
  failed_packages+=("fuzz")
fi

passed=$(grep -cE '^✔ Test ".*" (with [0-9]+ test cases )?passed after' "$log" || true)
failed=$(grep -cE '^✘ Test ".*" (with [0-9]+ test cases )?failed after' "$log" || true)
echo
if [ ${#failed_packages[@]} -gt 0 ]; then
  # CI keeps only the end of the output: repeat what failed, and why, here.
  grep -E '^✘ |recorded an issue|Expectation failed|error:' "$log" | cut -c1-400 | head -40
  echo "test-all: failed: ${failed_packages[*]}"
fi
echo "tests: $passed passed, $failed failed"
[ ${#failed_packages[@]} -eq 0 ]
