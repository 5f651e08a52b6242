#!/usr/bin/env bash
# Runs the libFuzzer targets with AddressSanitizer for a time budget each; fails on any crash,
# leak, timeout or out-of-memory, prints the input and keeps it as a regression case.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

usage() {
  cat <<USAGE
usage: scripts/fuzz.sh [--merge] <target|all> [seconds]

Builds the fuzz executable of the target's package (release, AddressSanitizer, libFuzzer
coverage; scratch folder .build-fuzz) and runs the target for [seconds] (default 30), starting
from the committed corpus (<package>/Fuzz/Corpus/<target>) and its dictionary.

targets:
  json        APICoreKit: the JSON parser (parse, serialize, parse again)
  response    APICoreKit: response reading of generated operations, every accessor, the cache
  websocket   APICoreKit: graphql-transport-ws and graphql-ws messages
  multipart   APICoreKit: multipart/mixed incremental delivery, any chunking, @defer assembly
  codegen     Tools: operation, schema, introspection, configuration and splitter readers
  codegen-space  Tools: random valid documents from the spec's corners (recursive input objects,
              names that meet in Swift, descriptions everywhere, defaults of every type, @oneOf,
              a directive at every location), each generated and compiled with swiftc against
              APICore (codegen-properties space; no libFuzzer). Seeds start at \$SPACE_FIRST_SEED
              (default: 1000 × today's day of the year; the test suite runs seeds 0-5)
  all         each of them in turn

On a crash, leak, timeout (10 s per input) or out-of-memory (2 GB), prints the input in hex and
base64, saves it to <package>/Fuzz/Regressions/<target>/ (replayed by the normal tests from then
on) and exits 1. Prints executions per second and in total for each target.

  --merge   add the inputs that found new coverage to the committed corpus (for long runs)
USAGE
}

merge=false
if [ "${1:-}" = "--merge" ]; then merge=true; shift; fi
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  "") usage >&2; exit 2 ;;
esac
target_arg=$1
seconds=${2:-30}
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: seconds must be a positive whole number, not '$seconds'" >&2; exit 2; }

package_of() {
  case "$1" in
    json|response|websocket|multipart) echo "APICoreKit apicore-fuzz" ;;
    codegen) echo "Tools codegen-fuzz" ;;
    codegen-space) echo "Tools codegen-properties" ;;
    *) return 1 ;;
  esac
}

# The spec-space run: generation and compilation, seed after seed, for the budget.
space() {
  local first=${SPACE_FIRST_SEED:-$(( 1000 * 10#$(date +%j) ))}
  echo "== fuzz codegen-space: building codegen-properties and APICore (debug, Tools/.build)"
  (cd "$ROOT/Tools" && swift build --product codegen-properties 2>&1 | grep -E 'error|warning: .*Tools/(Sources|Fuzz)') && return 1
  (cd "$ROOT/Tools" && swift build --target APICoreTesting >/dev/null 2>&1)
  echo "== fuzz codegen-space: ${seconds}s from seed $first"
  if "$ROOT/Tools/.build/debug/codegen-properties" space --first "$first" --seeds 1000000 --seconds "$seconds"; then
    echo "fuzz codegen-space: passed"
  else
    echo "fuzz codegen-space: FAILED; the seed above fails (a test: add it to SpecSpaceTests' seeds or a case of its own)"
    return 1
  fi
}

if [ "$target_arg" = codegen-space ]; then
  space
  exit $?
fi
if [ "$target_arg" = all ]; then
  targets=(json response websocket multipart codegen)
else
  package_of "$target_arg" >/dev/null || { echo "fuzz.sh: unknown target '$target_arg'" >&2; usage >&2; exit 2; }
  targets=("$target_arg")
fi

fuzzer_library=$(ls /opt/swift/usr/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -1)
if [ -z "$fuzzer_library" ]; then
  fuzzer_library=$(ls "$(dirname "$(dirname "$(command -v swift)")")"/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-*.a 2>/dev/null | head -1)
fi
[ -n "$fuzzer_library" ] || { echo "fuzz.sh: libclang_rt.fuzzer_no_main is not in this Swift toolchain" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
built=""
status=0

for target in "${targets[@]}"; do
  read -r package product < <(package_of "$target")
  dir="$ROOT/$package"
  if [[ " $built " != *" $package "* ]]; then
    echo "== fuzz: building $product (release, AddressSanitizer, libFuzzer)"
    if ! (cd "$dir" && swift build --scratch-path .build-fuzz -c release --product "$product" --sanitize=address \
        -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp -Xswiftc -DFUZZING \
        -Xlinker "$fuzzer_library" -Xlinker -lstdc++ 2>&1 | grep -vE 'Cannot export local symbol|^\[[0-9]+/[0-9]+\]' ); then
      echo "fuzz.sh: $product does not build" >&2
      exit 1
    fi
    built="$built $package"
  fi

  # GraphQLSwift leaks on every parse (see Tools/Fuzz/lsan.supp), so libFuzzer would run a full
  # leak check after every codegen input (8 inputs/s instead of 100); its leaks are checked once,
  # at exit, with the suppressions instead.
  leak_option=()
  [ "$target" = codegen ] && leak_option=(-detect_leaks=0)
  corpus="$work/corpus-$target"
  artifacts="$work/artifacts-$target"
  mkdir -p "$corpus" "$artifacts"
  cp "$dir/Fuzz/Corpus/$target/"* "$corpus/" 2>/dev/null
  [ -d "$dir/Fuzz/Regressions/$target" ] && cp "$dir/Fuzz/Regressions/$target/"* "$corpus/" 2>/dev/null
  log="$work/$target.log"
  echo "== fuzz $target: ${seconds}s from $(ls "$corpus" | wc -l) inputs"
  # Swift's own crash backtracer is off: libFuzzer and AddressSanitizer print the stack, and the
  # backtracer's memory reads trip AddressSanitizer.
  SWIFT_BACKTRACE=enable=no LSAN_OPTIONS="suppressions=$dir/Fuzz/lsan.supp:print_suppressions=0" \
    "$dir/.build-fuzz/release/$product" "$target" "$corpus" -dict="$dir/Fuzz/Dictionaries/$target.dict" \
    "${leak_option[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts/" -print_final_stats=1 \
    >"$log" 2>&1
  code=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  found=$(ls "$artifacts")
  if [ $code -eq 0 ] && [ -z "$found" ]; then
    echo "fuzz $target: ${executions:-0} executions in ${seconds}s (${per_second:-0}/s), 0 crashes"
  else
    status=1
    echo "fuzz $target: FAILED (exit $code) after ${executions:-?} executions; libFuzzer's report:"
    grep -E 'Fatal error|fuzz invariant|ERROR: |SUMMARY: |^    #[0-9]+ .* in \$s' "$log" | head -40
    echo "-- the end of libFuzzer's output:"
    grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse|INITED|RELOAD)' "$log" | tail -30
    mkdir -p "$dir/Fuzz/Regressions/$target"
    for artifact in $found; do
      echo "-- input $artifact ($(stat -c %s "$artifacts/$artifact") bytes), hex:"
      xxd "$artifacts/$artifact" | head -64
      echo "-- base64:"
      base64 -w 0 "$artifacts/$artifact" | head -c 8192; echo
      cp "$artifacts/$artifact" "$dir/Fuzz/Regressions/$target/$artifact"
      echo "-- saved as $package/Fuzz/Regressions/$target/$artifact; FuzzReplayTests replays it"
    done
  fi
  if $merge; then
    "$dir/.build-fuzz/release/$product" "$target" -merge=1 "$dir/Fuzz/Corpus/$target" "$corpus" >/dev/null 2>&1 \
      && echo "fuzz $target: corpus now $(ls "$dir/Fuzz/Corpus/$target" | wc -l) inputs"
  fi
done
if [ "$target_arg" = all ]; then space || status=1; fi
exit $status
