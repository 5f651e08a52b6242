#!/usr/bin/env bash
# Which source files one fetch(.networkOnly) with a normalized cache and one subscription event
# cross, measured: apicore-trace, built with coverage, counts each operation alone.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/trace.sh [--files | --functions | --control]

Builds apicore-trace with code coverage (scratch path APICoreKit/.build-trace) and runs it twice
per operation: up to one fetch(.networkOnly) with a normalized cache (or one subscription event
over graphql-sse), after a first one that warms what is made once, and then with it, over an
in-memory transport. The functions whose execution counts grew between the two runs are those the
operation ran. Prints, for each, the number of APICoreKit source files with such a function
(trace-fetch-files, trace-event-files, with the per-module split); --files lists them,
--functions lists the functions each ran, by file. --control also counts and lists the
control-flow files alone (trace-fetch-control, trace-event-control): those holding an async
function or closure the operation ran, as the demangler reads its type. A file whose functions
the operation ran are all synchronous (JSON, tape, values, records) is a leaf: a reader follows
the path without opening it. GraphQLPipeline.swift's header names the control-flow files of a
fetch in the order the path crosses them (scripts/tests/control-flow-tests.sh compares the two).
The URLSession transport is not in the count (an in-memory transport stands in; over URLSession
add its two files, HTTP/URLSessionTransport.swift and HTTP/Deadline.swift).
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
if listing == "--control":
    import subprocess
    grown = sorted({(name[len(sources):], function) for (function, name), count in end.items() if count > start.get((function, name), 0)})
    # Private symbols are named "File.swift:$s…"; the demangler reads the symbol alone.
    symbols = [function.rsplit(":", 1)[-1] for _, function in grown]
    trees = subprocess.run(["swift", "demangle", "--tree-only"], input="\n".join(symbols), capture_output=True, text=True).stdout
    def parse(text):
        """Each symbol's tree as (kind, children), from the demangler's indented `kind=` lines."""
        roots = []
        stack = []
        for line in text.splitlines():
            if line.startswith("Demangling for"):
                stack = []
                continue
            stripped = line.lstrip(" ")
            if not stripped.startswith("kind="):
                continue
            depth = (len(line) - len(stripped)) // 2
            node = (stripped[5:].split(",")[0], [])
            del stack[depth:]
            if stack:
                stack[-1][1].append(node)
            else:
                roots.append(node)
            stack.append(node)
        return roots
    def is_async(root):
        """Whether the symbol's own function type (not a parameter's, not its context's) is async."""
        entity = root[1][0] if root[1] else root
        while entity[0] in ("Static",) and entity[1]:
            entity = entity[1][0]
        own = [child for child in entity[1] if child[0] == "Type"]
        if not own:
            return False
        node = own[-1][1][0] if own[-1][1] else own[-1]
        while node[0] == "DependentGenericType":
            node = [child for child in node[1] if child[0] == "Type"][0][1][0]
        return node[0].endswith("FunctionType") and any(child[0] == "AsyncAnnotation" for child in node[1])
    roots = parse(trees)
    if len(roots) != len(grown):
        sys.exit(f"trace.sh: the demangler read {len(roots)} of {len(grown)} symbols")
    control = sorted({name for (name, _), root in zip(grown, roots) if is_async(root)})
    split = ", ".join(f"{module} {count}" for module, count in sorted(collections.Counter(n.split("/", 1)[0] for n in control).items()))
    print(f"trace-{operation}-control: {len(control)} ({split})")
    for name in control:
        print(f"  {name}")
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
