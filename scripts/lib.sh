# Shared by the scripts in this folder: the repository root and its packages.
# shellcheck shell=bash
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Every SwiftPM package of the monorepo, in dependency order; "." is the umbrella app.
PACKAGES=(APICoreKit APICoreKit/Integration SharedKit UserKit ProductKit HouseholdKit Tools Tools/Fixtures/StarWarsAPI Tools/Fixtures/GeneratedSamples .)
# The feature kits, which may import only APICore, SharedKit and Foundation.
KITS=(SharedKit UserKit ProductKit HouseholdKit)

package_dir() {
  local name="$1"
  [ "$name" = "." ] || [ "$name" = "Pantry" ] && { echo "$ROOT"; return; }
  [ -f "$ROOT/$name/Package.swift" ] || return 1
  echo "$ROOT/$name"
}

# Packages whose generated code is committed, in generation order (SharedKit first: the kits import it).
GENERATED=(SharedKit UserKit ProductKit HouseholdKit APICoreKit/Integration Tools/Fixtures/StarWarsAPI Tools/Fixtures/GeneratedSamples/Evolution
  Tools/Fixtures/GeneratedSamples/Samples/Seed{1..6})

# Builds apicore-codegen (once per call) and prints its path.
codegen_binary() {
  swift build --package-path "$ROOT/Tools" --product apicore-codegen >&2 || return 1
  echo "$ROOT/Tools/.build/debug/apicore-codegen"
}
