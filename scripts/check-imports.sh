#!/usr/bin/env bash
# Fails when a feature kit's sources import anything but APICore, SharedKit and Foundation:
# kits see APICoreKit's public protocols only, never the engine or another kit. Only generated
# code (in Generated/) imports APICore's @_spi(Generated) runtime; nothing in a kit imports the
# engine's @_spi(Engine) internals; a kit's own code calls no underscored APICore member. And the
# feature kits are laid out alike: Models, Repository, Service, Mapping.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: scripts/check-imports.sh"
  echo "Checks that ${KITS[*]} import only APICore, SharedKit and Foundation in their sources (and,"
  echo "for a REST client swift-openapi-generator wrote, APICoreOpenAPI, OpenAPIRuntime and HTTPTypes),"
  echo "that only their generated code (Generated/) imports APICore's @_spi(Generated) runtime,"
  echo "that none of their code or tests imports the engine's @_spi(Engine) internals, and that no kit's own"
  echo "code or test (outside Generated/ and generated Mocks/) calls an underscored APICore member (_outputJSON, _fieldValue…),"
  echo "and that no kit's sources or tests import APICoreSupport (what the engine shares with its stores);"
  echo "and that every feature kit but SharedKit is laid out as scripts/new-kit.sh makes one: Models.swift,"
  echo "<Base>Repository.swift, <Base>Service.swift and Mapping.swift, and a README with '## How it is built'."
  exit 0
fi

status=0
for kit in "${KITS[@]}"; do
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    # `import struct Foundation.URL` imports from Foundation.
    module=$(echo "$line" | sed -E 's/.*import[[:space:]]+((struct|class|enum|protocol|func|var|let|typealias)[[:space:]]+)?([A-Za-z_]+).*/\3/')
    case "$module" in
      APICore|SharedKit|Foundation|FoundationNetworking) ;;
      # An OpenAPI-generated REST client and the transport that puts it on APICore's chain.
      APICoreOpenAPI|OpenAPIRuntime|HTTPTypes) ;;
      *) echo "check-imports: $line  (a kit may import APICore, SharedKit and Foundation only, and APICoreOpenAPI, OpenAPIRuntime and HTTPTypes for an OpenAPI client)"; status=1 ;;
    esac
  done < <(grep -rnE '^[[:space:]]*(@testable[[:space:]]+|@_exported[[:space:]]+)?import[[:space:]]+' "$ROOT/$kit/Sources" --include='*.swift' || true)
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    echo "check-imports: $line  (the @_spi(Generated) runtime is for generated code only)"; status=1
  # (OpenAPIRuntime has an SPI of the same name, for the code swift-openapi-generator writes.)
  done < <(grep -rnE '@_spi\(Generated\)' "$ROOT/$kit/Sources" --include='*.swift' | grep -v '/Generated/' | grep -vE 'import[[:space:]]+OpenAPIRuntime$' || true)
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    echo "check-imports: $line  (@_spi(Engine) is APICoreKit's own)"; status=1
  done < <(grep -rnE '@_spi\(Engine\)' "$ROOT/$kit/Sources" "$ROOT/$kit/Tests" --include='*.swift' || true)
  # What the engine shares with its stores and sockets is never a kit's, in sources or tests.
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    echo "check-imports: $line  (APICoreSupport is shared by the engine, APICoreSQLite and APICoreWebSocket; a kit never imports it)"; status=1
  done < <(grep -rnE '^[[:space:]]*(@[A-Za-z_]+(\([A-Za-z]+\))?[[:space:]]+)*import[[:space:]]+((struct|class|enum|protocol|func|var|let|typealias)[[:space:]]+)?APICoreSupport\b' "$ROOT/$kit/Sources" "$ROOT/$kit/Tests" --include='*.swift' || true)
  # APICore's underscored members (_outputJSON, _fieldValue, _inputJSON…) are hooks for generated
  # code and the engine; a kit's own code uses their public names (jsonValue, jsonObject).
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    echo "check-imports: $line  (an underscored APICore member is for generated code and the engine)"; status=1
  # Its tests too: they are the examples other teams copy (generated test mocks aside).
  done < <(grep -rnE '(\._(outputJSON|inputJSON|fieldValue|collectFiles|asInlineFragment|toFragment|deferred)\b|\(_(fieldValue|jsonValue):)' "$ROOT/$kit/Sources" "$ROOT/$kit/Tests" --include='*.swift' | grep -vE '/(Generated|Mocks)/' || true)
  # Laid out alike, as scripts/new-kit.sh makes a kit (SharedKit is the shared schema module,
  # with no service): the four parts, and a README that says how they fit.
  if [ "$kit" != SharedKit ]; then
    base=${kit%Kit}
    for part in Models "${base}Repository" "${base}Service" Mapping; do
      [ -f "$ROOT/$kit/Sources/$kit/$part.swift" ] \
        || { echo "check-imports: $kit/Sources/$kit/$part.swift is missing (a kit is Models, ${base}Repository, ${base}Service and Mapping, as scripts/new-kit.sh makes it)"; status=1; }
    done
    grep -q '^## How it is built' "$ROOT/$kit/README.md" \
      || { echo "check-imports: $kit/README.md has no '## How it is built' section"; status=1; }
  fi
done
[ $status -eq 0 ] && echo "check-imports: ${KITS[*]} import only APICore, SharedKit and Foundation (and the OpenAPI runtime); only their generated code uses the @_spi(Generated) runtime; none uses @_spi(Engine); none of their own code or tests calls an underscored APICore member; none imports APICoreSupport; the feature kits are laid out alike"
exit $status
