#!/usr/bin/env bash
# Builds and tests one package of the monorepo on its own, with its own .build.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

usage() {
  cat <<USAGE
usage: scripts/test.sh <package>

Builds <package> with its tests (failing on any compiler warning in this repository's own
sources), then runs 'swift test' in it. For APICoreKit/Integration, the HTTP and subscription
suites then run a second time over AsyncHTTPClient's transport (APICORE_TEST_TRANSPORT), and
'scripts/stress.sh flood' once (endless answers against resident memory, each in a process).

packages: ${PACKAGES[*]/#./Pantry}   ("." or "Pantry" is the umbrella app)
USAGE
}

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  "") usage >&2; exit 2 ;;
esac

dir=$(package_dir "$1") || { echo "test.sh: unknown package '$1'" >&2; usage >&2; exit 2; }
[ "$dir" != "$ROOT" ] || require_buildable_root
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== $1: build"
build() { (cd "$dir" && swift build --build-tests 2>&1) | tee "$log"; }
if ! build; then
  # A build folder from before files moved in a package this one depends on lists the old paths
  # ("missing inputs"); SwiftPM plans the build again once its description is gone.
  if grep -q "because of missing inputs" "$log"; then
    echo "test.sh: $1's build plan names files that moved; planning the build again"
    find "$dir/.build" -maxdepth 3 -name description.json -path '*/debug/*' -delete
    build || { echo "test.sh: $1 does not build" >&2; exit 1; }
  else
    echo "test.sh: $1 does not build" >&2
    exit 1
  fi
fi
# Warnings in our own sources fail the build; dependencies' warnings are theirs. (A DocC
# article's Swift samples are compiled under the article's own path: `.md`.)
warnings=$(grep -E '^/[^ ]+\.(swift|md):[0-9]+:[0-9]+: warning:' "$log" | grep -F "$ROOT/" | grep -vF '/.build' | sort -u || true)
if [ -n "$warnings" ]; then
  echo "$warnings"
  echo "test.sh: $1 has $(echo "$warnings" | wc -l) compiler warning(s) in its own sources" >&2
  exit 1
fi

echo "== $1: test"
(cd "$dir" && swift test --skip-build 2>&1) || exit 1
# The transport suite, run twice: the HTTP and subscription suites again over AsyncHTTPClient's
# transport (the first run was over URLSession's).
if [ "$dir" = "$ROOT/APICoreKit/Integration" ]; then
  echo "== $1: test over AsyncHTTPClient"
  (cd "$dir" && APICORE_TEST_TRANSPORT=asynchttpclient swift test --skip-build --filter 'APICoreLiveTests|APICoreSubscriptionTests' --skip FaultMatrixTests 2>&1) || exit 1
  # Resident memory is a process's own: each endless answer, over each transport, in a process of
  # its own. A guard against growth by the gigabyte, in the debug build (high water at most the
  # bound plus 64 MiB); 'scripts/stress.sh flood' holds release builds to the bound plus 32 MiB.
  echo "== $1: endless answers against resident memory"
  "$ROOT/scripts/stress.sh" flood --rounds 1 --no-load --debug --allowance 64
fi
