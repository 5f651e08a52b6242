#!/usr/bin/env bash
# Splits schema.graphqls into slices, then regenerates the kits' Swift from their operations.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

usage() {
  cat <<USAGE
usage: scripts/generate.sh [package…|all]

Runs 'apicore-codegen split-schema' on schema.graphqls (writing each kit's GraphQL/Schema slice),
then 'apicore-codegen generate' with each package's apollo-codegen-config.json, and copies
schema.graphqls into the dev server's resources (Tools/Sources/DevServer).
Without arguments, or with 'all': ${GENERATED[*]}.
The output is byte-identical on every run; generated files no longer produced are removed.
USAGE
}

targets=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    all) targets=("${GENERATED[@]}") ;;
    *)
      [ -f "$ROOT/$arg/apollo-codegen-config.json" ] || { echo "generate.sh: '$arg' has no apollo-codegen-config.json" >&2; usage >&2; exit 2; }
      targets+=("$arg") ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${GENERATED[@]}")

codegen=$(codegen_binary)
(cd "$ROOT" && "$codegen" split-schema --schema schema.graphqls --output . $(split_config_args))
cp "$ROOT/schema.graphqls" "$ROOT/Tools/Sources/DevServer/schema.graphqls"
for target in "${targets[@]}"; do
  echo "== $target"
  (cd "$ROOT/$target" && "$codegen" generate --path apollo-codegen-config.json)
done
