#!/usr/bin/env bash
# Creates a feature kit in one command: its package, a first operation and service, generated code,
# a test, and its place in scripts/lib.sh, CODEOWNERS and (with --in-app) the app.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

usage() {
  cat <<USAGE
usage: scripts/new-kit.sh <Name> --domain <domain> --owner <@team> [--types A,B] [--in-app]

Creates the kit <Name> (a Swift identifier: RecipeKit) for the types of schema.graphqls that carry
@domain(name: "<domain>"):
  <Name>/Package.swift            depends on APICoreKit (APICore, APICoreTesting) and SharedKit only
  <Name>/apollo-codegen-config.json
  <Name>/GraphQL/Operations/      a first query: a Query field returning one of the domain's types,
                                  with a fragment of that type's built-in scalar fields
  <Name>/Sources/<Name>/          the model, <Base>Repository, <Base>Service, the mapping, and the
                                  generated code (<Base> is <Name> without "Kit")
  <Name>/Tests/<Name>Tests/       a test of the mapping on MockAPIClient
  <Name>/README.md, CHANGELOG.md
and registers it: PACKAGES, KITS and GENERATED in scripts/lib.sh (so test-all.sh, check-imports.sh,
check-generated.sh and schema-check.sh know it), CODEOWNERS (/<Name>/ <owner>), schema-split.json
when <Name> is not <Domain>Kit, and with --in-app the app's Package.swift. Then regenerates every
kit (scripts/generate.sh: marking types can move them between slices).

  --domain <domain>   the domain; some type must carry it, or be named with --types
  --owner <owner>     @org/team, @user or an e-mail address, for CODEOWNERS and the README
  --types A,B         mark these types with @domain(name: "<domain>") in schema.graphqls first
  --in-app            add the kit to the app (root Package.swift, the pantry CLI's target)

Refuses, changing nothing: a name that is not a Swift identifier or is taken, a domain no type
carries, a type that belongs to another domain, an owner CODEOWNERS would not take. Exits 2 then.
Then: scripts/test.sh <Name>; git add <Name> and the files listed.
USAGE
}

name="" domain="" owner="" in_app=0
types=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --domain) domain="${2:-}"; shift 2 || { usage >&2; exit 2; } ;;
    --owner) owner="${2:-}"; shift 2 || { usage >&2; exit 2; } ;;
    --types) types=(--types "${2:-}"); shift 2 || { usage >&2; exit 2; } ;;
    --in-app) in_app=1; shift ;;
    -*) echo "new-kit.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) [ -z "$name" ] || { echo "new-kit.sh: one name only ('$name', then '$1')" >&2; exit 2; }; name="$1"; shift ;;
  esac
done
[ -n "$name" ] || { echo "new-kit.sh: the kit's name is missing" >&2; usage >&2; exit 2; }
[ -n "$domain" ] || { echo "new-kit.sh: --domain is missing" >&2; usage >&2; exit 2; }
[ -n "$owner" ] || { echo "new-kit.sh: --owner is missing" >&2; usage >&2; exit 2; }
for taken in "${PACKAGES[@]}"; do
  [ "$taken" != "$name" ] || { echo "new-kit.sh: '$name' is already a package of this repository" >&2; exit 2; }
done

codegen=$(codegen_binary) || { echo "new-kit.sh: cannot build apicore-codegen" >&2; exit 1; }

# What the registration changes, kept to put back if a later step fails.
backup=$(mktemp -d)
trap 'rm -rf "$backup"' EXIT
touched=(schema.graphqls schema-split.json scripts/lib.sh CODEOWNERS Package.swift Tools/Sources/DevServer/schema.graphqls)
for file in "${touched[@]}"; do
  [ -f "$ROOT/$file" ] && mkdir -p "$backup/$(dirname "$file")" && cp -p "$ROOT/$file" "$backup/$file"
done
generated=0
roll_back() {
  echo "new-kit.sh: $1; putting the repository back as it was" >&2
  rm -rf "${ROOT:?}/$name"
  for file in "${touched[@]}"; do
    if [ -f "$backup/$file" ]; then cp -p "$backup/$file" "$ROOT/$file"; else rm -f "$ROOT/$file"; fi
  done
  [ $generated -eq 0 ] || "$ROOT/scripts/generate.sh" >/dev/null 2>&1 || echo "new-kit.sh: run scripts/generate.sh to restore the other kits' slices" >&2
  exit 1
}

(cd "$ROOT" && "$codegen" new-kit --name "$name" --domain "$domain" --owner "$owner" ${types[@]+"${types[@]}"}) || exit 2

# scripts/lib.sh: after the last kit in PACKAGES and GENERATED, at the end of KITS.
last="${KITS[${#KITS[@]}-1]}"
edit_file "$ROOT/scripts/lib.sh" -E \
  -e "s#^(PACKAGES=\(.* )$last( |\))#\1$last $name\2#" \
  -e "s#^(KITS=\(.*)\)#\1 $name)#" \
  -e "s#^(GENERATED=\(.* )$last( |\))#\1$last $name\2#"
(source "$ROOT/scripts/lib.sh"
 [[ " ${PACKAGES[*]} " == *" $name "* && " ${KITS[*]} " == *" $name "* && " ${GENERATED[*]} " == *" $name "* ]]) \
  || roll_back "could not add $name to PACKAGES, KITS and GENERATED in scripts/lib.sh (after $last)"

printf '%-19s %s\n' "/$name/" "$owner" >> "$ROOT/CODEOWNERS"

if [ $in_app -eq 1 ]; then
  lower=$(echo "$name" | tr '[:upper:]' '[:lower:]')
  # After the last kit the app already lists; the clone-folder guards learn the new package's name.
  kits_pattern=$(IFS='|'; echo "${KITS[*]}")
  awk -v kits="$kits_pattern" -v name="$name" '
    { lines[NR] = $0 }
    $0 ~ "^[[:space:]]*\\.package\\(path: \"(" kits ")\"\\),[[:space:]]*$" { package = NR }
    $0 ~ "^[[:space:]]*\\.product\\(name: \"(" kits ")\", package: \"(" kits ")\"\\),[[:space:]]*$" { product = NR }
    END {
      if (!package || !product) exit 1
      for (i = 1; i <= NR; i++) {
        print lines[i]
        if (i == package) { match(lines[i], /^[[:space:]]*/); print substr(lines[i], 1, RLENGTH) ".package(path: \"" name "\")," }
        if (i == product) { match(lines[i], /^[[:space:]]*/); print substr(lines[i], 1, RLENGTH) ".product(name: \"" name "\", package: \"" name "\")," }
      }
    }' "$ROOT/Package.swift" > "$backup/Package.swift.new" && mv "$backup/Package.swift.new" "$ROOT/Package.swift" \
    || roll_back "could not find where the app's Package.swift lists its kits"
  edit_file "$ROOT/Package.swift" "s/\"tools\"\]/\"$lower\", \"tools\"]/"
  edit_file "$ROOT/scripts/lib.sh" "s/|tools)/|$lower|tools)/"
  grep -q "\"$lower\", \"tools\"\]" "$ROOT/Package.swift" && grep -q "|$lower|tools)" "$ROOT/scripts/lib.sh" \
    || roll_back "could not add '$lower' to the clone-folder checks (Package.swift, require_buildable_root in scripts/lib.sh)"
fi

generated=1
"$ROOT/scripts/generate.sh" || roll_back "generating the code failed"

echo
echo "new-kit.sh: created $name (owner $owner); registered in scripts/lib.sh and CODEOWNERS$([ $in_app -eq 1 ] && echo ", and in the app's Package.swift")."
echo "Next: scripts/test.sh $name, then commit $name/ with the files changed above (git status)."
