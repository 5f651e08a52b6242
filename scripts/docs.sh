#!/usr/bin/env bash
# Builds APICore's documentation (its DocC catalog: articles and reference) with swift-docc-plugin.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

usage() {
  cat <<USAGE
usage: scripts/docs.sh [--preview] [output-folder]

Builds the DocC documentation of APICore — the articles in
APICoreKit/Sources/APICore/APICore.docc and the reference of every public symbol — with
swift-docc-plugin, as a static website in output-folder (default APICoreKit/.build-docs/site;
open index.html through any static file server, or host the folder). Fails on any DocC warning
(a broken symbol link, an article not reachable from the landing page). --preview serves it at
http://localhost:8080/documentation/apicore instead, until Ctrl-C.

The articles' Swift samples are compiled and their tests run by APICoreKit's DocSampleTests
(scripts/test.sh APICoreKit), not here.
USAGE
}

preview=false
output="$ROOT/APICoreKit/.build-docs/site"
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --preview) preview=true ;;
    -*) echo "docs.sh: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
    *) output="$(mkdir -p "$arg" && cd "$arg" && pwd)" ;;
  esac
done

# The plugin is a dependency only when APICOREKIT_DOCS is set (kits never resolve it), and builds
# in a scratch folder of its own so the normal build's plan is left alone.
export APICOREKIT_DOCS=1
swift_package=(swift package --package-path "$ROOT/APICoreKit" --scratch-path "$ROOT/APICoreKit/.build-docs" --disable-sandbox)
if $preview; then
  exec "${swift_package[@]}" preview-documentation --target APICore
fi
mkdir -p "$output"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "${swift_package[@]}" --allow-writing-to-directory "$output" generate-documentation --target APICore \
    --output-path "$output" --transform-for-static-hosting --hosting-base-path APICore --warnings-as-errors >"$log" 2>&1; then
  grep -vE "swift-distributed-tracing|CMakeLists" "$log" | tail -40 >&2
  echo "docs.sh: the documentation does not build (see above)" >&2
  exit 1
fi
articles=$(find "$ROOT/APICoreKit/Sources/APICore/APICore.docc" -name '*.md' ! -name 'APICore.md' | wc -l)
echo "docs.sh: APICore's documentation ($articles articles and the reference) is in $output; open documentation/apicore/index.html"
