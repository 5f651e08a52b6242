#!/usr/bin/env bash
# Which source files one fetch(.networkOnly) with a normalized cache and one subscription event
# cross, measured: apicore-trace, built with coverage, counts each operation alone.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/trace.sh [--files | --functions]

Builds apicore-trace with code coverage (scratch path APICoreKit/.build-trace) and runs it twice
per operation: up to one fetch(.networkOnly) with a normalized cache (or one subscription event
over graphql-sse), after a first one that warms what is made once, and then with it, over an
in-memory transport. The functions whose execution counts grew between the two runs are those the
operation ran. Prints, for each, the number of APICoreKit source files with such a function
(trace-fetch-files, trace-event-files, with the per-module split); --files lists them,
--functions lists the functions each ran, by file. The URLSession transport is
not in the count (an in-memory transport stands in; over URLSession add its two files,
HTTP/URLSessionTransport.swift and HTTP/Deadline.swift).
USAGE
  exit 0
fi

scratch="$ROOT/APICoreKit/.build-trace"
(cd "$ROOT/APICoreKit" && swift build --product apicore-trace --scratch-path "$scratch" \
  -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping >/dev/null)
binary="$scratch/debug/apicore-trace"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
for operation in fetch event; do
  for run in before with; do
    flag=$([ "$run" = with ] && echo --measure || true)
    LLVM_PROFILE_FILE="$out/$operation-$run.profraw" "$binary" "$operation" $flag >/dev/null 2>&1
    "$toolchain/llvm-profdata" merge -o "$out/$operation-$run.profdata" "$out/$operation-$run.profraw"
    "$toolchain/llvm-cov" export -skip-expansions -instr-profile "$out/$operation-$run.profdata" "$binary" > "$out/$operation-$run.json"
  done
  python3 - "$out/$operation-before.json" "$out/$operation-with.json" "$operation" "$ROOT/APICoreKit/Sources/" "${1:-}" <<'PY'
import collections, json, sys
before, after, operation, sources, listing = sys.argv[1:6]
def counts(path):
    functions = json.load(open(path))["data"][0]["functions"]
    return {(f["name"], f["filenames"][0]): f["count"] for f in functions if f["filenames"][0].startswith(sources)}
start, end = counts(before), counts(after)
files = sorted({name[len(sources):] for (function, name), count in end.items() if count > start.get((function, name), 0)})
modules = collections.Counter(name.split("/", 1)[0] for name in files)
split = ", ".join(f"{module} {count}" for module, count in sorted(modules.items()))
print(f"trace-{operation}-files: {len(files)} ({split})")
if listing == "--functions":
    import subprocess
    grown = sorted((name[len(sources):], function) for (function, name), count in end.items() if count > start.get((function, name), 0))
    names = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(f for _, f in grown), capture_output=True, text=True).stdout.splitlines()
    for (name, _), readable in zip(grown, names):
        print(f"  {name}: {readable[:150]}")
if listing == "--files":
    for name in files:
        print(f"  {name}")
PY
done
