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
then the scripts' own tests (scripts/test-scripts.sh: new-kit.sh and test-affected.sh over scratch
copies of the repository), then builds APICore's DocC documentation, failing on any DocC warning (scripts/docs.sh; the
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
SUITE_NAME=test-all
SUITE_CHECKS=(paths imports generated)
# The schema change check, when schema.graphqls changed (in the working tree, or in the last commit).
if ! git -C "$ROOT" diff --quiet HEAD -- schema.graphqls 2>/dev/null; then
  SUITE_CHECKS+=(schema:HEAD)
elif git -C "$ROOT" rev-parse -q --verify HEAD~1 >/dev/null && ! git -C "$ROOT" diff --quiet HEAD~1 HEAD -- schema.graphqls; then
  SUITE_CHECKS+=(schema:HEAD~1)
fi
SUITE_PACKAGES=("${PACKAGES[@]}" scripts)
SUITE_AFTER=(docs openapi fuzz)
run_suite
