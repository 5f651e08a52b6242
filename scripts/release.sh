#!/usr/bin/env bash
# Releases one kit: clean tree, its tests alone, a public-API comparison with its previous
# release, a CHANGELOG entry, a commit and a tag <Kit>/<version>.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

usage() {
  cat <<USAGE
usage: scripts/release.sh <kit> <version> [--dry-run]

Releases <kit> (${KITS[*]} or APICoreKit) as <version> (semver, e.g. 1.4.0):
  1. refuses a dirty work tree and an existing tag <kit>/<version>;
  2. runs the kit's tests alone (scripts/test.sh <kit>);
  3. compares the kit's public API with its previous release tag, symbol by symbol (from
     'swift package dump-symbol-graph'; 'diagnose-api-breaking-changes' cannot check out a package
     that lives in a subfolder of a repository). Removed or changed symbols need a major version
     (a minor one below 1.0); added symbols need at least a minor one;
  4. moves the CHANGELOG's "Unreleased" notes under the version, with the API changes;
  5. commits and tags <kit>/<version>.
--dry-run stops after step 3.
USAGE
}

dry_run=false
args=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --dry-run) dry_run=true ;;
    *) args+=("$arg") ;;
  esac
done
[ ${#args[@]} -eq 2 ] || { usage >&2; exit 2; }
kit=${args[0]}
version=${args[1]}
case " ${KITS[*]} APICoreKit " in *" $kit "*) ;; *) echo "release.sh: '$kit' is not a kit (${KITS[*]} APICoreKit)" >&2; exit 2 ;; esac
[[ "$version" =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || { echo "release.sh: '$version' is not a version like 1.4.0" >&2; exit 2; }
major=${BASH_REMATCH[1]}; minor=${BASH_REMATCH[2]}; patch=${BASH_REMATCH[3]}
tag="$kit/$version"

cd "$ROOT"
if [ -n "$(git status --porcelain)" ]; then
  echo "release.sh: the work tree has uncommitted changes; commit or stash them first:" >&2
  git status --short >&2
  exit 1
fi
if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
  echo "release.sh: tag $tag exists already" >&2
  exit 1
fi
previous=$(git tag --list "$kit/*" | sed "s|^$kit/||" | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1 || true)
if [ -n "$previous" ]; then
  newest=$(printf '%s\n%s\n' "$previous" "$version" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
  if [ "$newest" != "$version" ] || [ "$previous" = "$version" ]; then
    echo "release.sh: $version is not after the previous release $previous" >&2
    exit 1
  fi
fi

echo "== $kit: tests"
"$ROOT/scripts/test.sh" "$kit"

# The public symbols of the package in $1 (module $2), one per line: kind, path, declaration.
symbols() {
  local dir=$1 module=$2
  # It also tries the package's test modules, which a fresh checkout has not built, and then fails;
  # what counts is the kit's own symbol graph.
  rm -rf "$dir"/.build/*/symbolgraph
  swift package --package-path "$dir" dump-symbol-graph --skip-synthesized-members >"$work/dump.log" 2>&1 || true
  ls "$dir"/.build/*/symbolgraph/"$module".symbols.json >/dev/null 2>&1 || { cat "$work/dump.log" >&2; return 1; }
  python3 - "$dir" "$module" <<'PY'
import glob, json, sys
directory, module = sys.argv[1], sys.argv[2]
lines = set()
paths = glob.glob(f"{directory}/.build/*/symbolgraph/{module}.symbols.json")
paths += glob.glob(f"{directory}/.build/*/symbolgraph/{module}@*.symbols.json")  # extensions of other modules' types
for path in paths:
    with open(path) as f:
        graph = json.load(f)
    for symbol in graph.get("symbols", []):
        kind = symbol["kind"]["identifier"].removeprefix("swift.")
        name = ".".join(symbol["pathComponents"])
        declaration = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
        lines.add(f"{kind} {name}: {' '.join(declaration.split())}")
print("\n".join(sorted(lines)))
PY
}

work=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$work/baseline" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
echo "== $kit: public API"
symbols "$ROOT/$kit" "$kit" > "$work/current" || { echo "release.sh: could not read $kit's public API" >&2; exit 1; }
api_notes=""
if [ -n "$previous" ]; then
  git worktree add --detach "$work/baseline" "$kit/$previous" >/dev/null 2>&1
  symbols "$work/baseline/$kit" "$kit" > "$work/baseline.api" || { echo "release.sh: could not read the public API of $kit/$previous" >&2; exit 1; }
  removed=$(comm -23 "$work/baseline.api" "$work/current")
  added=$(comm -13 "$work/baseline.api" "$work/current")
  IFS=. read -r pmajor pminor _ <<< "$previous"
  if [ -n "$removed" ]; then
    echo "Removed or changed since $previous (breaking):"
    echo "$removed" | sed 's/^/  - /'
    if [ "$pmajor" -ge 1 ] && [ "$major" -le "$pmajor" ] || [ "$pmajor" -eq 0 ] && [ "$major" -eq 0 ] && [ "$minor" -le "$pminor" ]; then
      echo "release.sh: $kit $version breaks the public API of $previous; it needs a new major version (a new minor one below 1.0)" >&2
      exit 1
    fi
  fi
  if [ -n "$added" ]; then
    echo "Added since $previous:"
    echo "$added" | sed 's/^/  + /'
    if [ -z "$removed" ] && [ "$major" -eq "$pmajor" ] && [ "$minor" -eq "$pminor" ]; then
      echo "release.sh: $kit $version adds public API to $previous; it needs at least a new minor version" >&2
      exit 1
    fi
  fi
  [ -n "$removed$added" ] || echo "No public API change since $previous."
  api_notes=$(
    [ -z "$removed" ] || { echo; echo "### Breaking API changes"; echo "$removed" | sed 's/^/- /'; }
    [ -z "$added" ] || { echo; echo "### Added API"; echo "$added" | sed 's/^/- /'; }
  )
else
  echo "First release of $kit: $(wc -l < "$work/current") public symbols."
fi
$dry_run && { echo "release.sh: dry run, nothing written"; exit 0; }

changelog="$ROOT/$kit/CHANGELOG.md"
python3 - "$changelog" "$version" "$(date -u +%Y-%m-%d)" "$api_notes" <<'PY'
import sys
path, version, date, api = sys.argv[1:5]
text = open(path).read() if __import__("os").path.exists(path) else f"# Changelog\n\n## Unreleased\n"
marker = "## Unreleased"
if marker not in text:
    text = text.rstrip() + "\n\n" + marker + "\n"
head, rest = text.split(marker, 1)
lines = rest.split("\n## ", 1)
notes = lines[0].strip()
after = ("\n## " + lines[1]) if len(lines) > 1 else ""
body = notes if notes else "- No notes were written for this release."
entry = f"{marker}\n\n## {version} - {date}\n\n{body}\n{api}\n"
open(path, "w").write(head + entry.rstrip() + "\n" + after)
PY
git add "$changelog"
git commit -q -m "Release $kit $version" -m "CHANGELOG entry and tag $tag."
git tag -a "$tag" -m "$kit $version"
echo "released $tag"
