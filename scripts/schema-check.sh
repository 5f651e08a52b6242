#!/usr/bin/env bash
# Compares schema.graphqls with a committed version and says which kits the change breaks.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

usage() {
  cat <<USAGE
usage: scripts/schema-check.sh [--json] [ref]

Compares the working tree's schema.graphqls with the one at <ref> (default HEAD) using
'apicore-codegen check-schema': every change is classified as breaking, dangerous or safe, with
its place in both versions, and the operations of ${KITS[*]} are checked
against the new schema; what breaks is listed by kit and owner (CODEOWNERS).
Exits 0 when no kit breaks, 1 when one does, 2 when the schema cannot be read or compared.
--json prints the report as JSON (for CI).
USAGE
}

ref=HEAD
json=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --json) json=(--json) ;;
    -*) echo "schema-check.sh: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
    *) ref="$arg" ;;
  esac
done

old_dir=$(mktemp -d)
trap 'rm -rf "$old_dir"' EXIT
if ! git -C "$ROOT" show "$ref:schema.graphqls" > "$old_dir/schema.graphqls" 2>/dev/null; then
  echo "schema-check.sh: '$ref' has no schema.graphqls (is it a commit of this repository?)" >&2
  exit 2
fi
if cmp -s "$old_dir/schema.graphqls" "$ROOT/schema.graphqls"; then
  echo "schema-check: schema.graphqls is as at $ref"
  exit 0
fi

codegen=$(codegen_binary) || exit 2
configs=()
for kit in "${KITS[@]}"; do configs+=("$kit/apollo-codegen-config.json"); done
cd "$ROOT" && "$codegen" check-schema --old "$old_dir/schema.graphqls" --old-name "$ref:schema.graphqls" --new schema.graphqls --config "${configs[@]}" "${json[@]}"
