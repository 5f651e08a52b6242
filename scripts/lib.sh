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
GENERATED=(SharedKit UserKit ProductKit HouseholdKit APICoreKit/Integration Tools/Fixtures/StarWarsAPI Tools/Fixtures/GeneratedSamples/Evolution
  Tools/Fixtures/GeneratedSamples/Samples/Seed{1..6})

# Builds apicore-codegen (once per call) and prints its path.
codegen_binary() {
  swift build --package-path "$ROOT/Tools" --product apicore-codegen >&2 || return 1
  echo "$ROOT/Tools/.build/debug/apicore-codegen"
}
