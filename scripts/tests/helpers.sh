# Shared by the scripts' own tests (scripts/test-scripts.sh runs them): scratch repositories made
# from this working tree, and results printed as swift-testing prints them, so that test-all.sh
# counts them with the packages' tests.
# shellcheck shell=bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

SCRATCH_PARENT=$(mktemp -d "${TMPDIR:-/tmp}/apicorekit-scripts.XXXXXX")
trap 'rm -rf "$SCRATCH_PARENT"' EXIT
APICORE_CODEGEN=$(codegen_binary) || { echo "cannot build apicore-codegen" >&2; exit 1; }
export APICORE_CODEGEN
failures=0

# A scratch git repository holding this working tree's files (tracked and untracked, not ignored),
# committed as one commit tagged 'base'. Prints its path.
scratch_repository() {
  local repo
  repo=$(mktemp -d "$SCRATCH_PARENT/repo.XXXXXX")
  # (A file deleted in the working tree is still listed as tracked: it is left out.)
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' file; do [ -e "$file" ] && printf '%s\0' "$file"; done | tar -cf - --null -T -) \
    | tar -xf - -C "$repo"
  git -C "$repo" init -q -b main
  git -C "$repo" -c user.name=test -c user.email=test@example.com add -A
  git -C "$repo" -c user.name=test -c user.email=test@example.com commit -qm base
  git -C "$repo" tag base
  echo "$repo"
}

# commit <repo> <message>: commits everything in the working tree.
commit() {
  git -C "$1" add -A && git -C "$1" -c user.name=test -c user.email=test@example.com commit -qm "$2"
}

# test_case "<name>" <function>: runs the function, printing ✔/✘ lines like swift-testing's.
test_case() {
  local name="$1" start=$SECONDS output
  shift
  echo "◇ Test \"$name\" started."
  if output=$("$@" 2>&1); then
    echo "✔ Test \"$name\" passed after $((SECONDS - start)).000 seconds."
  else
    echo "$output" | tail -40 | sed 's/^/    /'
    echo "✘ Test \"$name\" failed after $((SECONDS - start)).000 seconds."
    failures=$((failures + 1))
  fi
}

# expect <description> <command…>: fails the test (returns 1) with the description when the command fails.
expect() {
  local description="$1"
  shift
  "$@" || { echo "Expectation failed: $description"; return 1; }
}

# replace <file> <perl substitution>: edits a file in place (the same with GNU and BSD tools).
replace() { perl -pi -e "$2" "$1"; }

# contains <text> <substring>
contains() { [[ "$1" == *"$2"* ]] || { echo "expected to contain: $2"; echo "in: $1" | head -20; return 1; }; }

finish() { [ "$failures" -eq 0 ]; }
