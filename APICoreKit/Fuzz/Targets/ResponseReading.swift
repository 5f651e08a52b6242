@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import APICoreLive
import APICoreSupport
import FuzzStarWarsAPI
import Foundation
import StarWarsOperations

/// A response body read as the engine reads it (parse, envelope, validation with the variables,
/// on the tape and as a tree, which must agree), then every accessor of the generated data as an app reads them, then normalized into records
/// and read back from them as a cache hit is. Input: one byte choosing the operation, one whose
/// bits give the Boolean variables of its `@include`/`@skip` conditions, then the body.
enum ResponseReading {
    static func run(_ input: Data) {
        guard input.count >= 2 else { return }
        let bytes = [UInt8](input.prefix(2))
        read(input.dropFirst(2), as: operations[Int(bytes[0]) % operations.count], conditionBits: bytes[1])
    }

    /// Apollo's StarWars operations as the generator writes them, then the engine tests' own.
    static let operations: [any GraphQLOperation.Type] = [
        DroidDetailsWithFragmentQuery.self, HeroAndFriendsIDsQuery.self, HeroAndFriendsNamesQuery.self,
        HeroAndFriendsNamesWithFragmentQuery.self, HeroAndFriendsNamesWithFragmentTwiceQuery.self,
        HeroAndFriendsNamesWithIDForParentOnlyQuery.self, HeroAndFriendsNamesWithIDsQuery.self, HeroAppearsInQuery.self,
        HeroAppearsInWithFragmentQuery.self, HeroDetailsFragmentConditionalInclusionQuery.self,
        HeroDetailsInlineConditionalInclusionQuery.self, HeroDetailsQuery.self, HeroDetailsWithFragmentQuery.self,
        HeroFriendsDetailsConditionalInclusionQuery.self, HeroFriendsDetailsUnconditionalAndConditionalInclusionQuery.self,
        HeroFriendsOfFriendsNamesQuery.self, HeroNameAndAppearsInQuery.self, HeroNameAndAppearsInWithFragmentQuery.self,
        HeroNameConditionalBothQuery.self, HeroNameConditionalBothSeparateQuery.self, HeroNameConditionalExclusionQuery.self,
        HeroNameConditionalInclusionQuery.self, FuzzStarWarsAPI.HeroNameQuery.self, HeroNameTypeSpecificConditionalInclusionQuery.self,
        HeroNameWithFragmentAndIDQuery.self, HeroNameWithFragmentQuery.self, HeroNameWithIDQuery.self,
        HeroParentTypeDependentFieldQuery.self, HeroTypeDependentAliasedFieldQuery.self, FuzzStarWarsAPI.HumanQuery.self,
        SameHeroTwiceQuery.self, SearchQuery.self, StarshipCoordinatesQuery.self, StarshipQuery.self, TwoHeroesQuery.self,
        CreateAwesomeReviewMutation.self, CreateReviewForEpisodeMutation.self, CreateReviewWithNullFieldMutation.self,
        FuzzStarWarsAPI.ReviewAddedSubscription.self,
        StarWarsOperations.HeroNameQuery.self, HeroAndFailingQuery.self, CreateReviewMutation.self, CatalogQuery.self,
        StarWarsOperations.HumanQuery.self, RenameCharacterMutation.self, UploadFilesMutation.self,
        StarWarsOperations.ReviewAddedSubscription.self, CharacterRenamedSubscription.self, CounterSubscription.self,
        CatalogFeedSubscription.self, HeroConditionalQuery.self,
    ]

    static func read(_ body: Data, as operation: any GraphQLOperation.Type, conditionBits: UInt8) {
        func open<Operation: GraphQLOperation>(_: Operation.Type) {
            read(body, as: Operation.self, variables: variables(for: Operation.Data.self, bits: conditionBits))
        }
        open(operation)
    }

    private static func read<Operation: GraphQLOperation>(_ body: Data, as _: Operation.Type, variables: JSONObject) {
        guard let parsed = try? JSONParser.parse(body) else { return }
        let object: JSONObject
        do throws(APIError) {
            guard case .data(let data?) = try GraphQLResponseReading.read(parsed, statusCode: 200, operationName: Operation.operationName)
            else { return }
            object = data.tree
        } catch {
            guard case .graphQL(let failure) = error, let partial = failure.partialData else { return }
            object = partial
        }
        // The tape: the engine checks an answer where the reader left it; it must agree with the
        // tree's check, error for error, and its data must read the same.
        let onTape: Result<Operation.Data, GraphQLDecodingError>? = (try? JSONTape(reading: body)).flatMap { tape in
            guard case .data(.tape(let value)?)? = try? GraphQLResponseReading.read(tape.root, statusCode: 200, operationName: "") else { return nil }
            return Result { () throws(GraphQLDecodingError) in try Operation.Data(validating: value, variables: variables) }
        }
        let inTree = Result { () throws(GraphQLDecodingError) in try Operation.Data(validating: object, variables: variables) }
        if let onTape {
            switch (inTree, onTape) {
            case (.success(let tree), .success(let tape)) where tree == tape: AccessorReader(variables: variables).read(tape)
            case (.failure(let treeError), .failure(let tapeError)) where treeError == tapeError: break
            default: fatalError("fuzz invariant broken: \(Operation.operationName): the tape's check says \(onTape), the tree's \(inTree)")
            }
        }
        guard case .success(let data) = inTree else { return }
        AccessorReader(variables: variables).read(data)

        // The cache: the walk that checks data and builds its records checks it as validation
        // alone does, and reading the same selections back from those records must give data
        // that validates and reads the same way.
        let root = CacheNaming.rootKey(for: Operation.operationType)
        var recording = SelectionValidator(variables: variables, recorder: ResponseRecords(variables: variables, keyFunctions: [:]))
        var checked = object
        let place = recording.recorder?.place(key: root)
        do throws(GraphQLDecodingError) {
            try recording.validate(&checked, selections: Operation.Data.__selections, in: Operation.Data.__parentType, recordingAt: place)
        } catch {
            fatalError("fuzz invariant broken: \(Operation.operationName): data that validates fails when its records are built: \(error)")
        }
        guard checked == data.__data._data else {
            fatalError("fuzz invariant broken: \(Operation.operationName): building records changed the checked data")
        }
        let records = recording.recorder?.records ?? [:]
        // The same records from the walk over the tape, when the answer stays on it.
        if case .success? = onTape, let tape = try? JSONTape(reading: body),
           case .data(.tape(let value)?)? = try? GraphQLResponseReading.read(tape.root, statusCode: 200, operationName: "")
        {
            var onTapeRecords: ResponseRecords? = ResponseRecords(variables: variables, keyFunctions: [:])
            let root = onTapeRecords?.place(key: CacheNaming.rootKey(for: Operation.operationType))
            let checked = try? TapeCheck.check(value, plan: TapePlan.of(Operation.Data.self), variables: variables, recorder: &onTapeRecords, at: root)
            if checked == true, onTapeRecords?.records != records {
                fatalError("fuzz invariant broken: \(Operation.operationName): the tape's records differ from the tree's")
            }
            // Records kept on the tape until written are the same once made trees.
            var kept: ResponseRecords? = ResponseRecords(variables: variables, keyFunctions: [:], keepingOnTape: true)
            let keptRoot = kept?.place(key: CacheNaming.rootKey(for: Operation.operationType))
            if checked == true, (try? TapeCheck.check(value, plan: TapePlan.of(Operation.Data.self), variables: variables, recorder: &kept, at: keptRoot)) == true,
               let kept, kept.records.merging(kept.onTape.mapValues(\.fields), uniquingKeysWith: { tree, _ in tree }) != records
            {
                fatalError("fuzz invariant broken: \(Operation.operationName): the records kept on the tape differ from the tree's")
            }
        }
        // A mutation's or subscription's root (and what has no key under it) is not recorded: no
        // query reads it. Only a query's data is read back.
        if let kept = records.keys.first(where: CacheNaming.isOperationOnly) {
            fatalError("fuzz invariant broken: \(Operation.operationName): a record the cache does not keep was built: \(kept)")
        }
        guard Operation.operationType == .query else { return }
        var reader = CacheReader(
            variables: variables, now: Date(), lookup: { key in records[key].map { CacheRecord(key: key, fields: $0, receivedAt: .distantPast) } },
            isExpired: { _ in false })
        let cached: JSONObject
        do throws(CacheReader.Miss) {
            cached = try reader.read(key: root, selections: Operation.Data.__selections, parent: Operation.Data.__parentType)
        } catch {
            fatalError("fuzz invariant broken: \(Operation.operationName): a validated response is a cache miss once normalized")
        }
        do throws(GraphQLDecodingError) {
            AccessorReader(variables: variables).read(try Operation.Data(validating: cached, variables: variables))
        } catch {
            fatalError("fuzz invariant broken: \(Operation.operationName): data read from the cache does not validate: \(error)")
        }
    }

    /// The Boolean variables that `@include`/`@skip` conditions read, in name order, set from `bits`.
    static func variables(for data: any SelectionSet.Type, bits: UInt8) -> JSONObject {
        var names: Set<String> = []
        collectConditionVariables(data.__selections, into: &names, seen: [])
        var variables: JSONObject = [:]
        for (index, name) in names.sorted().enumerated() {
            variables[name] = .bool(bits & (1 << (index % 8)) != 0)
        }
        return variables
    }

    private static func collectConditionVariables(_ selections: [Selection], into names: inout Set<String>, seen: Set<ObjectIdentifier>) {
        for selection in selections {
            switch selection {
            case .field(let field):
                if let object = field.type.selectionSet, !seen.contains(ObjectIdentifier(object)) {
                    collectConditionVariables(object.__selections, into: &names, seen: seen.union([ObjectIdentifier(object)]))
                }
            case .inlineFragment(let type): collectConditionVariables(type.__selections, into: &names, seen: seen)
            case .fragment(let type): collectConditionVariables(type.__selections, into: &names, seen: seen)
            case .conditional(let conditions, let nested):
                names.formUnion(conditions.map(\.variable))
                collectConditionVariables(nested, into: &names, seen: seen)
            case .deferred(let deferral, let nested):
                if let condition = deferral.condition { names.insert(condition.variable) }
                collectConditionVariables(nested, into: &names, seen: seen)
            }
        }
    }
}

extension OutputType {
    /// The selection set of an object field, through lists and non-null.
    var selectionSet: (any SelectionSet.Type)? {
        switch self {
        case .nonNull(let inner), .list(let inner): return inner.selectionSet
        case .object(let type): return type
        case .scalar: return nil
        }
    }
}

/// Reads validated data as an app does: every field through `DataDict`'s subscript with the Swift
/// type its generated accessor has (optional under a condition, whether the condition holds or
/// not), every type case and fragment whose type matches, at every depth. A field the accessor
/// cannot read traps in `DataDict`, which is what the fuzzer looks for.
struct AccessorReader {
    let variables: JSONObject

    func read<Data: SelectionSet>(_ data: Data) {
        read(data.__data, selections: Data.__selections, parent: Data.__parentType, underCondition: false)
    }

    private func read(_ data: DataDict, selections: [Selection], parent: ParentType, underCondition: Bool) {
        for selection in selections {
            switch selection {
            case .field(let field):
                readAccessor(Self.accessorType(field.type, optional: underCondition), data, field.responseKey)
                if let value = data._data[field.responseKey] { descend(value, field.type) }
            case .inlineFragment(let type):
                if typeCaseApplies(type.__parentType, data, parent) {
                    read(data, selections: type.__selections, parent: type.__parentType, underCondition: false)
                }
            case .fragment(let type):
                if typeCaseApplies(type.__parentType, data, parent) {
                    read(data, selections: type.__selections, parent: type.__parentType, underCondition: false)
                }
            case .conditional(_, let nested):
                read(data, selections: nested, parent: parent, underCondition: true)
            case .deferred(let deferral, let nested):
                // Read as the generated `Deferred` accessor does: only once fulfilled.
                if case .array(let pending)? = data._data[Deferral.pendingKey], pending.contains(.string(deferral.id)) { continue }
                read(data, selections: nested, parent: parent, underCondition: underCondition)
            }
        }
    }

    /// `_asInlineFragment()` gives a type case when the `__typename` matches; the engine's rule
    /// (also when the parent's every type satisfies it) is the other way an accessor reaches it.
    private func typeCaseApplies(_ condition: ParentType, _ data: DataDict, _ parent: ParentType) -> Bool {
        let typename = data._data["__typename"]?.stringValue
        return (typename.map(condition.matches(typename:)) ?? false) || condition.applies(toTypename: typename, within: parent)
    }

    private func descend(_ value: JSONValue, _ type: OutputType) {
        switch (type, value) {
        case (.nonNull(let inner), _): descend(value, inner)
        case (.list(let element), .array(let elements)): elements.forEach { descend($0, element) }
        case (.object(let selectionSet), .object(let object)):
            read(DataDict(_data: object), selections: selectionSet.__selections, parent: selectionSet.__parentType, underCondition: false)
        default: break
        }
    }

    private func readAccessor(_ type: any GraphQLOutputValue.Type, _ data: DataDict, _ key: String) {
        func open<Value: GraphQLOutputValue>(_: Value.Type) { _ = data[key] as Value }
        open(type)
    }

    /// The Swift type the generator gives a field's accessor: optional unless non-null and
    /// unconditional.
    static func accessorType(_ type: OutputType, optional: Bool) -> any GraphQLOutputValue.Type {
        func optionalOf<Value: GraphQLOutputValue>(_: Value.Type) -> any GraphQLOutputValue.Type { Value?.self }
        guard case .nonNull(let inner) = type else { return optionalOf(valueType(type)) }
        return optional ? optionalOf(valueType(inner)) : valueType(inner)
    }

    private static func valueType(_ type: OutputType) -> any GraphQLOutputValue.Type {
        func arrayOf<Value: GraphQLOutputValue>(_: Value.Type) -> any GraphQLOutputValue.Type { [Value].self }
        // A selection set is read boxed, as generated code reads the shapes DataDict has no
        // subscript for.
        func boxed<Object: SelectionSet>(_: Object.Type) -> any GraphQLOutputValue.Type { _ObjectValue<Object>.self }
        switch type {
        case .nonNull(let inner): return valueType(inner)
        case .scalar(let scalar): return scalar
        case .object(let selectionSet): return boxed(selectionSet)
        case .list(let element): return arrayOf(accessorType(element, optional: false))
        }
    }
}
