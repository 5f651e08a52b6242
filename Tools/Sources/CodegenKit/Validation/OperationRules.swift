import GraphQL

/// Document rules of graphql-js's that GraphQLSwift leaves out, or checks in part: a
/// subscription selects one field, introspection stays shallow, a `@oneOf` field is never given
/// a nullable variable, and a built-in scalar the schema never mentions is unknown.
enum OperationRules {
    /// SingleFieldSubscriptionsRule: a subscription selects exactly one root field (after its
    /// fragments are merged), never an introspection field.
    static func singleFieldSubscriptions(_ document: Document, schema: SchemaModel) -> [ValidationError] {
        let rule = "SingleFieldSubscriptionsRule"
        guard let root = schema.rootTypes[.subscription], schema.type(named: root)?.kind == .object else { return [] }
        let fragments = fragmentsByName(document)
        var errors: [ValidationError] = []
        for case let operation as OperationDefinition in document.definitions where operation.operation == .subscription {
            var keys: [String] = []
            var fields: [String: [GraphQL.Field]] = [:]
            var visited: Set<String> = []
            func collect(_ selectionSet: SelectionSet) {
                for selection in selectionSet.selections where isIncluded(directives(of: selection)) {
                    switch selection {
                    case let field as GraphQL.Field:
                        let key = field.alias?.value ?? field.name.value
                        if fields[key] == nil { keys.append(key) }
                        fields[key, default: []].append(field)
                    case let inline as InlineFragment:
                        if inline.typeCondition.map({ applies($0.name.value, to: root, schema) }) ?? true { collect(inline.selectionSet) }
                    case let spread as FragmentSpread:
                        guard visited.insert(spread.name.value).inserted, let fragment = fragments[spread.name.value],
                            applies(fragment.typeCondition.name.value, to: root, schema)
                        else { continue }
                        collect(fragment.selectionSet)
                    default:
                        continue
                    }
                }
            }
            collect(operation.selectionSet)
            let subject = operation.name.map { "Subscription \"\($0.value)\"" } ?? "Anonymous Subscription"
            if keys.count > 1 {
                errors.append(ValidationError(
                    rule: rule, "\(subject) must select only one top level field.", at: keys.dropFirst().flatMap { fields[$0]! }.map(\.loc)))
            }
            for key in keys where fields[key]![0].name.value.hasPrefix("__") {
                errors.append(ValidationError(rule: rule, "\(subject) must not select an introspection top level field.", at: fields[key]!.map(\.loc)))
            }
        }
        return errors
    }

    /// Whether `@skip`/`@include` with literal conditions leave a selection in (a condition on a
    /// variable has no value while validating: it is in).
    private static func isIncluded(_ directives: [Directive]) -> Bool {
        func literal(_ name: String) -> Bool? {
            guard let directive = directives.first(where: { $0.name.value == name }),
                let value = directive.arguments.first(where: { $0.name.value == "if" })?.value as? BooleanValue
            else { return nil }
            return value.value
        }
        return literal("skip") != true && literal("include") != false
    }

    private static func directives(of selection: Selection) -> [Directive] {
        switch selection {
        case let field as GraphQL.Field: return field.directives
        case let inline as InlineFragment: return inline.directives
        case let spread as FragmentSpread: return spread.directives
        default: return []
        }
    }

    /// Whether a type condition holds for an object of type `object`.
    private static func applies(_ condition: String, to object: String, _ schema: SchemaModel) -> Bool {
        condition == object || (schema.type(named: condition)?.kind != .object && schema.possibleTypes(of: condition).contains(object))
    }

    static func fragmentsByName(_ document: Document) -> [String: FragmentDefinition] {
        var fragments: [String: FragmentDefinition] = [:]
        for case let fragment as FragmentDefinition in document.definitions where fragments[fragment.name.value] == nil {
            fragments[fragment.name.value] = fragment
        }
        return fragments
    }

    /// MaxIntrospectionDepthRule: below `__schema` or `__type`, at most two nested `fields`,
    /// `interfaces`, `possibleTypes` or `inputFields` (fragments followed), so that an
    /// introspection query cannot grow exponentially.
    static func maxIntrospectionDepth(_ document: Document) -> [ValidationError] {
        let fragments = fragmentsByName(document)
        let lists: Set<String> = ["fields", "interfaces", "possibleTypes", "inputFields"]
        func tooDeep(_ selections: [Selection], depth: Int, visiting: inout Set<String>) -> Bool {
            for selection in selections {
                switch selection {
                case let spread as FragmentSpread:
                    guard !visiting.contains(spread.name.value), let fragment = fragments[spread.name.value] else { continue }
                    visiting.insert(spread.name.value)
                    defer { visiting.remove(spread.name.value) }
                    if tooDeep(fragment.selectionSet.selections, depth: depth, visiting: &visiting) { return true }
                case let field as GraphQL.Field:
                    let depth = lists.contains(field.name.value) ? depth + 1 : depth
                    if depth >= 3 { return true }
                    if let nested = field.selectionSet, tooDeep(nested.selections, depth: depth, visiting: &visiting) { return true }
                case let inline as InlineFragment:
                    if tooDeep(inline.selectionSet.selections, depth: depth, visiting: &visiting) { return true }
                default:
                    continue
                }
            }
            return false
        }
        var errors: [ValidationError] = []
        func walk(_ selections: [Selection]) {
            for selection in selections {
                switch selection {
                case let field as GraphQL.Field:
                    var visiting: Set<String> = []
                    if field.name.value == "__schema" || field.name.value == "__type",
                        tooDeep(field.selectionSet?.selections ?? [], depth: 0, visiting: &visiting)
                    {
                        errors.append(ValidationError(rule: "MaxIntrospectionDepthRule", "Maximum introspection depth exceeded", at: [field.loc]))
                        continue
                    }
                    walk(field.selectionSet?.selections ?? [])
                case let inline as InlineFragment:
                    walk(inline.selectionSet.selections)
                default:
                    continue
                }
            }
        }
        for definition in document.definitions {
            if let operation = definition as? OperationDefinition { walk(operation.selectionSet.selections) }
            if let fragment = definition as? FragmentDefinition { walk(fragment.selectionSet.selections) }
        }
        return errors
    }

    /// ValuesOfCorrectTypeRule's part for the non-null input fields with a default that
    /// GraphQLSwift's copy of the schema has nullable (`GraphQLSwiftSchema`): `null` is no value
    /// for them.
    static func nullsForRewrittenDefaults(_ document: Document, schema: SchemaModel) -> [ValidationError] {
        let cycles = InputCycles(schema, throughLists: true)
        return inputFields(document, schema: schema) { written in
            let definition = written.definition
            guard written.field.value is NullValue, definition.type.isNonNull, definition.hasDefault,
                cycles.isIndirect(written.input.name, definition.name)
            else { return nil }
            return ValidationError(
                rule: "ValuesOfCorrectTypeRule", "Expected value of type \"\(definition.type)\", found null.", at: [written.field.value.loc])
        }
    }

    /// VariablesInAllowedPositionRule's `@oneOf` part: a field of a `@oneOf` input object given a
    /// variable needs a non-null variable (a null would leave no field set).
    static func oneOfVariables(_ document: Document, schema: SchemaModel) -> [ValidationError] {
        inputFields(document, schema: schema) { written in
            guard written.input.isOneOf, let variable = written.field.value as? Variable,
                let declared = written.variables[variable.name.value], !(declared.type is NonNullType)
            else { return nil }
            return ValidationError(
                rule: "VariablesInAllowedPositionRule",
                "Variable \"$\(variable.name.value)\" is of type \"\(TypeRef(declared.type))\" but must be non-nullable to be used for OneOf Input Object \"\(written.input.name)\".",
                at: [declared.loc, variable.loc])
        }
    }

    /// An input object's field as an operation's literal value writes it, with what the rules
    /// above read about it.
    struct WrittenInputField {
        let field: ObjectField
        /// The input object, and the field's definition in it.
        let input: SchemaModel.TypeDefinition
        let definition: SchemaModel.InputValue
        /// The operation's variables, by name.
        let variables: [String: VariableDefinition]
    }

    /// `checkField` of every input-object field in the operations' argument values (through fragments
    /// and nested objects and lists), in order; answers the errors it found.
    private static func inputFields(
        _ document: Document, schema: SchemaModel, _ checkField: (WrittenInputField) -> ValidationError?
    ) -> [ValidationError] {
        let fragments = fragmentsByName(document)
        var errors: [ValidationError] = []
        for case let operation as OperationDefinition in document.definitions {
            var definitions: [String: VariableDefinition] = [:]
            for definition in operation.variableDefinitions { definitions[definition.variable.name.value] = definition }
            var visited: Set<String> = []
            func check(_ value: Value, of type: TypeRef) {
                switch value {
                case let object as ObjectValue:
                    guard let input = schema.type(named: type.namedType), input.kind == .inputObject else { return }
                    for field in object.fields {
                        guard let definition = input.inputFields.first(where: { $0.name == field.name.value }) else { continue }
                        if let error = checkField(WrittenInputField(field: field, input: input, definition: definition, variables: definitions)) {
                            errors.append(error)
                        }
                        check(field.value, of: definition.type)
                    }
                case let list as ListValue:
                    if case .list(let item) = type.nullable { for element in list.values { check(element, of: item) } }
                default:
                    return
                }
            }
            func walk(_ selectionSet: SelectionSet, on parentType: String?) {
                for selection in selectionSet.selections {
                    switch selection {
                    case let field as GraphQL.Field:
                        let definition = parentType.flatMap { schema.type(named: $0)?.field(named: field.name.value) }
                        for argument in field.arguments {
                            if let type = definition?.arguments.first(where: { $0.name == argument.name.value })?.type { check(argument.value, of: type) }
                        }
                        if let nested = field.selectionSet { walk(nested, on: definition?.type.namedType) }
                    case let inline as InlineFragment:
                        walk(inline.selectionSet, on: inline.typeCondition?.name.value ?? parentType)
                    case let spread as FragmentSpread:
                        guard visited.insert(spread.name.value).inserted, let fragment = fragments[spread.name.value] else { continue }
                        walk(fragment.selectionSet, on: fragment.typeCondition.name.value)
                    default:
                        continue
                    }
                }
            }
            walk(operation.selectionSet, on: schema.rootTypes[operation.operation])
        }
        return errors
    }

    /// KnownTypeNamesRule's part for built-in scalars: `Int`, `Float` and `ID` exist only in a
    /// schema that mentions them (introspection always has `String` and `Boolean`).
    /// (GraphQLSwift's schema has those its client directives name; it reports the others.)
    static func unmentionedScalars(_ document: Document, schema: Compilation.Schema) -> [ValidationError] {
        var errors: [ValidationError] = []
        for case let operation as OperationDefinition in document.definitions {
            for definition in operation.variableDefinitions {
                guard let named = TypeParts.named(definition.type), !schema.model.mentionsScalar(named.name.value),
                    schema.graphQL.getType(name: named.name.value) != nil
                else { continue }
                errors.append(ValidationError(rule: "KnownTypeNamesRule", "Unknown type \"\(named.name.value)\".", at: [named.loc]))
            }
        }
        return errors
    }
}
