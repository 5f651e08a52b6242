#!/usr/bin/env bash
# scripts/new-kit.sh over scratch copies of this repository: what it refuses (changing nothing),
# and two kits made in one command each that generate cleanly, pass their tests at once, and are
# known to check-imports, check-generated, schema-check and test-affected.
set -uo pipefail
source "$(dirname "$0")/helpers.sh"

REFUSALS=$(scratch_repository)

# refused <expected message> <new-kit arguments…>: exit 2, the message, nothing changed.
refused() {
  local message="$1" output status
  shift
  output=$(cd "$REFUSALS" && scripts/new-kit.sh "$@" 2>&1)
  status=$?
  expect "exit status 2, not $status" [ $status -eq 2 ] || { echo "$output"; return 1; }
  contains "$output" "$message" || return 1
  expect "the repository is unchanged" [ -z "$(git -C "$REFUSALS" status --porcelain)" ] || { git -C "$REFUSALS" status --short; return 1; }
}

names() {
  refused "'9Kit' is not a Swift identifier" 9Kit --domain recipe --owner @apicorekit/recipes &&
    refused "'Meal-Kit' is not a Swift identifier" Meal-Kit --domain recipe --owner @apicorekit/recipes &&
    refused "'UserKit' is already a package of this repository" UserKit --domain user --owner @apicorekit/identity &&
    refused "'APICoreExtras' is taken by a module the kits already use" APICoreExtras --domain recipe --owner @apicorekit/recipes
}

domains_and_owners() {
  refused 'no type carries @domain(name: "recipe")' RecipeKit --domain recipe --owner @apicorekit/recipes &&
    refused "--types names 'Recipe', which the schema does not define" RecipeKit --domain recipe --owner @apicorekit/recipes --types Recipe &&
    refused "already belongs to the domain 'household'" RecipeKit --domain recipe --owner @apicorekit/recipes --types Household &&
    refused "the domain 'shared' is SharedKit's" RecipeKit --domain shared --owner @apicorekit/recipes &&
    refused "the owner 'recipes-team' is not a CODEOWNERS owner" RecipeKit --domain recipe --owner recipes-team &&
    refused "--owner is missing" RecipeKit --domain recipe
}

# A type of another domain is refused at its line in schema.graphqls.
type_of_another_domain() {
  local output line
  output=$(cd "$REFUSALS" && scripts/new-kit.sh RecipeKit --domain recipe --owner @apicorekit/recipes --types Household 2>&1)
  line=$(grep -n '^type Household ' "$REFUSALS/schema.graphqls" | cut -d: -f1)
  contains "$output" "schema.graphqls:$line:6: error: type Household already belongs to the domain 'household'"
}

test_case "new-kit refuses a name that is no Swift identifier or is taken, changing nothing" names
test_case "new-kit refuses a domain no type carries, an unknown type, a missing or malformed owner" domains_and_owners
test_case "new-kit names the line of a type that belongs to another domain" type_of_another_domain

# Two kits: MealsKit for the domain 'recipe' (not RecipeKit: the split config maps it) in the app,
# and CookKit for 'cook' outside it.
KITS_REPO=$(scratch_repository)
cat >> "$KITS_REPO/schema.graphqls" <<'SDL'

"A way to cook something."
type Recipe implements Node {
  id: ID!
  title: String!
  minutes: Int
  rating: Float
  vegetarian: Boolean!
  tags: [String!]!
  createdAt: DateTime!
  steps(limit: Int!): [String!]!
}

"Someone who writes recipes."
type Cook @domain(name: "cook") {
  id: ID!
  name: String!
  "The recipes they wrote."
  recipeCount: Int!
  "Whether their recipes are public (a Swift keyword as a field name)."
  public: Boolean
  nicknames: [String]
}

extend type Query {
  "Every recipe."
  recipes: [Recipe!]!
  recipe(id: ID!): Recipe
  cook(id: ID!): Cook!
}
SDL
commit "$KITS_REPO" "recipes and cooks in the schema"

meals_kit() {
  local output
  output=$(cd "$KITS_REPO" && scripts/new-kit.sh MealsKit --domain recipe --owner @apicorekit/recipes --types Recipe --in-app 2>&1) \
    || { echo "$output" | tail -30; return 1; }
  contains "$output" "new-kit.sh: created MealsKit" || return 1
  cd "$KITS_REPO" || return 1
  contains "$(cat schema.graphqls)" 'type Recipe implements Node @domain(name: "recipe") {' &&
    contains "$(cat schema-split.json)" '"recipe" : "MealsKit"' &&
    contains "$(cat MealsKit/GraphQL/Operations/Meals.graphql)" "query Recipes {" &&
    contains "$(cat MealsKit/Package.swift)" '.package(path: "../APICoreKit"),' &&
    expect "the kit depends on APICoreKit and SharedKit only" [ "$(grep -c '\.package(' MealsKit/Package.swift)" -eq 2 ] &&
    contains "$(cat CODEOWNERS)" "/MealsKit/          @apicorekit/recipes" &&
    contains "$(cat Package.swift)" '.product(name: "MealsKit", package: "MealsKit"),' &&
    contains "$(cat scripts/lib.sh)" "KITS=(SharedKit UserKit ProductKit HouseholdKit MealsKit)" &&
    contains "$(cat scripts/lib.sh)" "|householdkit|mealskit|tools)" &&
    expect "the generated code is committed-ready" test -f MealsKit/Sources/MealsKit/Generated/Operations/Queries/RecipesQuery.graphql.swift &&
    expect "the app's manifest names the kit" sh -c 'swift package dump-package | grep -q "\"MealsKit\""' &&
    scripts/check-generated.sh >/dev/null &&
    contains "$(scripts/check-imports.sh)" "HouseholdKit MealsKit import only APICore" &&
    contains "$(scripts/test.sh MealsKit 2>&1)" '✔ Test run with 2 tests in 1 suite passed'
}

cook_kit() {
  local output before
  cd "$KITS_REPO" || return 1
  commit "$KITS_REPO" "MealsKit"
  before=$(cat schema-split.json Package.swift)
  output=$(scripts/new-kit.sh CookKit --domain cook --owner team@example.com 2>&1) || { echo "$output" | tail -30; return 1; }
  contains "$(cat CookKit/GraphQL/Operations/Cook.graphql)" 'query Cook($id: ID!) {' &&
    contains "$(cat CookKit/Sources/CookKit/Models.swift)" 'public var `public`: Bool?' &&
    contains "$(cat CookKit/Sources/CookKit/Models.swift)" 'public var nicknames: [String?]?' &&
    expect "the split config and the app are left alone (CookKit is the domain's own name; no --in-app)" \
      [ "$before" = "$(cat schema-split.json Package.swift)" ] &&
    contains "$(cat scripts/lib.sh)" "KITS=(SharedKit UserKit ProductKit HouseholdKit MealsKit CookKit)" &&
    contains "$(cat scripts/lib.sh)" "HouseholdKit MealsKit CookKit Tools" &&
    scripts/check-generated.sh >/dev/null &&
    contains "$(scripts/test.sh CookKit 2>&1)" '✔ Test run with 2 tests in 1 suite passed' &&
    commit "$KITS_REPO" "CookKit"
}

# The schema check names the new kits and their owners.
schema_check() {
  local output status
  cd "$KITS_REPO" || return 1
  replace schema.graphqls '$_ = "" if /"The recipes they wrote."|^  recipeCount: Int!$|^  title: String!$/' 
  output=$(scripts/schema-check.sh 2>&1)
  status=$?
  git checkout -q schema.graphqls
  expect "schema-check fails with 1, not $status" [ $status -eq 1 ] || { echo "$output"; return 1; }
    contains "$output" "MealsKit (@apicorekit/recipes): BREAKS" &&
    contains "$output" "CookKit (team@example.com): BREAKS"
}

# test-affected runs a kit outside the app alone, and fails when its test fails.
affected_run() {
  local output status
  cd "$KITS_REPO" || return 1
  replace CookKit/Tests/CookKitTests/CookServiceTests.swift 's/^(    \@Test\("maps `query Cook`)/    \/\/ Changed.\n$1/' 
  output=$(scripts/test-affected.sh HEAD 2>&1) || { echo "$output" | tail -30; return 1; }
  contains "$output" "  CookKit " && contains "$output" "checks: paths imports" &&
    expect "only CookKit is tested" [ "$(echo "$output" | grep -c '^== .*: test$')" -eq 1 ] &&
    contains "$output" "tests: 2 passed, 0 failed" || return 1
  replace CookKit/Tests/CookKitTests/CookServiceTests.swift 's/#expect\(value == /#expect(value != /' 
  output=$(scripts/test-affected.sh HEAD 2>&1)
  status=$?
  git checkout -q CookKit
  expect "a failing kit test fails the run" [ $status -ne 0 ] && contains "$output" "test-affected: failed: CookKit" &&
    contains "$output" "tests: 1 passed, 1 failed"
}

test_case "new-kit makes a kit in the app whose domain has another folder name: generated, registered, its tests green" meals_kit
test_case "new-kit makes a second kit outside the app, with a query that takes an argument" cook_kit
test_case "schema-check names the new kits and their owners" schema_check
test_case "test-affected runs a changed kit's tests alone, and fails when they fail" affected_run
finish
