#!/usr/bin/env bash
# Runs APICoreKit's tests (its own and Integration's, against real servers) under ThreadSanitizer
# and under AddressSanitizer, each in its own scratch folder, and reports the counts.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/sanitize.sh [thread|address]...

Builds and runs the tests of APICoreKit and APICoreKit/Integration with --sanitize=thread (scratch folder .build-tsan) and
--sanitize=address (.build-asan); both by default. Integration's HTTP and subscription suites run a
second time over AsyncHTTPClient's transport, as in scripts/test.sh. Prints 'sanitize <kind>: N passed, M failed'
for each package, and any data race, memory error or leak report; exits 1 if either fails.
USAGE
  exit 0
fi

kinds=("$@")
[ ${#kinds[@]} -eq 0 ] && kinds=(thread address)
status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    thread) scratch=.build-tsan ;;
    address) scratch=.build-asan ;;
    *) echo "sanitize.sh: unknown sanitizer '$kind' (thread or address)" >&2; exit 2 ;;
  esac
  # Integration twice, as scripts/test.sh does: then its HTTP and subscription suites over
  # AsyncHTTPClient's transport.
  for run in APICoreKit APICoreKit/Integration APICoreKit/Integration:asynchttpclient; do
    package=${run%%:*}
    transport=urlsession
    filter=()
    if [ "$run" != "$package" ]; then
      transport=${run#*:}
      filter=(--filter 'APICoreLiveTests|APICoreSubscriptionTests')
    fi
    # ThreadSanitizer slows every thread several times over: the WebSocket suites' handshakes (acks
    # due within 3 s) then miss their time when all suites run at once on two cores. One at a time.
    parallel=()
    [ "$kind" = thread ] && parallel=(--no-parallel)
    log=$(mktemp)
    start=$SECONDS
    echo "== sanitize $kind: build and test $package (over $transport)"
    # Leaks are reported by AddressSanitizer at exit; APICoreKit/Tests/lsan.supp lists the reports
    # that are not ours, each with its reason.
    (cd "$ROOT/$package" && APICORE_TEST_TRANSPORT=$transport TSAN_OPTIONS="halt_on_error=0" \
      LSAN_OPTIONS="suppressions=$ROOT/APICoreKit/Tests/lsan.supp:print_suppressions=0" \
      swift test --scratch-path "$scratch" --sanitize="$kind" ${filter[@]+"${filter[@]}"} ${parallel[@]+"${parallel[@]}"} 2>&1) >"$log"
    code=$?
    passed=$(grep -cE '^✔ Test ".*" (with [0-9]+ test cases )?passed after' "$log" || true)
    failed=$(grep -cE '^✘ Test ".*" (with [0-9]+ test cases )?failed after' "$log" || true)
    reports=$(grep -cE 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer' "$log" || true)
    echo "sanitize $kind, $package over $transport: $passed passed, $failed failed, $reports sanitizer reports, exit $code, $((SECONDS - start))s"
    if [ "$code" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$reports" -ne 0 ]; then
      status=1
      grep -E -A30 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer' "$log" | head -200
      grep -E '^✘|error:' "$log" | head -40
    fi
    rm -f "$log"
  done
done
exit $status
