# Shared by the scripts in this folder: the repository root and its packages.
# shellcheck shell=bash
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Every SwiftPM package of the monorepo, in dependency order; "." is the umbrella app.
PACKAGES=(APICoreKit APICoreKit/Integration SharedKit UserKit ProductKit HouseholdKit Tools Tools/Fixtures/StarWarsAPI Tools/Fixtures/GeneratedSamples .)
# The feature kits, which may import only APICore, SharedKit and Foundation.
KITS=(SharedKit UserKit ProductKit HouseholdKit)

# SwiftPM names the root package after its folder, so a clone in a folder named like a package the
# app depends on (git clone …/APICoreKit) cannot build the app. Exits with a clear message then.
require_buildable_root() {
  local folder
  folder=$(basename "$ROOT")
  case "$(echo "$folder" | tr '[:upper:]' '[:lower:]')" in
    apicorekit|integration|sharedkit|userkit|productkit|householdkit|tools)
      echo "error: this repository cannot build in a folder named '$folder': SwiftPM names the root package after its folder, and then it hides the package '$folder' that the app depends on. Clone it into a folder of another name (git clone <url> pantry) or rename this one." >&2
      exit 2 ;;
  esac
}

package_dir() {
  local name="$1"
  [ "$name" = "." ] || [ "$name" = "Pantry" ] && { echo "$ROOT"; return; }
  [ -f "$ROOT/$name/Package.swift" ] || return 1
  echo "$ROOT/$name"
}

# Packages whose generated code is committed, in generation order (SharedKit first: the kits import it).
GENERATED=(SharedKit UserKit ProductKit HouseholdKit APICoreKit/Integration APICoreKit/Integration/Interop/hasura Tools/Fixtures/StarWarsAPI Tools/Fixtures/GeneratedSamples/Evolution
  Tools/Fixtures/GeneratedSamples/Samples/Seed{1..6} APICoreKit/Benchmarks/apicore-json-bench APICoreKit/Benchmarks/GitHubOperations)

# Builds apicore-codegen (once per call) and prints its path; $APICORE_CODEGEN names one already
# built instead (the scripts' own tests pass theirs to the scratch repositories they make).
codegen_binary() {
  if [ -n "${APICORE_CODEGEN:-}" ]; then
    [ -x "$APICORE_CODEGEN" ] || { echo "APICORE_CODEGEN=$APICORE_CODEGEN is not an executable" >&2; return 1; }
    echo "$APICORE_CODEGEN"
    return
  fi
  swift build --package-path "$ROOT/Tools" --product apicore-codegen >&2 || return 1
  echo "$ROOT/Tools/.build/debug/apicore-codegen"
}

# Edits a file in place with sed's arguments (BSD sed, macOS's, has no `-i` without a suffix); the
# file keeps its mode.
edit_file() {
  local file="$1" edited
  shift
  edited=$(mktemp) || return 1
  sed "$@" "$file" > "$edited" && cat "$edited" > "$file"
  local status=$?
  rm -f "$edited"
  return $status
}

# split-schema's options (run from the root): the split config, when a kit's folder is not <Domain>Kit (new-kit.sh writes it).
split_config_args() {
  [ -f "$ROOT/schema-split.json" ] && echo "--config schema-split.json"
  return 0
}

# Runs a test suite and prints its result, as test-all.sh and test-affected.sh do: the checks named in
# SUITE_CHECKS (paths, imports, generated, schema:<ref>), scripts/test.sh for each package in
# SUITE_PACKAGES ("scripts" runs scripts/test-scripts.sh), then the steps in SUITE_AFTER (docs, openapi, fuzz). Ends with what failed and a
# line 'tests: N passed, M failed'; returns non-zero when anything failed.
run_suite() {
  local log step package start passed failed
  local failed_steps=()
  log=$(mktemp)
  for step in ${SUITE_CHECKS[@]+"${SUITE_CHECKS[@]}"}; do
    case "$step" in
      paths) "$ROOT/scripts/check-paths.py" || failed_steps+=("paths outside the repository") ;;
      imports) "$ROOT/scripts/check-imports.sh" || failed_steps+=("imports") ;;
      generated) "$ROOT/scripts/check-generated.sh" || failed_steps+=("generated code") ;;
      schema:*) "$ROOT/scripts/schema-check.sh" "${step#schema:}" || failed_steps+=("schema change") ;;
    esac
  done
  for package in ${SUITE_PACKAGES[@]+"${SUITE_PACKAGES[@]}"}; do
    start=$SECONDS
    local command=("$ROOT/scripts/test.sh" "$package")
    # "scripts": the scripts' own tests (new-kit.sh, test-affected.sh over scratch repositories).
    [ "$package" = scripts ] && command=("$ROOT/scripts/test-scripts.sh")
    if "${command[@]}" 2>&1 | tee -a "$log"; then
      echo "== ${package/#./Pantry}: passed in $((SECONDS - start))s"
    else
      echo "== ${package/#./Pantry}: FAILED in $((SECONDS - start))s"
      failed_steps+=("${package/#./Pantry}")
    fi
  done
  for step in ${SUITE_AFTER[@]+"${SUITE_AFTER[@]}"}; do
    start=$SECONDS
    case "$step" in
      docs) set -- "documentation" "built" "$ROOT/scripts/docs.sh" ;;
      openapi) set -- "OpenAPI conformance" "passed" "$ROOT/scripts/openapi-conformance.sh" ;;
      fuzz) set -- "fuzz" "passed" "$ROOT/scripts/fuzz.sh" all "${FUZZ_SECONDS:-30}" ;;
      *) continue ;;
    esac
    local label="$1" done_word="$2"
    shift 2
    if "$@"; then
      echo "== $label: $done_word in $((SECONDS - start))s"
    else
      echo "== $label: FAILED in $((SECONDS - start))s"
      failed_steps+=("$label")
    fi
  done
  passed=$(grep -cE '^✔ Test ".*" (with [0-9]+ test cases )?passed after' "$log" || true)
  failed=$(grep -cE '^✘ Test ".*" (with [0-9]+ test cases )?failed after' "$log" || true)
  echo
  if [ ${#failed_steps[@]} -gt 0 ]; then
    # CI keeps only the end of the output: repeat what failed, and why, here.
    grep -E '^✘ |recorded an issue|Expectation failed|error:' "$log" | cut -c1-400 | head -40
    echo "${SUITE_NAME:-suite}: failed: ${failed_steps[*]}"
  fi
  rm -f "$log"
  echo "tests: $passed passed, $failed failed"
  [ ${#failed_steps[@]} -eq 0 ]
}
