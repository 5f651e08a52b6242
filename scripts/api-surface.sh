#!/usr/bin/env bash
# Counts what `import APICore` shows a kit: public declarations not behind @_spi, from the
# compiler's symbol graph (declarations written in APICore's sources; the ones the compiler
# synthesizes, such as `!=`, are left out), and `package` declarations, from the sources.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/api-surface.sh [--by-file]

Builds APICoreKit's symbol graphs (swift package dump-symbol-graph, scratch path
.build-symbolgraph) and prints api-public-declarations (public and open, not @_spi, declared in
APICore's sources) and api-package-declarations (lines declaring a 'package' symbol in
APICore's sources). --by-file adds the public count per file.
USAGE
  exit 0
fi

scratch="$ROOT/APICoreKit/.build-symbolgraph"
# (Test modules the extractor cannot read are reported and skipped; only APICore's graph counts.)
(cd "$ROOT/APICoreKit" && swift package --scratch-path "$scratch" dump-symbol-graph >/dev/null 2>&1) || true
graph=$(find "$scratch" -path '*symbolgraph/APICore.symbols.json' | head -1)
[ -n "$graph" ] || { echo "api-surface: no symbol graph for APICore under $scratch" >&2; exit 1; }
python3 - "$graph" "${1:-}" <<'PY'
import collections, json, sys
symbols = json.load(open(sys.argv[1]))["symbols"]
own = [s for s in symbols if s.get("accessLevel") in ("public", "open") and not s.get("spi") and "location" in s]
print(f"api-public-declarations: {len(own)}")
if sys.argv[2] == "--by-file":
    for name, count in collections.Counter(s["location"]["uri"].rsplit("/", 1)[-1] for s in own).most_common():
        print(f"  {count:4d} {name}")
PY
count=$(grep -rhE '^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*package[[:space:]]+(static[[:space:]]+|final[[:space:]]+|nonisolated[[:space:]]+|mutating[[:space:]]+|indirect[[:space:]]+)*(func|var|let|init|struct|enum|class|actor|protocol|typealias|subscript|extension|case)\b' \
  "$ROOT/APICoreKit/Sources/APICore" --include='*.swift' | wc -l)
echo "api-package-declarations: $count"
