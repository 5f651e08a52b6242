import Foundation
import GraphQL
import HTTPTypes
import Hummingbird
import NIOCore

/// How a server writes an incremental (`@defer`, `@stream`) answer.
public enum IncrementalFormat: String, Sendable {
    /// `pending` / `incremental` (by id) / `completed`, as graphql-js 17 writes it.
    case current
    /// `incremental: [{data, path, label}]`, as Apollo Server and Router write it (`deferSpec=20220824`).
    case v2022
}

/// `@defer` for the test and dev servers, whose GraphQL engine executes it as if it were not there
/// (their schemas declare ``deferDirective`` so that it validates): the document is executed
/// whole, then the result is cut into a first payload without
/// the deferred fragments' fields and one payload per deferred fragment (per list item when the
/// fragment is inside a list), nested ones after their parent, written as `multipart/mixed`.
/// Field errors inside a deferred fragment travel with its payload. `@stream` (declared as
/// ``streamDirective``) is cut the same way when the operation has no active `@defer`: each
/// streamed list after its `initialCount` items, one item a payload.
public enum IncrementalDelivery {
    /// `directive @defer(label: String, if: Boolean! = true) on FRAGMENT_SPREAD | INLINE_FRAGMENT`.
    public static let deferDirective: GraphQLDirective = {
        do {
            return try GraphQLDirective(
                name: "defer", description: "Delivers the fragment after the rest of the result.",
                locations: [.fragmentSpread, .inlineFragment],
                args: ["label": GraphQLArgument(type: GraphQLString), "if": GraphQLArgument(type: GraphQLNonNull(GraphQLBoolean), defaultValue: .bool(true))])
        } catch {
            preconditionFailure("the @defer directive is valid: \(error)")
        }
    }()

    /// `directive @stream(label: String, if: Boolean! = true, initialCount: Int! = 0) on FIELD`.
    public static let streamDirective: GraphQLDirective = {
        do {
            return try GraphQLDirective(
                name: "stream", description: "Delivers the list's items after the first initialCount as they are ready.",
                locations: [.field],
                args: [
                    "label": GraphQLArgument(type: GraphQLString),
                    "if": GraphQLArgument(type: GraphQLNonNull(GraphQLBoolean), defaultValue: .bool(true)),
                    "initialCount": GraphQLArgument(type: GraphQLNonNull(GraphQLInt), defaultValue: .int(0)),
                ])
        } catch {
            preconditionFailure("the @stream directive is valid: \(error)")
        }
    }()

    /// ``deferDirective`` as SDL, for schemas built from SDL.
    public static let deferDirectiveSDL = "directive @defer(label: String, if: Boolean! = true) on FRAGMENT_SPREAD | INLINE_FRAGMENT"

    /// ``streamDirective`` as SDL, for schemas built from SDL.
    public static let streamDirectiveSDL = "directive @stream(label: String, if: Boolean! = true, initialCount: Int! = 0) on FIELD"

    /// One deferred fragment's data, where it goes, and the fragments deferred inside it.
    struct Deferred {
        var path: [Any]
        var label: String?
        var data: [String: Any]
        var children: [Deferred]
    }

    /// How a server writes its `@defer` answers.
    public struct Options: Sendable {
        /// The payload format.
        public var format: IncrementalFormat
        /// Stops after that many parts without the closing boundary, as a server that dies
        /// mid-answer would; `nil` answers whole.
        public var cutAfter: Int?
        /// Waits before each part after the first, as slow deferred work would.
        public var partDelay: Duration?
        /// Told when the client closed the connection before the end.
        public var onClientGone: (@Sendable () -> Void)?

        /// Options; by default the current format, whole, without delay.
        public init(
            format: IncrementalFormat = .current, cutAfter: Int? = nil, partDelay: Duration? = nil, onClientGone: (@Sendable () -> Void)? = nil
        ) {
            self.format = format
            self.cutAfter = cutAfter
            self.partDelay = partDelay
            self.onClientGone = onClientGone
        }
    }

    /// A multipart answer for `operation` (of `document`, the parsed `query`) when it has a `@defer`
    /// that applies under the variables, else `nil` (answer as usual).
    static func respond(
        schema: GraphQLSchema, document: Document, operation: OperationDefinition, query: String, operationName: String?,
        variablesJSON: Data?, context: any Sendable, options: Options
    ) async throws -> Response? {
        let format = options.format
        guard query.contains("@defer") || query.contains("@stream") else { return nil }
        let variables = (variablesJSON.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]) ?? [:]
        var fragments: [String: FragmentDefinition] = [:]
        for case let fragment as FragmentDefinition in document.definitions { fragments[fragment.name.value] = fragment }
        let splitter = Splitter(schema: schema, fragments: fragments, variables: variables)
        guard splitter.hasActiveDefer(operation.selectionSet) else {
            return try await stream(
                schema: schema, operation: operation, query: query, operationName: operationName, variablesJSON: variablesJSON,
                context: context, splitter: splitter, options: options)
        }

        let mapVariables = try variablesJSON.map { try JSONDecoder().decode([String: Map].self, from: $0) } ?? [:]
        var result = try await graphql(schema: schema, request: query, context: context, variableValues: mapVariables, operationName: operationName)
        result.errors = result.errors.map(GraphQLHTTPResponder.withExtensions)
        let encoded = try JSONSerialization.jsonObject(with: GraphQLJSONEncoder().encode(result)) as? [String: Any] ?? [:]
        guard let data = encoded["data"] as? [String: Any] else { return nil }  // a request error: answer it whole
        var errors = encoded["errors"] as? [[String: Any]] ?? []

        let (initial, deferred) = splitter.split(operation.selectionSet.selections, data, path: [])
        var payloads: [[String: Any]] = []
        var first: [String: Any] = ["data": initial, "hasNext": !deferred.isEmpty]
        let firstErrors = take(&errors) { path in !deferred.contains { isPrefix($0.path, of: path) && !covers(initial, path) } }
        if !firstErrors.isEmpty { first["errors"] = firstErrors }
        var nextID = 0
        var queue: [(Deferred, String)] = deferred.map { fragment in
            defer { nextID += 1 }
            return (fragment, String(nextID))
        }
        if format == .current {
            first["pending"] = queue.map { pending($0.0, id: $0.1) }
        }
        payloads.append(first)
        while !queue.isEmpty {
            let (fragment, id) = queue.removeFirst()
            let children: [(Deferred, String)] = fragment.children.map { child in
                defer { nextID += 1 }
                return (child, String(nextID))
            }
            queue.append(contentsOf: children)
            let fragmentErrors = take(&errors) { path in isPrefix(fragment.path, of: path) }
            var entry: [String: Any] = ["data": fragment.data]
            if !fragmentErrors.isEmpty { entry["errors"] = fragmentErrors }
            var payload: [String: Any] = ["hasNext": !queue.isEmpty]
            switch format {
            case .v2022:
                entry["path"] = fragment.path
                if let label = fragment.label { entry["label"] = label }
                payload["incremental"] = [entry]
            case .current:
                entry["id"] = id
                payload["incremental"] = [entry]
                payload["completed"] = [["id": id]]
                if !children.isEmpty { payload["pending"] = children.map { pending($0.0, id: $0.1) } }
            }
            payloads.append(payload)
        }
        return multipart(payloads, options: options)
    }

    /// A multipart answer for an operation with an active `@stream` (and no `@defer`): the
    /// document is executed whole, then each streamed list (on a path that passes through no other
    /// list) is cut after its `initialCount` items, and the rest follow one item a payload.
    private static func stream(
        schema: GraphQLSchema, operation: OperationDefinition, query: String, operationName: String?, variablesJSON: Data?,
        context: any Sendable, splitter: Splitter, options: Options
    ) async throws -> Response? {
        let mapVariables = try variablesJSON.map { try JSONDecoder().decode([String: Map].self, from: $0) } ?? [:]
        var result = try await graphql(schema: schema, request: query, context: context, variableValues: mapVariables, operationName: operationName)
        result.errors = result.errors.map(GraphQLHTTPResponder.withExtensions)
        let encoded = try JSONSerialization.jsonObject(with: GraphQLJSONEncoder().encode(result)) as? [String: Any] ?? [:]
        guard var data = encoded["data"] as? [String: Any] else { return nil }
        let streams = splitter.streams(operation.selectionSet.selections, data, path: [])
        guard !streams.isEmpty else { return nil }
        var first: [String: Any] = ["data": [:]]
        if let errors = encoded["errors"] { first["errors"] = errors }
        var later: [[String: Any]] = []
        var pending: [[String: Any]] = []
        for (index, stream) in streams.enumerated() {
            guard let list = value(at: stream.path, in: data) as? [Any] else { continue }
            let initialCount = min(stream.initialCount, list.count)
            data = replacing(at: stream.path[...], in: data, with: Array(list.prefix(initialCount))) as? [String: Any] ?? data
            let rest = list.dropFirst(initialCount)
            guard !rest.isEmpty else { continue }
            let id = String(index)
            var announced: [String: Any] = ["id": id, "path": stream.path]
            if let label = stream.label { announced["label"] = label }
            pending.append(announced)
            for (offset, item) in rest.enumerated() {
                var entry: [String: Any] = ["items": [item]]
                var payload: [String: Any] = [:]
                switch options.format {
                case .v2022:
                    entry["path"] = stream.path + [initialCount + offset]
                    if let label = stream.label { entry["label"] = label }
                case .current:
                    entry["id"] = id
                    if offset == rest.count - 1 { payload["completed"] = [["id": id]] }
                }
                payload["incremental"] = [entry]
                later.append(payload)
            }
        }
        first["data"] = data
        first["hasNext"] = !later.isEmpty
        if options.format == .current, !pending.isEmpty { first["pending"] = pending }
        for index in later.indices { later[index]["hasNext"] = index < later.count - 1 }
        return multipart([first] + later, options: options)
    }

    private static func value(at path: [Any], in data: Any) -> Any? {
        var current: Any = data
        for component in path {
            guard let key = component as? String, let object = current as? [String: Any], let next = object[key] else { return nil }
            current = next
        }
        return current
    }

    private static func replacing(at path: ArraySlice<Any>, in value: Any, with replacement: Any) -> Any {
        guard let key = path.first as? String, var object = value as? [String: Any], let child = object[key] else { return path.isEmpty ? replacement : value }
        object[key] = replacing(at: path.dropFirst(), in: child, with: replacement)
        return object
    }

    /// `payloads` as `multipart/mixed`, part by part, cut or slowed as `options` say.
    private static func multipart(_ payloads: [[String: Any]], options: Options) -> Response {
        let (format, cutAfter, partDelay, onClientGone) = (options.format, options.cutAfter, options.partDelay, options.onClientGone)
        // Each part ends with the next delimiter, written with it, so that a reader knows the
        // part is whole as soon as it arrives (as Apollo Server and graphql-http write them).
        let boundary = "-"
        var parts: [ByteBuffer] = []
        for (index, payload) in payloads.enumerated() {
            if let cutAfter, index >= cutAfter { break }
            let json = (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data("{}".utf8)
            var part = index == 0 ? "\r\n--\(boundary)" : ""
            part += "\r\nContent-Type: application/json; charset=utf-8\r\n\r\n" + String(decoding: json, as: UTF8.self) + "\r\n--\(boundary)"
            parts.append(ByteBuffer(string: part))
        }
        if cutAfter == nil || cutAfter! >= payloads.count {
            parts.append(ByteBuffer(string: "--\r\n"))
        } else if !parts.isEmpty {
            // Cut off inside the next part, as a server that dies mid-answer leaves it.
            parts.append(ByteBuffer(string: "\r\nContent-Type: application/json\r\n\r\n{\"incremental\": ["))
        }
        let body = parts
        var response = Response(status: .ok, body: ResponseBody { writer in
            // Part by part, so that a client reads each as it comes.
            do {
                for (index, part) in body.enumerated() {
                    if index > 0, let partDelay { try await Task.sleep(for: partDelay) }
                    try await writer.write(part)
                }
                try await writer.finish(nil)
            } catch {
                onClientGone?()
                throw error
            }
        })
        let spec = format == .v2022 ? "; deferSpec=20220824" : ""
        response.headers[.contentType] = "multipart/mixed; boundary=\"\(boundary)\"\(spec)"
        return response
    }

    private static func pending(_ fragment: Deferred, id: String) -> [String: Any] {
        var entry: [String: Any] = ["id": id, "path": fragment.path]
        if let label = fragment.label { entry["label"] = label }
        return entry
    }

    /// Removes and returns the errors whose path `belongs` says.
    private static func take(_ errors: inout [[String: Any]], where belongs: ([Any]) -> Bool) -> [[String: Any]] {
        var taken: [[String: Any]] = []
        errors.removeAll { error in
            guard belongs(error["path"] as? [Any] ?? []) else { return false }
            taken.append(error)
            return true
        }
        return taken
    }

    private static func isPrefix(_ prefix: [Any], of path: [Any]) -> Bool {
        guard prefix.count < path.count else { return false }
        return zip(prefix, path).allSatisfy { "\($0)" == "\($1)" }
    }

    /// Whether the first payload's data holds the field at `path`.
    private static func covers(_ data: [String: Any], _ path: [Any]) -> Bool {
        var current: Any = data
        for component in path {
            if let key = component as? String, let object = current as? [String: Any], let next = object[key] {
                current = next
            } else if let index = component as? Int, let list = current as? [Any], list.indices.contains(index) {
                current = list[index]
            } else {
                return false
            }
        }
        return true
    }

    /// Walks selections beside the result they produced.
    struct Splitter {
        let schema: GraphQLSchema
        let fragments: [String: FragmentDefinition]
        let variables: [String: Any]

        /// The deferral of a fragment: nil when not deferred (no `@defer`, or `if:` false), else its label.
        func deferral(_ directives: [Directive]) -> String?? {
            guard let directive = directives.first(where: { $0.name.value == "defer" }) else { return nil }
            var label: String?
            for argument in directive.arguments {
                switch argument.name.value {
                case "if":
                    if let boolean = argument.value as? BooleanValue, !boolean.value { return nil }
                    if let variable = argument.value as? Variable, (variables[variable.name.value] as? Bool) != true { return nil }
                case "label":
                    label = (argument.value as? StringValue)?.value
                default: break
                }
            }
            return .some(label)
        }

        /// Where a field has an active `@stream`: its path, label and initial count. Lists are
        /// not entered: a streamed field inside a list item is delivered whole.
        func streams(_ selections: [Selection], _ object: [String: Any], path: [Any]) -> [(path: [Any], label: String?, initialCount: Int)] {
            var found: [(path: [Any], label: String?, initialCount: Int)] = []
            for selection in selections {
                if let field = selection as? Field {
                    let key = field.alias?.value ?? field.name.value
                    if let directive = field.directives.first(where: { $0.name.value == "stream" }), isActive(directive) {
                        var label: String?
                        var initialCount = 0
                        for argument in directive.arguments {
                            if argument.name.value == "label" { label = (argument.value as? StringValue)?.value }
                            if argument.name.value == "initialCount" {
                                if let literal = argument.value as? IntValue { initialCount = Int(literal.value) ?? 0 }
                                if let variable = argument.value as? Variable { initialCount = variables[variable.name.value] as? Int ?? 0 }
                            }
                        }
                        found.append((path + [key], label, initialCount))
                    } else if let nested = field.selectionSet, let child = object[key] as? [String: Any] {
                        found += streams(nested.selections, child, path: path + [key])
                    }
                } else if let inline = selection as? InlineFragment, applies(inline.typeCondition, to: object) {
                    found += streams(inline.selectionSet.selections, object, path: path)
                } else if let spread = selection as? FragmentSpread, let fragment = fragments[spread.name.value], applies(fragment.typeCondition, to: object) {
                    found += streams(fragment.selectionSet.selections, object, path: path)
                }
            }
            return found
        }

        private func isActive(_ directive: Directive) -> Bool {
            guard let condition = directive.arguments.first(where: { $0.name.value == "if" }) else { return true }
            if let boolean = condition.value as? BooleanValue { return boolean.value }
            if let variable = condition.value as? Variable { return (variables[variable.name.value] as? Bool) == true }
            return true
        }

        func hasActiveDefer(_ selectionSet: SelectionSet, seen: Set<String> = []) -> Bool {
            selectionSet.selections.contains { selection in
                if let field = selection as? Field { return field.selectionSet.map { hasActiveDefer($0, seen: seen) } ?? false }
                if let inline = selection as? InlineFragment {
                    return deferral(inline.directives) != nil || hasActiveDefer(inline.selectionSet, seen: seen)
                }
                if let spread = selection as? FragmentSpread, !seen.contains(spread.name.value), let fragment = fragments[spread.name.value] {
                    return deferral(spread.directives) != nil || hasActiveDefer(fragment.selectionSet, seen: seen.union([spread.name.value]))
                }
                return false
            }
        }

        private func applies(_ condition: NamedType?, to object: [String: Any]) -> Bool {
            guard let condition, let typename = object["__typename"] as? String else { return true }
            if condition.name.value == typename { return true }
            guard let type = schema.getType(name: condition.name.value) as? (any GraphQLAbstractType) else { return false }
            return schema.getPossibleTypes(abstractType: type).contains { $0.name == typename }
        }

        /// The part of `object` that `selections` select without deferral, and the fragments
        /// they defer (at this level and below).
        func split(_ selections: [Selection], _ object: [String: Any], path: [Any]) -> ([String: Any], [Deferred]) {
            var fields: [(key: String, nested: [Selection])] = []
            var groups: [(label: String?, selections: [Selection])] = []
            collect(selections, object, fields: &fields, groups: &groups)
            var data: [String: Any] = [:]
            var deferred: [Deferred] = []
            for (key, nested) in fields {
                guard let value = object[key] else { continue }
                if nested.isEmpty {
                    data[key] = value
                } else {
                    let (kept, inner) = splitValue(value, nested, path: path + [key])
                    data[key] = kept
                    deferred += inner
                }
            }
            for group in groups {
                let (groupData, inner) = split(group.selections, object, path: path)
                deferred.append(Deferred(path: path, label: group.label, data: groupData, children: inner))
            }
            return (data, deferred)
        }

        private func splitValue(_ value: Any, _ selections: [Selection], path: [Any]) -> (Any, [Deferred]) {
            if let object = value as? [String: Any] { return split(selections, object, path: path) }
            if let list = value as? [Any] {
                var items: [Any] = []
                var deferred: [Deferred] = []
                for (index, item) in list.enumerated() {
                    let (kept, inner) = splitValue(item, selections, path: path + [index])
                    items.append(kept)
                    deferred += inner
                }
                return (items, deferred)
            }
            return (value, [])
        }

        private func collect(
            _ selections: [Selection], _ object: [String: Any], fields: inout [(key: String, nested: [Selection])],
            groups: inout [(label: String?, selections: [Selection])]
        ) {
            for selection in selections {
                if let field = selection as? Field {
                    let key = field.alias?.value ?? field.name.value
                    let nested = field.selectionSet?.selections ?? []
                    if let index = fields.firstIndex(where: { $0.key == key }) {
                        fields[index].nested += nested
                    } else {
                        fields.append((key, nested))
                    }
                } else if let inline = selection as? InlineFragment {
                    guard applies(inline.typeCondition, to: object) else { continue }
                    if let label = deferral(inline.directives) {
                        groups.append((label, inline.selectionSet.selections))
                    } else {
                        collect(inline.selectionSet.selections, object, fields: &fields, groups: &groups)
                    }
                } else if let spread = selection as? FragmentSpread, let fragment = fragments[spread.name.value] {
                    guard applies(fragment.typeCondition, to: object) else { continue }
                    if let label = deferral(spread.directives) {
                        groups.append((label, fragment.selectionSet.selections))
                    } else {
                        collect(fragment.selectionSet.selections, object, fields: &fields, groups: &groups)
                    }
                }
            }
        }
    }
}
