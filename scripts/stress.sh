#!/usr/bin/env bash
# Stress runs that take too long for the test command, with what they print and what they hold to.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

usage() {
  cat <<USAGE
usage: scripts/stress.sh flood [--rounds N] [--no-load] [--debug] [--allowance MiB]

flood   Answers that never end, against the client's memory: a GraphQL answer (8 MiB bound), a
        graphql-sse event and a multipart part (4 MiB bounds), over URLSession and over
        AsyncHTTPClient, from the loopback server in a child process. Each run is a process of its
        own, so its high-water resident size (VmHWM) is that answer's alone; prints, for each
        transport and answer, the bound and the worst rise above the size before the request over
        N runs (20), with every core kept busy (--no-load: without). Fails when a rise passes the
        bound plus the allowance (32 MiB). --debug uses the debug build the tests built instead of
        a release build; its readers are slower, so more chunks wait for them (up to 37 MiB over
        an SSE event's bound once under load, against 22 in release). The test command runs it
        once as a guard against growth by the gigabyte (--rounds 1 --no-load --debug --allowance
        64, about 10 s); the figures that hold the bound are this script's, in release.
USAGE
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
case "$1" in
  -h|--help) usage; exit 0 ;;
  flood) shift ;;
  *) echo "stress.sh: unknown run '$1'" >&2; usage >&2; exit 2 ;;
esac

rounds=20 load=1 configuration=release allowance=32
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    --no-load) load=0; shift ;;
    --debug) configuration=debug; shift ;;
    --allowance) allowance=${2:?--allowance needs MiB}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "stress.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

package="$ROOT/APICoreKit/Integration"
if [ "$configuration" = release ]; then
  swift build -c release --package-path "$package" --product apicore-bench >&2 || exit 1
fi
bench="$package/.build/$configuration/apicore-bench"
[ -x "$bench" ] || { echo "stress.sh: no $bench (build APICoreKit/Integration first)" >&2; exit 1; }

output=$(APICOREKIT_FLOOD_ROUNDS=$rounds APICOREKIT_FLOOD_LOAD=$load "$bench" flood 2>/dev/null) || {
  echo "$output"
  echo "stress.sh: the flood run failed" >&2
  exit 1
}
echo "$output"
# Each answer's worst rise against its bound plus the allowance.
echo "$output" | awk -F': ' -v allowance="$allowance" '
  /-bound-mb: / { name = $1; sub(/-bound-mb$/, "", name); bound[name] = $2 }
  /-worst-growth-mb: / { name = $1; sub(/-worst-growth-mb$/, "", name); growth[name] = $2 }
  END {
    count = 0; over = 0
    for (name in growth) {
      count++
      if (growth[name] + 0 > bound[name] + allowance) { printf "stress.sh: %s rose %s MiB, over its bound of %s MiB plus %s\n", name, growth[name], bound[name], allowance > "/dev/stderr"; over++ }
    }
    if (count != 6) { printf "stress.sh: expected 6 figures, got %d\n", count > "/dev/stderr"; exit 1 }
    exit over > 0
  }'
