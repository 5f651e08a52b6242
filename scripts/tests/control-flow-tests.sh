#!/usr/bin/env bash
# scripts/trace.sh --control against what the engine says of itself: GraphQLPipeline.swift's
# numbered header names the control-flow files of one fetch(.networkOnly) with a cache, in the
# order the call crosses them; the trace measures them. Also the counts the engine is held to.
set -uo pipefail
source "$(dirname "$0")/helpers.sh"

PIPELINE="$ROOT/APICoreKit/Sources/APICoreLive/GraphQL/GraphQLPipeline.swift"
TRACE=$("$ROOT/scripts/trace.sh" --control 2>/dev/null) || { echo "scripts/trace.sh --control failed" >&2; exit 1; }

# The files listed under one `trace-<operation>-control:` line.
control_files() {
  echo "$TRACE" | awk -v heading="trace-$1-control:" '$1 == heading { listing = 1; next } /^trace-/ { listing = 0 } listing && /^  / { print $1 }'
}

# count <name>: the number on the trace line `trace-<name>: N (…)`.
count() { echo "$TRACE" | awk -v heading="trace-$1:" '$1 == heading { print $2 }'; }

header_names_the_trace() {
  local numbers header traced
  numbers=$(grep -E '^/// +[0-9]+\. APICore' "$PIPELINE" | sed -E 's|^/// +([0-9]+)\..*|\1|' | xargs)
  expect "the header's items are numbered 1, 2, … in order (read: $numbers)" [ "$numbers" = "$(seq -s ' ' 1 "$(echo "$numbers" | wc -w)")" ] || return 1
  header=$(grep -E '^/// +[0-9]+\. APICore' "$PIPELINE" | sed -E 's|^/// +[0-9]+\. (APICore[^ :]*\.swift).*|\1|' | sort)
  traced=$(control_files fetch | sort)
  expect "the trace found control-flow files" [ -n "$traced" ] || return 1
  if [ "$header" != "$traced" ]; then
    echo "named in the header, not in the trace:"; comm -23 <(echo "$header") <(echo "$traced")
    echo "in the trace, not named in the header:"; comm -13 <(echo "$header") <(echo "$traced")
    return 1
  fi
}

counts_within_targets() {
  local fetch_control event_control fetch_files lines
  fetch_control=$(count fetch-control) event_control=$(count event-control) fetch_files=$(count fetch-files)
  lines=$(wc -l < "$PIPELINE")
  echo "fetch: $fetch_control control-flow files, $fetch_files in all; event: $event_control; GraphQLPipeline.swift: $lines lines"
  expect "a fetch crosses at most 15 control-flow files ($fetch_control)" [ "${fetch_control:-99}" -le 15 ] &&
    expect "a fetch crosses at most 45 files in all ($fetch_files)" [ "${fetch_files:-99}" -le 45 ] &&
    expect "a subscription event crosses at most 12 control-flow files ($event_control)" [ "${event_control:-99}" -le 12 ] &&
    expect "GraphQLPipeline.swift has at most 350 lines ($lines)" [ "$lines" -le 350 ]
}

test_case "GraphQLPipeline.swift's numbered header names every control-flow file of a fetch that trace.sh --control finds, and no other" \
  header_names_the_trace
test_case "a fetch crosses at most 15 control-flow files and 45 in all, a subscription event at most 12; the pipeline's file at most 350 lines" \
  counts_within_targets
finish
