import GraphQL

/// The rules an executable document is validated by: graphql-js's `specifiedRules`, by its names
/// and in its order. GraphQLSwift ports most of them; the rules it leaves out, and those where it
/// reports other places than graphql-js, are ours.
package enum DocumentRules {
    /// One rule: its graphql-js name and what runs it.
    struct Rule: Sendable {
        enum Implementation: Sendable {
            /// GraphQLSwift's rule (its rules are internal; `specifiedRules` lists them).
            case graphQLSwift(@Sendable (ValidationContext) -> Visitor)
            /// Ours, over the document and the schema.
            case own(@Sendable (DocumentContext) -> [ValidationError])
        }

        let name: String
        let implementation: Implementation
    }

    /// What a rule of ours reads.
    struct DocumentContext {
        let document: Document
        let schema: Compilation.Schema
    }

    /// GraphQLSwift's `specifiedRules` by graphql-js's names, in their order there (the
    /// commented-out ones left out).
    private static let graphQLSwiftNames = [
        "ExecutableDefinitionsRule", "UniqueOperationNamesRule", "LoneAnonymousOperationRule", "KnownTypeNamesRule",
        "FragmentsOnCompositeTypesRule", "VariablesAreInputTypesRule", "ScalarLeafsRule", "FieldsOnCorrectTypeRule",
        "UniqueFragmentNamesRule", "KnownFragmentNamesRule", "NoUnusedFragmentsRule", "PossibleFragmentSpreadsRule",
        "NoFragmentCyclesRule", "UniqueVariableNamesRule", "NoUndefinedVariablesRule", "NoUnusedVariablesRule",
        "KnownDirectivesRule", "UniqueDirectivesPerLocationRule", "KnownArgumentNamesRule", "UniqueArgumentNamesRule",
        "ValuesOfCorrectTypeRule", "ProvidedRequiredArgumentsRule", "VariablesInAllowedPositionRule", "UniqueInputFieldNamesRule",
    ]

    private static func graphQLSwift(_ name: String) -> Rule {
        precondition(GraphQL.specifiedRules.count == graphQLSwiftNames.count, "GraphQLSwift's specifiedRules changed: check DocumentRules")
        let index = graphQLSwiftNames.firstIndex(of: name)!
        return Rule(name: name, implementation: .graphQLSwift(GraphQL.specifiedRules[index]))
    }

    /// graphql-js's specified rules, in its order.
    static let specified: [Rule] = [
        graphQLSwift("ExecutableDefinitionsRule"),
        graphQLSwift("UniqueOperationNamesRule"),
        graphQLSwift("LoneAnonymousOperationRule"),
        Rule(name: "SingleFieldSubscriptionsRule", implementation: .own { OperationRules.singleFieldSubscriptions($0.document, schema: $0.schema.model) }),
        graphQLSwift("KnownTypeNamesRule"),
        Rule(name: "KnownTypeNamesRule", implementation: .own { OperationRules.unmentionedScalars($0.document, schema: $0.schema) }),
        graphQLSwift("FragmentsOnCompositeTypesRule"),
        graphQLSwift("VariablesAreInputTypesRule"),
        graphQLSwift("ScalarLeafsRule"),
        graphQLSwift("FieldsOnCorrectTypeRule"),
        graphQLSwift("UniqueFragmentNamesRule"),
        graphQLSwift("KnownFragmentNamesRule"),
        graphQLSwift("NoUnusedFragmentsRule"),
        graphQLSwift("PossibleFragmentSpreadsRule"),
        graphQLSwift("NoFragmentCyclesRule"),
        graphQLSwift("UniqueVariableNamesRule"),
        graphQLSwift("NoUndefinedVariablesRule"),
        graphQLSwift("NoUnusedVariablesRule"),
        graphQLSwift("KnownDirectivesRule"),
        graphQLSwift("UniqueDirectivesPerLocationRule"),
        graphQLSwift("KnownArgumentNamesRule"),
        graphQLSwift("UniqueArgumentNamesRule"),
        graphQLSwift("ValuesOfCorrectTypeRule"),
        Rule(name: "ValuesOfCorrectTypeRule", implementation: .own { OperationRules.nullsForRewrittenDefaults($0.document, schema: $0.schema.model) }),
        graphQLSwift("ProvidedRequiredArgumentsRule"),
        graphQLSwift("VariablesInAllowedPositionRule"),
        Rule(name: "VariablesInAllowedPositionRule", implementation: .own { OperationRules.oneOfVariables($0.document, schema: $0.schema.model) }),
        Rule(name: OverlappingFieldsRule.name, implementation: .own { OverlappingFieldsRule.validate($0.document, schema: $0.schema.model) }),
        graphQLSwift("UniqueInputFieldNamesRule"),
        Rule(name: "MaxIntrospectionDepthRule", implementation: .own { OperationRules.maxIntrospectionDepth($0.document) }),
    ]

    /// Rules graphql-js offers beside the specified ones, run only when named.
    static let optional: [Rule] = [
        Rule(name: "NoDeprecatedCustomRule", implementation: .graphQLSwift(GraphQL.NoDeprecatedCustomRule)),
        Rule(name: "NoSchemaIntrospectionCustomRule", implementation: .graphQLSwift(GraphQL.NoSchemaIntrospectionCustomRule)),
    ]

    /// The errors of `document` against `schema` by the named rules, each error with its rule.
    package static func validate(_ document: Document, schema: Compilation.Schema, rules names: Set<String>) -> [ValidationError] {
        run((specified + optional).filter { names.contains($0.name) }, document, schema, batched: false)
    }

    /// The errors of `document` by every specified rule but those `excluded`. GraphQLSwift's
    /// rules run in one pass, their errors attributed to none of them.
    static func validate(_ document: Document, schema: Compilation.Schema, excluding excluded: Set<String> = []) -> [ValidationError] {
        run(specified.filter { !excluded.contains($0.name) }, document, schema, batched: true)
    }

    private static func run(_ rules: [Rule], _ document: Document, _ schema: Compilation.Schema, batched: Bool) -> [ValidationError] {
        var errors: [ValidationError] = []
        var visitors: [@Sendable (ValidationContext) -> Visitor] = []
        var own: [@Sendable (DocumentContext) -> [ValidationError]] = []
        let context = DocumentContext(document: document, schema: schema)
        for rule in rules {
            switch rule.implementation {
            case .graphQLSwift(let visitor) where batched:
                visitors.append(visitor)
            case .graphQLSwift(let visitor):
                errors += GraphQL.validate(schema: schema.graphQL, ast: document, rules: [visitor]).map { ValidationError(rule: rule.name, $0) }
            case .own(let check) where batched:
                own.append(check)
            case .own(let check):
                errors += check(context)
            }
        }
        // GraphQLSwift's pass and ours read the same document and schema, at once. (An empty
        // list would mean every rule to GraphQLSwift.)
        let (theirs, ours) = concurrently(
            {
                visitors.isEmpty
                    ? [] : GraphQL.validate(schema: schema.graphQL, ast: document, rules: visitors).map { ValidationError(rule: "GraphQLSwift", $0) }
            },
            { own.flatMap { $0(context) } })
        return errors + theirs + ours
    }
}
