import Foundation

/// What a selection set contributes to a scope: its selections, the type they were written on,
/// and the conditions they are under.
struct Contribution {
    var selections: [GQL.Selection]
    /// The type the selections are written on (a fragment's or inline fragment's condition, or
    /// the field's type): their fields are looked up there when the scope's type lacks them.
    var parentType: String
    var conditions: [Condition]
    /// Identifies the document's selection set, so that identical contributions can share a type.
    var identity: ObjectIdentifier?
    /// Comes from an enclosing scope. Its type conditions that do not hold here are that scope's
    /// type cases, not this one's: a type case only nests the type conditions written inside it,
    /// which keeps the tree as deep as the document and no deeper.
    var inherited = false

    func isSame(as other: Contribution) -> Bool {
        identity != nil && identity == other.identity && conditions == other.conditions && parentType == other.parentType
    }
}

/// A field of a generated selection set, merged over every place that selects it.
final class FieldIR {
    let responseKey: String
    let definition: SchemaModel.FieldDefinition
    /// The alias and arguments as written (the first place that selects it; the validation rules
    /// make every place agree).
    let alias: String?
    let arguments: [GQL.Argument]
    /// OR of ANDs: the field is selected when one of these holds. `[[]]` means always.
    var conditionSets: [[Condition]] = []
    var subContributions: [Contribution] = []
    var nested: SelectionSetIR?
    /// The nested type is the enclosing scope's type of the same name: no struct is emitted.
    var reusesOuterType = false
    /// The nested type is a fragment's (`HouseholdDetails.Member`): a typealias is emitted instead
    /// of a struct, named `typeName`.
    var fragmentType: (typeName: String, target: String)?

    /// Where an error at the field goes (`@catch`, the operation's, the schema's default).
    let catchTo: CatchTo

    init(responseKey: String, definition: SchemaModel.FieldDefinition, alias: String?, arguments: [GQL.Argument], catchTo: CatchTo = .throw) {
        self.catchTo = catchTo
        self.responseKey = responseKey
        self.definition = definition
        self.alias = alias
        self.arguments = arguments
    }

    var isConditional: Bool { !conditionSets.contains { $0.isEmpty } }
}

/// A spread of a named fragment that always applies in its scope.
struct FragmentSpreadIR {
    var name: String
    /// The fragment's struct (`Result_` for `Result`: see `Naming.swift`).
    var typeName: String
    /// The property of `Fragments` that reads it.
    var property: String
    var conditionSets: [[Condition]]
    var isConditional: Bool { !conditionSets.contains { $0.isEmpty } }
}

/// One generated struct: a selection set on a type, with its fields (merged), its type cases and
/// its fragments.
final class SelectionSetIR {
    let typeName: String
    var structName: String
    /// The property of the enclosing struct that reads this type case (`asDroid`).
    var accessor = ""
    /// The property that reads the fragments (`fragments`, or `fragments_` when a field has the name).
    var fragmentsProperty = "fragments"
    var fields: [FieldIR] = []
    var typeCases: [SelectionSetIR] = []
    var fragments: [FragmentSpreadIR] = []
    var deferred: [DeferredIR] = []
    let contributions: [Contribution]

    init(typeName: String, structName: String, contributions: [Contribution]) {
        self.typeName = typeName
        self.structName = structName
        self.contributions = contributions
    }
}

/// Builds `SelectionSetIR` trees from the document and the schema.
struct IRBuilder {
    let schema: SchemaModel
    let fragments: [String: GQL.Fragment]
    /// The structs of fragments, and the top-level names nested types must not hide.
    let names: TopLevelNames
    private let cache = FragmentCache()
    /// Where errors go at fields without `@catch`: the operation's `@catch`, else the schema's
    /// `@catchByDefault`.
    private var defaultCatch: CatchTo

    init(schema: SchemaModel, fragments: [String: GQL.Fragment], names: TopLevelNames) {
        self.schema = schema
        self.fragments = fragments
        self.names = names
        defaultCatch = schema.catchByDefault
    }

    final class FragmentCache {
        var built: [String: SelectionSetIR] = [:]
    }

    /// The IR of a named fragment, built once.
    func fragment(_ name: String) -> SelectionSetIR? {
        if let built = cache.built[name] { return built }
        guard let definition = fragments[name] else { return nil }
        var builder = self
        builder.defaultCatch = schema.catchByDefault
        let ir = builder.build(
            typeName: definition.typeCondition, structName: names.fragment(name),
            contributions: [Contribution(
                selections: definition.selectionSet.selections, parentType: definition.typeCondition, conditions: [], identity: nil)])
        Self.shareTypes(ir)
        cache.built[name] = ir
        return ir
    }

    /// The IR of an operation's `Data`, on its root type. A local cache mutation gets nested types
    /// of its own throughout: they need setters, which a fragment's types do not have.
    func operation(_ operation: GQL.Operation) -> SelectionSetIR {
        let rootType = schema.rootType(of: operation.kind)
        var builder = self
        builder.defaultCatch = CatchTo.of(operation.directives) ?? schema.catchByDefault
        let ir = builder.build(
            typeName: rootType, structName: "Data",
            contributions: [Contribution(selections: operation.selectionSet.selections, parentType: rootType, conditions: [], identity: nil)],
            reusesFragmentTypes: !operation.directives.isLocalCacheMutation)
        Self.shareTypes(ir)
        return ir
    }

    /// The IR of a selection set on `typeName`. `scope` is every type known to hold there (the
    /// supertypes of the type and of each type condition that led here): a type condition in it is
    /// merged, any other becomes a type case. Which object types satisfy a condition today does not
    /// matter, so a type the server adds later never meets a merge that assumed it away.
    ///
    /// `reusesFragmentTypes: false` gives every field its own nested type even where a fragment has
    /// one alike (local cache mutations, whose nested types must have setters).
    func build(
        typeName: String, structName: String, scope: Set<String>? = nil, contributions: [Contribution], reusesFragmentTypes: Bool = true
    ) -> SelectionSetIR {
        let scope = scope ?? schema.supertypes(of: typeName)
        let ir = SelectionSetIR(typeName: typeName, structName: structName, contributions: contributions)
        var fieldsByKey: [String: FieldIR] = [:]
        var typeCaseContributions: [(String, [Contribution])] = []
        var fragmentConditions: [(String, [[Condition]])] = []
        var deferred: [DeferredIR] = []

        func add(_ contribution: Contribution) {
            for selection in contribution.selections {
                switch selection {
                case .field(let field):
                    guard let conditions = Condition.of(field.directives) else { continue }
                    let key = field.responseKey
                    // The scope's own definition is the most precise (an object may narrow its
                    // interface's field); a field of a condition type it does not have keeps the
                    // definition it was written against.
                    guard var definition = schema.field(field.name, on: typeName) ?? schema.field(field.name, on: contribution.parentType)
                    else { continue }
                    // `@nonnull`: the client treats a nullable field as never null (a null is then
                    // a decoding error, as for any non-null field).
                    if field.directives.contains(where: { $0.name == "nonnull" }), !definition.type.isNonNull {
                        definition.type = .nonNull(definition.type)
                    }
                    // `@semanticNonNull(levels:)`: null only with an error there, so the accessor is
                    // non-optional at those levels and a null fails the data (the server's error is
                    // what the operation throws; a null without one is a decoding error).
                    // `@catch(to: NULL)`: an error makes the field null, so it is optional whatever
                    // the schema says (RESULT and THROW keep it non-optional where it is).
                    // `__typename` never fails, so nothing catches there.
                    let catchTo = field.name == "__typename" ? .throw : fieldsByKey[key]?.catchTo ?? CatchTo.of(field.directives) ?? defaultCatch
                    var levels = definition.semanticNonNullLevels
                    if catchTo == .null { levels.remove(0) }
                    if !levels.isEmpty { definition.type = definition.type.nonNull(atLevels: levels) }
                    if catchTo == .null { definition.type = definition.type.nullable }
                    let collected: FieldIR
                    if let existing = fieldsByKey[key] {
                        collected = existing
                    } else {
                        collected = FieldIR(
                            responseKey: key, definition: definition, alias: field.alias, arguments: field.arguments, catchTo: catchTo)
                        fieldsByKey[key] = collected
                        ir.fields.append(collected)
                    }
                    let all = (contribution.conditions + conditions).uniqued()
                    if !collected.conditionSets.contains(all) { collected.conditionSets.append(all) }
                    if let selectionSet = field.selectionSet {
                        // The field's own conditions go with its selections: where the same field is
                        // also selected under other conditions, these selections apply only under these.
                        let nested = Contribution(
                            selections: selectionSet.selections, parentType: definition.type.namedType, conditions: all,
                            identity: ObjectIdentifier(selectionSet))
                        if !collected.subContributions.contains(where: { $0.isSame(as: nested) }) {
                            collected.subContributions.append(nested)
                        }
                    }
                case .inlineFragment(let inline):
                    guard let conditions = Condition.of(inline.directives) else { continue }
                    let condition = inline.typeCondition ?? contribution.parentType
                    if let directive = DeferDirective.of(inline.directives) {
                        // An enclosing scope's deferred fragment is that scope's property.
                        if !contribution.inherited {
                            let own = Contribution(
                                selections: inline.selectionSet.selections, parentType: condition, conditions: [],
                                identity: ObjectIdentifier(inline.selectionSet))
                            deferred.append(DeferredIR(
                                directive: directive, typeCondition: condition, narrows: !scope.contains(condition),
                                conditions: (contribution.conditions + conditions).uniqued(), fragmentName: nil, contribution: own))
                        }
                        continue
                    }
                    var nested = contribution
                    nested.selections = inline.selectionSet.selections
                    nested.parentType = condition
                    nested.conditions = (contribution.conditions + conditions).uniqued()
                    nested.identity = ObjectIdentifier(inline.selectionSet)
                    place(nested, on: condition)
                case .fragmentSpread(let spread):
                    guard let conditions = Condition.of(spread.directives), let fragment = fragments[spread.name] else { continue }
                    let condition = fragment.typeCondition
                    let all = (contribution.conditions + conditions).uniqued()
                    if let directive = DeferDirective.of(spread.directives) {
                        if !contribution.inherited {
                            deferred.append(DeferredIR(
                                directive: directive, typeCondition: condition, narrows: !scope.contains(condition), conditions: all,
                                fragmentName: spread.name, contribution: nil))
                        }
                        continue
                    }
                    if scope.contains(condition) {
                        if let index = fragmentConditions.firstIndex(where: { $0.0 == spread.name }) {
                            if !fragmentConditions[index].1.contains(all) { fragmentConditions[index].1.append(all) }
                        } else {
                            fragmentConditions.append((spread.name, [all]))
                        }
                        var nested = contribution
                        nested.selections = fragment.selectionSet.selections
                        nested.parentType = condition
                        nested.conditions = all
                        nested.identity = ObjectIdentifier(fragment.selectionSet)
                        add(nested)
                    } else {
                        var nested = contribution
                        nested.selections = [selection]
                        nested.conditions = all
                        nested.identity = nil
                        place(nested, on: condition)
                    }
                }
            }
        }

        /// Selections under a type condition: merged here when the condition holds wherever this
        /// scope does, a type case when it narrows (and was written at this level).
        func place(_ contribution: Contribution, on condition: String) {
            if scope.contains(condition) {
                add(contribution)
            } else if !contribution.inherited {
                if let index = typeCaseContributions.firstIndex(where: { $0.0 == condition }) {
                    typeCaseContributions[index].1.append(contribution)
                } else {
                    typeCaseContributions.append((condition, [contribution]))
                }
            }
        }

        for contribution in contributions { add(contribution) }

        // Names (Naming.swift): the fields' accessors are their response keys; the nested types,
        // type cases and deferred fragments, and the helpers' properties, take what is left.
        var properties = Set(ir.fields.map { SwiftNames.memberName($0.responseKey) })
        var usedNames = properties.union(["Fragments"])
        func helperProperty(_ base: String) -> String {
            var name = base
            while properties.contains(name) { name += "_" }
            properties.insert(name)
            return name
        }
        let inherited = contributions.map { contribution in
            var copy = contribution
            copy.inherited = true
            return copy
        }
        for (condition, caseContributions) in typeCaseContributions {
            // A type case sees every field of its enclosing scope too.
            let name = uniqueName("As" + condition.upperFirst, &usedNames)
            let typeCase = build(
                typeName: condition, structName: name, scope: scope.union(schema.supertypes(of: condition)),
                contributions: inherited + caseContributions, reusesFragmentTypes: reusesFragmentTypes)
            typeCase.accessor = helperProperty(name.lowerFirst)
            ir.typeCases.append(typeCase)
        }
        ir.fragments = fragmentConditions.map {
            FragmentSpreadIR(name: $0.0, typeName: names.fragment($0.0), property: SwiftNames.memberName($0.0.lowerFirst), conditionSets: $0.1)
        }
        if !ir.fragments.isEmpty { ir.fragmentsProperty = helperProperty("fragments") }
        for fragment in deferred {
            // Named by its label (`@defer(label: "friends")` → `Friends`), else by the fragment or
            // the type condition (`HeroDetails`, `DroidDeferred`).
            let base = fragment.directive.label.map { SwiftNames.typeName(fromLabel: $0) }
                ?? fragment.fragmentName ?? (fragment.typeCondition.upperFirst + "Deferred")
            // A named fragment's declares no type here: its name only has to be free in the struct.
            fragment.name = fragment.contribution == nil ? uniqueMember(base, &usedNames) : uniqueName(base, &usedNames)
            fragment.property = helperProperty(fragment.name.lowerFirst)
            fragment.typeName = fragment.fragmentName.map(names.fragment) ?? fragment.name
            if let own = fragment.contribution {
                fragment.nested = build(
                    typeName: fragment.typeCondition, structName: fragment.name,
                    scope: fragment.narrows ? scope.union(schema.supertypes(of: fragment.typeCondition)) : scope, contributions: [own],
                    reusesFragmentTypes: reusesFragmentTypes)
            }
        }
        ir.deferred = deferred
        for field in ir.fields where !field.subContributions.isEmpty {
            // List fields are named for one element (`friends` → `Friend`); others as they are.
            let isList = field.definition.type.nullable.isList
            let base = isList ? field.responseKey.upperFirst.singularized : field.responseKey.upperFirst
            let name = uniqueName(base, &usedNames)
            if reusesFragmentTypes, let target = fragmentType(for: field, among: ir.fragments) {
                field.fragmentType = (name, target)
            } else {
                field.nested = build(
                    typeName: field.definition.type.namedType, structName: name, contributions: Self.nestedContributions(of: field),
                    reusesFragmentTypes: reusesFragmentTypes)
            }
        }
        return ir
    }

    /// The selections of a field's nested type, each under the conditions of the place that
    /// selected it. When every place selects the field under the same conditions, the field's
    /// presence already says they hold, so its selections carry none.
    static func nestedContributions(of field: FieldIR) -> [Contribution] {
        guard field.conditionSets.count == 1 else { return field.subContributions }
        return field.subContributions.map { contribution in
            var unconditional = contribution
            unconditional.conditions = []
            return unconditional
        }
    }

    /// When a field's selections all come from one fragment spread here, that fragment already has
    /// the type: `HouseholdDetails.Member`. Reusing it keeps generated code proportional to what
    /// operations select, however many operations spread the fragment.
    private func fragmentType(for field: FieldIR, among spreads: [FragmentSpreadIR]) -> String? {
        let identities = field.subContributions.map(\.identity)
        guard !identities.contains(where: { $0 == nil }) else { return nil }
        for spread in spreads {
            guard let fragmentIR = fragment(spread.name),
                let match = fragmentIR.fields.first(where: { $0.responseKey == field.responseKey }),
                match.subContributions.map(\.identity) == identities
            else { continue }
            if let aliased = match.fragmentType { return "\(spread.typeName).\(aliased.typeName)" }
            if let nested = match.nested { return "\(spread.typeName).\(nested.structName)" }
        }
        return nil
    }

    /// `base`, or `base_2`, `base_3`, … when the struct has it.
    private func uniqueMember(_ base: String, _ used: inout Set<String>) -> String {
        var name = base
        var counter = 2
        while used.contains(name) {
            name = base + "_\(counter)"
            counter += 1
        }
        used.insert(name)
        return name
    }

    /// A nested type's name: never reserved, never a top-level name it would hide from the code
    /// inside it (`author { ...Author }`: its `Fragments` would name the nested type, not the
    /// fragment), never a name its struct already has.
    private func uniqueName(_ base: String, _ used: inout Set<String>) -> String {
        uniqueMember(SwiftNames.typeName(base, avoiding: names.taken), &used)
    }

    /// Marks nested types of type cases that are the same as the enclosing scope's, so that they
    /// are not generated twice.
    static func shareTypes(_ ir: SelectionSetIR, outer: [String: FieldIR] = [:]) {
        var scope = outer
        for field in ir.fields where field.fragmentType == nil {
            if let outerField = scope[field.responseKey], let outerNested = outerField.nested, let nested = field.nested,
                outerNested.structName == nested.structName, outerNested.typeName == nested.typeName,
                outerField.subContributions.map(\.identity) == field.subContributions.map(\.identity)
            {
                field.reusesOuterType = true
                field.nested = outerNested
            }
        }
        for field in ir.fields where field.nested != nil { scope[field.responseKey] = field }
        for field in ir.fields where !field.reusesOuterType {
            if let nested = field.nested { shareTypes(nested) }
        }
        for typeCase in ir.typeCases { shareTypes(typeCase, outer: scope) }
    }
}
