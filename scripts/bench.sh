#!/usr/bin/env bash
# The one entry point for benchmarks: release builds, figures printed one per line as
# 'name: value'. Ratios are measured side by side in one run, never against a stored number.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

usage() {
  cat <<USAGE
usage: scripts/bench.sh <suite>...

suites:
  e2e    a ~50 KB GraphQL query through APIClient vs a bare URLSession POST + JSONDecoder
         on the same loopback server: e2e-overhead-ratio (target <= 1.15),
         e2e-requests-per-second (32 concurrent callers), and a decode-only breakdown
  codegen  a synthesized schema of 3,001 types and 200 operations: codegen-seconds,
         generated-lines, lines-per-selected-field, compile-seconds (debug build of the
         generated module alone)
  cache  a 2 MB response of 11,200 objects: parse alone (JSONSerialization), parse + check and
         record (one walk) + write, and read back into typed data, in memory and in SQLite (rounds
         alternate; targets memory-write-ratio <= 1.0, sqlite-write-ratio <= 1.5), and a cache
         hit through the client's fetch(.cacheOnly), as ratios to parsing; microseconds per
         record; 1,000 watchers and a write touching one record; optimistic-write-us, a
         one-record optimistic response until its watcher yields, beside plain-write-us (the
         same record written with writeQuery); then, against the loopback server,
         queue-replay-per-second (100 renames queued with the server stopped, replayed when it
         is back) beside sequential-perform-per-second (the same renames performed in turn)
  cache-scale  stores of 10 k, 100 k and 1 M records built from pages of a list query, in memory
         and in SQLite, each size in a child process, medians of 3 rounds (about 5 minutes):
         write and read us per record, resident and SQLite bytes per record, a cold open, a
         garbage collection, 10,000 watchers woken by a one-record write; then growth-* (each
         figure at 1 M over 10 k, target < 1.2) and exponent-* (collection time, 1.0 is linear).
         Other sizes: APICOREKIT_SCALE_SIZES=10000,100000
  subscriptions  one subscription fed by the loopback server as fast as it can (20,000 events
         of ~200 bytes a round): subscription-messages-per-second, and subscription-ratio, our
         time per event into a typed value over a bare WebSocket client's time to receive and
         JSON-parse the same frames; subscription-with-cache-write-ratio, the same with a cache;
         then sse-ratio, the same events over graphql-sse (one pre-rendered text/event-stream
         body) through the SSE channel over a bare URLSession POST that reads the body and
         JSON-parses each event (target <= 1.2)
  defer  a ~50 KB catalog answered as one first part and ten @defer increments vs the same
         data in one JSON body, both served as pre-rendered bytes by the loopback server:
         defer-ratio, time to the final result over the whole answer's (target <= 1.3), and
         defer-first-result-ms beside defer-whole-json-ms
  pagination  100 pages of 50 catalog items from the loopback server: pager-ratio, the time per
         page through GraphQLPager (pages cached apart) over plain fetch(.networkOnly) calls
         (target <= 1.2), pager-merged-ratio for the same pages merged in the cache (a connection
         field), and with 5,000 items loaded, list-update-ms and list-update-merged-ms, from a
         one-item change in the cache to the pager's list showing it
USAGE
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
for suite in "$@"; do
  case "$suite" in
    -h|--help) usage; exit 0 ;;
    e2e|subscriptions|defer|pagination)
      swift build -c release --package-path "$ROOT/APICoreKit/Integration" --product apicore-bench >&2
      "$ROOT/APICoreKit/Integration/.build/release/apicore-bench" "$suite"
      ;;
    cache)
      swift build -c release --package-path "$ROOT/APICoreKit" --product apicore-cache-bench >&2
      "$ROOT/APICoreKit/.build/release/apicore-cache-bench"
      swift build -c release --package-path "$ROOT/APICoreKit/Integration" --product apicore-bench >&2
      "$ROOT/APICoreKit/Integration/.build/release/apicore-bench" queue
      ;;
    cache-scale)
      swift build -c release --package-path "$ROOT/APICoreKit" --product apicore-cache-bench >&2
      "$ROOT/APICoreKit/.build/release/apicore-cache-bench" scale --sizes "${APICOREKIT_SCALE_SIZES:-10000,100000,1000000}"
      ;;
    codegen)
      swift build -c release --package-path "$ROOT/Tools" --product codegen-bench >&2
      "$ROOT/Tools/.build/release/codegen-bench" --apicorekit "$ROOT/APICoreKit"
      ;;
    *) echo "bench.sh: unknown suite '$suite'" >&2; usage >&2; exit 2 ;;
  esac
done
