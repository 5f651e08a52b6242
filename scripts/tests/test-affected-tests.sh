#!/usr/bin/env bash
# scripts/test-affected.sh --list over a scratch copy of this repository: one commit per kind of
# file, each checked for exactly the packages and checks it must reach.
set -uo pipefail
source "$(dirname "$0")/helpers.sh"

REPO=$(scratch_repository)
EVERYTHING="APICoreKit APICoreKit/Integration SharedKit UserKit ProductKit HouseholdKit Tools Tools/Fixtures/StarWarsAPI Tools/Fixtures/GeneratedSamples Pantry scripts"

# reaches "<packages>" "<checks>" <edit command…>: on a branch from base, makes the edit, commits it,
# and expects `test-affected.sh base --list` to name exactly these packages (in this order) and checks.
reaches() {
  local packages="$1" checks="$2" output listed
  shift 2
  git -C "$REPO" checkout -q -B change base || return 1
  (cd "$REPO" && "$@") || { echo "the edit failed: $*"; return 1; }
  commit "$REPO" "change" || return 1
  output=$(cd "$REPO" && scripts/test-affected.sh base --list 2>&1) || { echo "$output"; return 1; }
  listed=$(echo "$output" | grep -E '^  [^ ]' | awk '{print $1}' | grep -v '^(no' | xargs)
  expect "packages '$packages', listed '$listed'" [ "$listed" = "$packages" ] || { echo "$output"; return 1; }
  contains "$output" "checks: $checks" || { echo "$output"; return 1; }
}

append() { echo "$2" >> "$1"; }

test_case "a kit's own source reaches the kit and the app" \
  reaches "UserKit Pantry" "paths imports " append UserKit/Sources/UserKit/UserService.swift "// a change"
test_case "a kit's operation reaches the kit and the app, and the generated-code check" \
  reaches "HouseholdKit Pantry" "paths imports generated " append HouseholdKit/GraphQL/Operations/Household.graphql "# a change"
test_case "a kit's test reaches the kit and the app" \
  reaches "ProductKit Pantry" "paths imports " append ProductKit/Tests/ProductKitTests/ProductServiceTests.swift "// a change"
test_case "SharedKit reaches every kit, the fixture that imports it, and the app" \
  reaches "SharedKit UserKit ProductKit HouseholdKit Tools/Fixtures/StarWarsAPI Pantry" "paths imports " \
  append SharedKit/Sources/SharedKit/DateTime.swift "// a change"
test_case "APICoreKit reaches everything, with the documentation, conformance and fuzz steps" \
  reaches "$EVERYTHING" "paths imports generated docs openapi fuzz" append APICoreKit/Sources/APICore/KitAPI/APIClient.swift "// a change"
test_case "the AsyncHTTPClient package inside APICoreKit reaches everything" \
  reaches "$EVERYTHING" "paths imports generated docs openapi fuzz" append APICoreKit/APICoreAsyncHTTPClient/Package.swift "// a change"
test_case "Tools reaches everything" \
  reaches "$EVERYTHING" "paths imports generated docs openapi fuzz" append Tools/Sources/CodegenKit/Glob.swift "// a change"
test_case "the integration package reaches itself, Tools (which builds its test server) and the app" \
  reaches "APICoreKit/Integration Tools Pantry" "paths " append APICoreKit/Integration/Package.swift "// a change"
test_case "a fixture package reaches itself and Tools, whose tests read it" \
  reaches "Tools Tools/Fixtures/StarWarsAPI Pantry" "paths generated " append Tools/Fixtures/StarWarsAPI/apollo-codegen-config.json ""
test_case "the app's own sources reach the app alone" \
  reaches "Pantry" "paths " append Sources/PantryCLI/Console.swift "// a change"
test_case "a script reaches everything" \
  reaches "$EVERYTHING" "paths imports generated docs openapi fuzz" append scripts/test.sh "# a change"
test_case "CI reaches everything" \
  reaches "$EVERYTHING" "paths imports generated docs openapi fuzz" append .ci/run "# a change"
test_case "Markdown at the root reaches nothing but the path check" \
  reaches "" "paths " append README.md "A change."
test_case "the dev server's copy of the schema reaches Tools and the app, not everything" \
  reaches "Tools Pantry" "paths " append Tools/Sources/DevServer/schema.graphqls "# a change"
test_case "CODEOWNERS reaches Tools, whose schema-check tests read it" \
  reaches "Tools Pantry" "paths " append CODEOWNERS "/Docs/ @apicorekit/core"

# A field added to Household changes HouseholdKit's slice alone.
household_field() {
  replace schema.graphqls 's/^(type Household implements Node \@domain\(name: "household"\) \{)$/$1\n  nickname: String/' 
}
# A field added to PageInfo changes the shared slice: SharedKit, so every kit.
shared_field() {
  replace schema.graphqls 's/^(type PageInfo \@domain\(name: "shared"\) \{)$/$1\n  endCursor: String/' 
}
test_case "schema.graphqls reaches the kits whose slices change, Tools and the app, with the schema check" \
  reaches "HouseholdKit Tools Pantry" "paths generated schema" household_field
test_case "a change to the shared slice of schema.graphqls reaches every kit" \
  reaches "SharedKit UserKit ProductKit HouseholdKit Tools Tools/Fixtures/StarWarsAPI Pantry" "paths generated schema" shared_field

# Uncommitted and untracked files count, as the working tree is what gets tested.
working_tree() {
  local output
  git -C "$REPO" checkout -q -B change base || return 1
  echo "// not committed" >> "$REPO/UserKit/Sources/UserKit/UserService.swift"
  echo "// not tracked" > "$REPO/ProductKit/Sources/ProductKit/New.swift"
  output=$(cd "$REPO" && scripts/test-affected.sh base --list 2>&1)
  git -C "$REPO" checkout -q . && rm -f "$REPO/ProductKit/Sources/ProductKit/New.swift"
  contains "$output" "UserKit/Sources/UserKit/UserService.swift changed" &&
    contains "$output" "ProductKit/Sources/ProductKit/New.swift changed" &&
    contains "$output" "  Pantry "
}
test_case "uncommitted and untracked files are part of the change" working_tree

# The merge base, not the tip of the base ref: what the base branch did since does not count.
merge_base() {
  local output
  git -C "$REPO" checkout -q -B other base && append "$REPO/APICoreKit/Package.swift" "// on the other branch" && commit "$REPO" other || return 1
  git -C "$REPO" checkout -q -B change base && append "$REPO/HouseholdKit/README.md" "More." && commit "$REPO" change || return 1
  output=$(cd "$REPO" && scripts/test-affected.sh other --list 2>&1)
  contains "$output" "  HouseholdKit " && contains "$output" "HouseholdKit/README.md changed" &&
    expect "APICoreKit is not listed" sh -c "! echo \"\$1\" | grep -q '^  APICoreKit '" _ "$output"
}
test_case "changes are taken from the merge base with the base ref" merge_base

refusals() {
  local output status
  output=$(cd "$REPO" && scripts/test-affected.sh no-such-ref --list 2>&1)
  status=$?
  expect "exit status 2" [ $status -eq 2 ] && contains "$output" "'no-such-ref' is not a commit of this repository" || return 1
  output=$(cd "$REPO" && scripts/test-affected.sh 2>&1)
  expect "no base ref is a usage error" [ $? -eq 2 ] && contains "$output" "usage: scripts/test-affected.sh <base-ref> [--list]"
}
test_case "test-affected refuses a ref that is no commit, and a missing one" refusals

# Nothing to test: the path check runs, the summary says so, and the run passes.
nothing() {
  local output
  git -C "$REPO" checkout -q -B change base && append "$REPO/MIGRATION.md" "More." && commit "$REPO" change || return 1
  output=$(cd "$REPO" && scripts/test-affected.sh base 2>&1) || { echo "$output"; return 1; }
  contains "$output" "(no package)" && contains "$output" "check-paths:" && contains "$output" "tests: 0 passed, 0 failed"
}
test_case "a change that reaches no package runs the path check and passes" nothing
finish
