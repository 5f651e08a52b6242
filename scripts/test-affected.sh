#!/usr/bin/env bash
# Tests only what a change reaches: the packages (and checks) that the files changed since a base
# ref touch, directly or through the packages that depend on them.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

usage() {
  cat <<USAGE
usage: scripts/test-affected.sh <base-ref> [--list]

Finds the files changed since <base-ref> (git diff against the merge base of <base-ref> and HEAD,
the working tree and untracked files included), works out what they reach, prints each package
with the reason, then runs scripts/test.sh for those packages and the checks that apply, and ends
with 'tests: N passed, M failed' as scripts/test-all.sh does (which stays the full run CI makes).

  a kit's own files                     that kit, and what depends on it (the app)
  SharedKit                             every kit, and the app
  APICoreKit, Tools                     everything (every package builds on the core; the
                                        generator writes every kit's code)
  a package under Tools/Fixtures        that package, and Tools (its tests read the fixtures)
  APICoreKit/Integration                itself, and what depends on it (Tools, the app)
  schema.graphqls, schema-split.json    the kits whose schema slices change (split both versions
                                        with apicore-codegen split-schema; SharedKit's slice
                                        reaches every kit), Tools and the app (the dev server
                                        serves the schema; Tools' tests read it)
  Tools/Sources/DevServer/schema.graphqls  Tools and the app
  the app's Sources, Tests, Package.swift  the app
  CODEOWNERS                            Tools (its schema-check tests read it)
  Markdown files at the root            nothing
  scripts/, .ci/, Fixtures/, other root files   everything

Checks: paths always; imports when a kit changes; generated code when operations, schema slices,
codegen configs or generated files change, or the schema or the generator; the schema change check when schema.graphqls changes;
with everything, the documentation, OpenAPI conformance and fuzz steps too.

  --list   print the packages, reasons and checks; run nothing
USAGE
}

base_ref="" list=0
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --list) list=1 ;;
    -*) echo "test-affected.sh: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
    *) [ -z "$base_ref" ] || { echo "test-affected.sh: one base ref only" >&2; exit 2; }; base_ref="$arg" ;;
  esac
done
[ -n "$base_ref" ] || { usage >&2; exit 2; }
git -C "$ROOT" rev-parse -q --verify "$base_ref^{commit}" >/dev/null \
  || { echo "test-affected.sh: '$base_ref' is not a commit of this repository" >&2; exit 2; }
base=$(git -C "$ROOT" merge-base "$base_ref" HEAD) \
  || { echo "test-affected.sh: '$base_ref' and HEAD have no common ancestor" >&2; exit 2; }

# (Written for bash 3.2, macOS's: no associative arrays, no mapfile.)
changed=()
while IFS= read -r file; do changed+=("$file"); done \
  < <( (git -C "$ROOT" diff --name-only --no-renames "$base"; git -C "$ROOT" ls-files --others --exclude-standard) | sort -u)

# The index of a package in PACKAGES.
index_of() {
  local i
  for i in "${!PACKAGES[@]}"; do [ "${PACKAGES[$i]}" = "$1" ] && { echo "$i"; return; }; done
  return 1
}

# The package a path is in: the longest package folder it is under; "." for the root's own files.
owner_of() {
  local path="$1" best="." package
  for package in "${PACKAGES[@]}"; do
    [ "$package" = "." ] && continue
    if [[ "$path" == "$package/"* && ${#package} -gt ${#best} ]] || [[ "$path" == "$package" ]]; then best="$package"; fi
  done
  echo "$best"
}

# Who depends on whom, from each package's `.package(path:)` entries: dependents[i] lists those of
# PACKAGES[i].
dependents=()
for package in "${PACKAGES[@]}"; do
  dir=$(package_dir "$package") || continue
  while IFS= read -r path; do
    target=$(cd "$dir/$path" 2>/dev/null && pwd) || continue
    dependency=$(owner_of "${target#"$ROOT"/}")
    [ "$dependency" = "$package" ] && continue
    i=$(index_of "$dependency") && dependents[$i]="${dependents[$i]:-}$package "
  done < <(grep -oE '\.package\(path: *"[^"]+"' "$dir/Package.swift" | sed -E 's/.*"([^"]+)"/\1/')
done

reasons=()  # reasons[i]: why PACKAGES[i] is tested
check_imports=0 check_generated=0 everything=0
add() {  # add <package> <reason>: the package, then whatever depends on it
  local package="$1" reason="$2" dependent i
  i=$(index_of "$package") || return
  [ -n "${reasons[$i]:-}" ] && return
  reasons[$i]="$reason"
  for dependent in ${dependents[$i]:-}; do add "$dependent" "depends on ${package/#./Pantry}"; done
}
add_everything() {
  local i
  everything=1
  for i in "${!PACKAGES[@]}"; do [ -n "${reasons[$i]:-}" ] || reasons[$i]="$1"; done
}
in_list() { local item="$1"; shift; [[ " $* " == *" $item "* ]]; }

schema_changed=0
for file in ${changed[@]+"${changed[@]}"}; do
  package=$(owner_of "$file")
  # Operations, slices, configs and what the generator wrote: the generated-code check applies.
  for generated in "${GENERATED[@]}"; do
    [[ "$file" == "$generated/"* && "$file" =~ /(GraphQL|Generated|Mocks)/|/apollo-codegen-config\.json$ ]] && check_generated=1
  done
  in_list "$package" "${KITS[@]}" && check_imports=1
  case "$package" in
    APICoreKit) add_everything "$file changed: every package builds on APICoreKit" ;;
    Tools)
      if [ "$file" = "Tools/Sources/DevServer/schema.graphqls" ]; then
        add Tools "$file changed: the dev server serves it"
      else
        add_everything "$file changed: Tools generates every kit's code"
      fi ;;
    Tools/Fixtures/*) add "$package" "$file changed"; add Tools "its tests read $file" ;;
    .)
      case "$file" in
        schema.graphqls|schema-split.json) schema_changed=1; check_generated=1 ;;
        Sources/*|Tests/*|Package.swift) add . "$file changed" ;;
        CODEOWNERS) add Tools "its schema-check tests read $file" ;;
        *.md) ;;
        *) add_everything "$file changed: scripts, CI and shared material reach every package" ;;
      esac ;;
    *) add "$package" "$file changed" ;;
  esac
done

# A schema change reaches the kits whose slices change: split the schema as it was and as it is.
check_schema=0
if [ $schema_changed -eq 1 ]; then
  git -C "$ROOT" cat-file -e "$base:schema.graphqls" 2>/dev/null && check_schema=1
  add Tools "schema.graphqls or schema-split.json changed: Tools' tests read the schema, the dev server serves it"
  codegen=$(codegen_binary) || { echo "test-affected.sh: cannot build apicore-codegen to split the schema" >&2; exit 1; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  split_schema() {  # split_schema <folder>: the schema (and split config) in <folder>, into <folder>/out
    local options=()
    [ -f "$1/schema-split.json" ] && options=(--config schema-split.json)
    (cd "$1" && "$codegen" split-schema --schema schema.graphqls --output out ${options[@]+"${options[@]}"} >/dev/null)
  }
  mkdir -p "$work/old" "$work/new"
  git -C "$ROOT" show "$base:schema.graphqls" > "$work/old/schema.graphqls" 2>/dev/null
  git -C "$ROOT" show "$base:schema-split.json" > "$work/old/schema-split.json" 2>/dev/null || rm -f "$work/old/schema-split.json"
  cp "$ROOT/schema.graphqls" "$work/new/"
  [ -f "$ROOT/schema-split.json" ] && cp "$ROOT/schema-split.json" "$work/new/"
  if split_schema "$work/old" 2>/dev/null && split_schema "$work/new" 2>"$work/error"; then
    while IFS= read -r slice; do
      cmp -s "$work/old/out/$slice" "$work/new/out/$slice" && continue
      kit=${slice%%/*}
      if in_list "$kit" "${PACKAGES[@]}"; then
        add "$kit" "schema.graphqls: its slice $slice changes"
      else
        echo "test-affected: the schema now has a slice for $kit, which is no package of this repository (scripts/new-kit.sh makes one)" >&2
      fi
    done < <( (cd "$work/old/out" && find . -type f; cd "$work/new/out" && find . -type f) 2>/dev/null | sed 's|^\./||' | sort -u)
  else
    echo "test-affected: the schema cannot be split ($(head -1 "$work/error")); testing every kit" >&2
    for kit in "${KITS[@]}"; do add "$kit" "schema.graphqls cannot be split"; done
  fi
fi

# What to run, in the packages' own order.
SUITE_NAME=test-affected
SUITE_PACKAGES=()
listed=()
for i in "${!PACKAGES[@]}"; do
  [ -n "${reasons[$i]:-}" ] || continue
  SUITE_PACKAGES+=("${PACKAGES[$i]}")
  listed+=("$(printf '  %-32s %s' "${PACKAGES[$i]/#./Pantry}" "${reasons[$i]}")")
done
SUITE_CHECKS=(paths)
SUITE_AFTER=()
if [ $everything -eq 1 ]; then
  # The scripts' own tests too (new-kit.sh and test-affected.sh over scratch repositories).
  SUITE_PACKAGES+=(scripts)
  listed+=("$(printf '  %-32s %s' scripts "the scripts' own tests, as for every package")")
  SUITE_CHECKS+=(imports generated)
  SUITE_AFTER=(docs openapi fuzz)
else
  [ $check_imports -eq 1 ] && SUITE_CHECKS+=(imports)
  [ $check_generated -eq 1 ] && SUITE_CHECKS+=(generated)
fi
[ $check_schema -eq 1 ] && SUITE_CHECKS+=("schema:$base")

echo "test-affected: ${#changed[@]} file(s) changed since $base_ref (merge base $(echo "$base" | cut -c1-10))"
if [ ${#listed[@]} -gt 0 ]; then printf '%s\n' "${listed[@]}"; else echo "  (no package)"; fi
checks="${SUITE_CHECKS[*]} ${SUITE_AFTER[*]:-}"
echo "checks: ${checks/schema:$base/schema}"
[ $list -eq 1 ] && exit 0
require_buildable_root
run_suite
