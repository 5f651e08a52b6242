#!/usr/bin/env bash
# Fails when committed schema slices or generated code differ from what the generator writes.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<USAGE
usage: scripts/check-generated.sh

Runs split-schema and generate with --check for ${GENERATED[*]}: writes nothing, lists every
file that would change or be removed, and exits non-zero if any would. Fix with scripts/generate.sh.
Then checks that no OpenAPI document changed since its client was generated
(scripts/generate-openapi.sh --check; fix with scripts/generate-openapi.sh).
USAGE
  exit 0
fi

codegen=$(codegen_binary) || exit 1
status=0
(cd "$ROOT" && "$codegen" split-schema --schema schema.graphqls --output . $(split_config_args) --check) || status=1
for target in "${GENERATED[@]}"; do
  (cd "$ROOT/$target" && "$codegen" generate --path apollo-codegen-config.json --check | sed "s|^|$target: |") || status=1
done
"$ROOT/scripts/generate-openapi.sh" --check || status=1
if [ $status -ne 0 ]; then
  echo "check-generated: generated code is out of date; run scripts/generate.sh" >&2
else
  echo "check-generated: schema slices and generated code are up to date"
fi
exit $status
