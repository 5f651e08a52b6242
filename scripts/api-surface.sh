#!/usr/bin/env bash
# Counts what APICore exports, as the compiler sees it: its symbol graphs (APICore's own and the
# extension graphs for other modules' types, such as APICore@Swift), public declarations apart
# from @_spi ones, enum cases among them, and package declarations. The one counter the docs quote.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/api-surface.sh [--by-file | --users]

Builds APICoreKit's symbol graphs (swift package dump-symbol-graph with package access and SPI
symbols, scratch path .build-symbolgraph) and counts the declarations written in APICore's sources
(the ones the compiler synthesizes, such as \`!=\`, are left out), in APICore.symbols.json and in
the extension graphs (APICore@Swift.symbols.json: public members APICore declares on other
modules' types):
  api-public-declarations   public or open, not @_spi, in APICore's own graph (the count the
                            issues quote; enum cases included)
  api-public-extensions     the same, declared on other modules' types
  api-public-enum-cases     how many of the public declarations are enum cases
  api-spi-declarations      public behind @_spi (Engine, Generated, Tools), both graphs
  api-package-declarations  package access, both graphs
  api-public-without-user   public declarations whose name appears nowhere a user of APICore
                            writes: the kits (their generated code included), the app, the
                            engine and transports (APICoreLive, APICoreSQLite, APICoreWebSocket,
                            APICoreOpenAPI, APICoreAsyncHTTPClient), APICoreTesting, the code the
                            generator writes (Tools/Sources), or the DocC articles, whose samples
                            DocSampleTests compiles. A type counts as used when one of its
                            members (other than an initializer) is. The script's HOOKS
                            (public for generated code's sake, named by no user) are counted
                            apart, as api-public-hooks.
--by-file adds the public count per file; --users lists those without a user.
USAGE
  exit 0
fi

scratch="$ROOT/APICoreKit/.build-symbolgraph"
# (Test modules the extractor cannot read are reported and skipped; only APICore's graphs count.)
(cd "$ROOT/APICoreKit" && swift package --scratch-path "$scratch" dump-symbol-graph --minimum-access-level package --include-spi-symbols \
  >/dev/null 2>&1) || true
graph=$(find "$scratch" -path '*symbolgraph/APICore.symbols.json' | head -1)
[ -n "$graph" ] || { echo "api-surface: no symbol graph for APICore under $scratch" >&2; exit 1; }
users=$(mktemp)
trap 'rm -f "$users"' EXIT
(cd "$ROOT" && git ls-files -- '*.swift' 'APICoreKit/Sources/APICore/APICore.docc/*.md' \
  | grep -vE '^APICoreKit/Sources/APICore/.*\.swift$|/Tests/|Benchmarks/|^APICoreKit/Fuzz/' \
  | while IFS= read -r file; do cat "$file"; echo; done) > "$users"
python3 - "$graph" "${1:-}" "$users" <<'PY'
import collections, glob, json, os, re, sys
own_graph, listing, users = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
extension_graphs = sorted(glob.glob(os.path.join(os.path.dirname(own_graph), "APICore@*.symbols.json")))
def written(path):
    """The symbols of a graph that APICore's sources declare."""
    return [s for s in json.load(open(path))["symbols"] if "location" in s and "/Sources/APICore/" in s["location"]["uri"]]
own = written(own_graph)
extensions = [s for path in extension_graphs for s in written(path)]
def public(symbols): return [s for s in symbols if s.get("accessLevel") in ("public", "open") and not s.get("spi")]
def spi(symbols): return [s for s in symbols if s.get("accessLevel") in ("public", "open") and s.get("spi")]
def package(symbols): return [s for s in symbols if s.get("accessLevel") == "package"]
print(f"api-public-declarations: {len(public(own))}")
print(f"api-public-extensions: {len(public(extensions))} ({', '.join(os.path.basename(p)[len('APICore@'):-len('.symbols.json')] for p in extension_graphs) or 'none'})")
print(f"api-public-enum-cases: {sum(s['kind']['identifier'] == 'swift.enum.case' for s in public(own + extensions))}")
print(f"api-spi-declarations: {len(spi(own + extensions))}")
print(f"api-package-declarations: {len(package(own + extensions))}")
def named(symbol):
    """Whether the declaration's name appears in what APICore's users write (initializers,
    operators and subscripts are used through their type, and count as named)."""
    if symbol["kind"]["identifier"] in ("swift.init", "swift.func.op", "swift.subscript", "swift.associatedtype"):
        return True
    name = re.split(r"[(<]", symbol["pathComponents"][-1])[0]
    return re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", users) is not None
visible = public(own + extensions)
# A type is used when it is named, or when a member of it is (an enum that an error's property
# answers, whose cases a user matches).
used_members = {tuple(s["pathComponents"][:-1]) for s in visible if named(s) and s["kind"]["identifier"] not in ("swift.init",)}
def has_user(symbol):
    path = tuple(symbol["pathComponents"])
    return named(symbol) or any(member[:len(path)] == path for member in used_members)
# Hooks: public because generated code or the conformances kits write need them, though no user
# names them. Kept short; each says why.
HOOKS = {
    "GraphQLInputValue": "what CustomScalarType, input objects, enums and files refine, and what "
    "GraphQLNullable's and lists' input serialization is written over",
}
without = sorted(".".join(s["pathComponents"]) for s in visible if not has_user(s))
hooks = [name for name in without if name in HOOKS]
without = [name for name in without if name not in HOOKS]
print(f"api-public-hooks: {len(hooks)}")
print(f"api-public-without-user: {len(without)}")
if listing == "--users":
    for name in hooks:
        print(f"  hook {name}: {HOOKS[name]}")
    for name in without:
        print(f"  without a user: {name}")
if listing == "--by-file":
    for name, count in collections.Counter(s["location"]["uri"].split("/Sources/APICore/", 1)[-1] for s in public(own + extensions)).most_common():
        print(f"  {count:4d} {name}")
PY
