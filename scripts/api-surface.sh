#!/usr/bin/env bash
# Counts what APICore exports, as the compiler sees it: its symbol graphs (APICore's own and the
# extension graphs for other modules' types, such as APICore@Swift), public declarations apart
# from @_spi ones, enum cases among them, and package declarations. The one counter the docs quote.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/api-surface.sh [--by-file]

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
--by-file adds the public count per file.
USAGE
  exit 0
fi

scratch="$ROOT/APICoreKit/.build-symbolgraph"
# (Test modules the extractor cannot read are reported and skipped; only APICore's graphs count.)
(cd "$ROOT/APICoreKit" && swift package --scratch-path "$scratch" dump-symbol-graph --minimum-access-level package --include-spi-symbols \
  >/dev/null 2>&1) || true
graph=$(find "$scratch" -path '*symbolgraph/APICore.symbols.json' | head -1)
[ -n "$graph" ] || { echo "api-surface: no symbol graph for APICore under $scratch" >&2; exit 1; }
python3 - "$graph" "${1:-}" <<'PY'
import collections, glob, json, os, sys
own_graph, listing = sys.argv[1], sys.argv[2]
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
if listing == "--by-file":
    for name, count in collections.Counter(s["location"]["uri"].split("/Sources/APICore/", 1)[-1] for s in public(own + extensions)).most_common():
        print(f"  {count:4d} {name}")
PY
