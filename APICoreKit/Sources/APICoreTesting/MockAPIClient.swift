@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// An `APIClient` for a kit's unit tests: answers come from stubs, per GraphQL operation name and
/// per REST endpoint, and every request sent is recorded.
///
/// GraphQL answers go through the same validation and mapping as the real engine, so a fixture
/// that does not match the operation's selection set fails the same way a server response would.
///
/// ```swift
/// let client = MockAPIClient()
/// try client.stub(operation: "CurrentUser", fixture: Bundle.module.url(forResource: "user", withExtension: "json")!)
/// client.stub(.get, "products/42", json: ["id": "42", "name": "Tea"])
/// ```
///
/// Several stubs for the same key answer in turn; the last one keeps answering.
///
/// Watchers get the stubbed answer first and then whatever ``publish(operation:response:)`` sends.
/// Subscriptions get what ``publish(subscription:response:)`` sends, until
/// ``finishSubscriptions(_:throwing:)``.
/// The cache is a plain store of the data written with `writeQuery` (no normalization); record
/// operations are only recorded, in ``cacheOperations``.
public final class MockAPIClient: APIClient, GraphQLCache, OfflineMutationQueue, @unchecked Sendable {
    /// A request the mock received.
    public struct SentRequest: Sendable, Hashable {
        /// The GraphQL operation name, or `METHOD path` for REST.
        public var name: String
        /// The GraphQL variables, or the REST body as JSON (`null` when there is none).
        public var payload: JSONValue
        /// The REST query items as name/value pairs, empty for GraphQL.
        public var query: [String: String]
        /// The request's own headers.
        public var headers: [String: String]
        /// The cache policy of a query, `nil` for mutations and REST.
        public var cachePolicy: CachePolicy? = nil
        /// The `data` of a mutation's optimistic response, when it had one.
        public var optimisticResponse: JSONObject? = nil
    }

    /// What a stub answers.
    public enum Answer: Sendable {
        /// A whole response body: for GraphQL `{"data": …, "errors": …}`, for REST the JSON body.
        case json(JSONValue)
        /// An error, thrown as it is.
        case error(APIError)
        /// The `data` of a GraphQL answer, built from a generated mock of the root type for the
        /// operation that asks (see ``MockObject``).
        case mock(any MockObject)
    }

    let lock = NSLock()
    var stubs: [String: [Answer]] = [:]
    var sentRequests: [SentRequest] = []
    var watchers: [String: [UUID: @Sendable (JSONValue) -> Void]] = [:]
    var subscribers: [String: [UUID: (event: @Sendable (JSONValue) -> Void, finish: @Sendable (APIError?) -> Void)]] = [:]
    var writtenQueries: [String: JSONObject] = [:]
    var fragmentWatchers: [String: [UUID: @Sendable (JSONObject?) -> Void]] = [:]
    var queue: [(mutation: QueuedMutation, send: @Sendable () throws(APIError) -> Void)] = []
    var queueObservers: [UUID: AsyncStream<QueuedMutation>.Continuation] = [:]
    var recordedCacheOperations: [String] = []
    var registered: [String] = []

    /// A mock with no stubs.
    public init() {}

    // MARK: Stubbing

    /// Answers the operation named `operation` with `data` (the `data` object of a response).
    public func stub(operation: String, data: JSONObject) {
        add(.json(.object(["data": .object(data)])), for: operation)
    }

    /// Answers the operation with data built from a generated mock of its root type
    /// (`Mock.Query(hero: Mock.Droid(name: "R2-D2"))`): each field the operation selects is read
    /// from the mock, so no JSON is written by hand.
    public func stub(operation: String, mock: some MockObject) {
        add(.mock(mock), for: operation)
    }

    /// Answers the operation with a whole GraphQL response, errors and partial data included.
    public func stub(operation: String, response: JSONValue) {
        add(.json(response), for: operation)
    }

    /// Answers the operation with a whole GraphQL response read from a JSON file.
    public func stub(operation: String, fixture: URL) throws {
        add(.json(try Self.load(fixture)), for: operation)
    }

    /// Answers the operation with an error.
    public func stub(operation: String, error: APIError) {
        add(.error(error), for: operation)
    }

    /// Answers `method path` with a JSON body.
    public func stub(_ method: HTTPMethod, _ path: String, json: JSONValue) {
        add(.json(json), for: Self.key(method, path))
    }

    /// Answers `method path` with a value encoded as JSON.
    public func stub(_ method: HTTPMethod, _ path: String, value: some Encodable) throws {
        add(.json(try JSONParser.parse(JSONEncoder().encode(value))), for: Self.key(method, path))
    }

    /// Answers `method path` with a JSON body read from a file.
    public func stub(_ method: HTTPMethod, _ path: String, fixture: URL) throws {
        add(.json(try Self.load(fixture)), for: Self.key(method, path))
    }

    /// Answers `method path` with an error.
    public func stub(_ method: HTTPMethod, _ path: String, error: APIError) {
        add(.error(error), for: Self.key(method, path))
    }

    /// Every request received so far, in order.
    public var sent: [SentRequest] {
        lock.withLock { sentRequests }
    }

    /// The requests received for an operation name or `METHOD path`.
    public func sent(_ name: String) -> [SentRequest] {
        sent.filter { $0.name == name }
    }

    // MARK: APIClient

    /// Answers from the stub for `METHOD path`. A raw body is recorded as the JSON it holds (or as
    /// text); with ``APICore/RESTRequest/acceptsAnyStatus``, an HTTP status error stubbed for it is
    /// the response, with the error's status, headers and body excerpt.
    public func send<Value>(_ request: RESTRequest<Value>) async throws(APIError) -> Response<Value> {
        if Task.isCancelled { throw .cancelled }
        let path = request.path.hasPrefix("/") ? String(request.path.dropFirst()) : request.path
        let key = Self.key(request.method, path)
        var payload = JSONValue.null
        if let body = request.body {
            do {
                payload = try JSONParser.parse(JSONEncoder().encode(body))
            } catch {
                throw .invalidRequest("the body of \(key) could not be encoded as JSON: \(error)")
            }
        } else if let raw = request.rawBody {
            payload = (try? JSONParser.parse(raw.data)) ?? .string(String(decoding: raw.data, as: UTF8.self))
        }
        record(SentRequest(
            name: key, payload: payload,
            query: Dictionary(request.queryItems.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last }),
            headers: request.headers))
        var metadata = Self.metadata(key)
        let body: Data
        do throws(APIError) {
            body = JSONSerializer.data(try answer(for: key, data: nil))
        } catch {
            switch error {
            case .httpStatus(let failure) where request.acceptsAnyStatus, .unauthorized(let failure) where request.acceptsAnyStatus:
                body = Data(failure.bodyExcerpt.utf8)
                metadata.statusCode = failure.statusCode
                metadata.headers = failure.headers
            default:
                throw error
            }
        }
        do {
            return Response(value: try request.decode(body), metadata: metadata)
        } catch {
            throw APIError.decodingFailure(error, body: body, statusCode: metadata.statusCode, request: key)
        }
    }

    /// Answers from the stub for the query's operation name, whatever the policy (which is recorded).
    public func fetch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy) async throws(APIError)
        -> Response<Value>
    {
        try execute(request, cachePolicy: cachePolicy)
    }

    /// The stubbed answer, once.
    public func responses<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        APIStream { continuation in
            continuation.yield(Result { () throws(APIError) in try execute(request, cachePolicy: cachePolicy) })
            continuation.finish()
        }
    }

    /// The stubbed answer, then every response published for the operation, until the consumer stops.
    public func watch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        APIStream { continuation in
            continuation.yield(Result { () throws(APIError) in try execute(request, cachePolicy: cachePolicy) })
            let id = UUID()
            let name = Query.operationName
            lock.withLock {
                watchers[name, default: [:]][id] = { json in
                    continuation.yield(Result { () throws(APIError) in try Self.decode(json, for: request, body: JSONSerializer.data(json)) })
                }
            }
            continuation.onTermination = { [weak self] _ in
                self?.lock.withLock { _ = self?.watchers[name]?.removeValue(forKey: id) }
            }
        }
    }

    /// Sends a whole GraphQL response to the active watchers of an operation, as if the cache had changed.
    public func publish(operation: String, response: JSONValue) {
        let targets = lock.withLock { Array((watchers[operation] ?? [:]).values) }
        for target in targets { target(response) }
    }

    /// How many watchers are active for an operation.
    public func watcherCount(_ operation: String) -> Int {
        lock.withLock { watchers[operation]?.count ?? 0 }
    }

    /// Records the subscription, then yields what ``publish(subscription:response:)`` sends for its
    /// operation name, until ``finishSubscriptions(_:throwing:)`` or the consumer stops.
    public func subscribe<Subscription: GraphQLSubscription, Value>(_ request: GraphQLRequest<Subscription, Value>) -> APISubscription<Value> {
        let name = Subscription.operationName
        record(SentRequest(name: name, payload: .object(request.operation.variablesJSON), query: [:], headers: request.headers))
        return APISubscription { continuation in
            let id = UUID()
            continuation.setState(.active)
            lock.withLock {
                subscribers[name, default: [:]][id] = (
                    event: { json in
                        do throws(APIError) {
                            continuation.yield(try Self.decode(json, for: request, body: JSONSerializer.data(json)).value)
                        } catch {
                            continuation.finish(throwing: error)
                        }
                    },
                    finish: { error in continuation.finish(throwing: error) }
                )
            }
            continuation.onTermination { [weak self] in
                self?.lock.withLock { _ = self?.subscribers[name]?.removeValue(forKey: id) }
            }
        }
    }

    /// Sends a whole GraphQL response (`{"data": …}`) to the active subscriptions of an operation,
    /// as if the server had sent an event.
    public func publish(subscription operation: String, response: JSONValue) {
        let targets = lock.withLock { Array((subscribers[operation] ?? [:]).values) }
        for target in targets { target.event(response) }
    }

    /// Ends the active subscriptions of an operation, as if the server had completed them (or, with
    /// an error, as if they had failed).
    public func finishSubscriptions(_ operation: String, throwing error: APIError? = nil) {
        let targets = lock.withLock { Array((subscribers[operation] ?? [:]).values) }
        for target in targets { target.finish(error) }
    }

    /// How many subscriptions are active for an operation.
    public func subscriberCount(_ operation: String) -> Int {
        lock.withLock { subscribers[operation]?.count ?? 0 }
    }

    /// Answers from the stub for the mutation's operation name; the optimistic response is
    /// recorded with the request (``SentRequest/optimisticResponse``).
    public func perform<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> Response<Value>
    {
        try execute(request, optimisticResponse: optimisticResponse?.__data._data)
    }

    func execute<Operation: GraphQLOperation, Value>(
        _ request: GraphQLRequest<Operation, Value>, cachePolicy: CachePolicy? = nil, optimisticResponse: JSONObject? = nil
    ) throws(APIError) -> Response<Value> {
        if Task.isCancelled { throw .cancelled }
        let name = Operation.operationName
        record(SentRequest(
            name: name, payload: .object(request.operation.variablesJSON), query: [:], headers: request.headers, cachePolicy: cachePolicy,
            optimisticResponse: optimisticResponse))
        let json = try answer(for: name, data: Operation.Data.self, variables: request.operation.coercedVariables)
        return try Self.decode(json, for: request, body: JSONSerializer.data(json))
    }

    static func decode<Operation: GraphQLOperation, Value>(_ json: JSONValue, for request: GraphQLRequest<Operation, Value>, body: Data)
        throws(APIError) -> Response<Value>
    {
        let name = Operation.operationName
        switch try GraphQLResponseReading.read(json, statusCode: 200, operationName: name, catching: Operation.Data.__selections) {
        case .caught(let data, let errors):
            let value = try request.value(from: data, statusCode: 200, body: body)
            var metadata = metadata(name)
            metadata.caughtErrors = errors
            return Response(value: value, metadata: metadata)
        case .notGraphQL:
            throw .invalidResponse(InvalidResponse(
                kind: .notGraphQLResponse, statusCode: 200, request: name, bodyExcerpt: HTTPFailure.excerpt(of: body)))
        case .data(nil):
            throw .invalidResponse(InvalidResponse(kind: .noData, statusCode: 200, request: name, bodyExcerpt: HTTPFailure.excerpt(of: body)))
        case .data(let data?):
            let value = try request.value(from: data.tree, statusCode: 200, body: body)
            return Response(value: value, metadata: metadata(name))
        }
    }

    // MARK: Internals

    static func key(_ method: HTTPMethod, _ path: String) -> String {
        "\(method) \(path.hasPrefix("/") ? String(path.dropFirst()) : path)"
    }

    static func metadata(_ name: String) -> ResponseMetadata {
        ResponseMetadata(source: .server, statusCode: 200, headers: [:], duration: .zero, operationName: name)
    }

    static func load(_ url: URL) throws -> JSONValue {
        try JSONParser.parse(try Data(contentsOf: url))
    }

    func add(_ answer: Answer, for key: String) {
        lock.withLock { stubs[key, default: []].append(answer) }
    }

    func record(_ request: SentRequest) {
        lock.withLock { sentRequests.append(request) }
    }

    /// The next answer for `key`; a mock is built into the data of `Data` (`nil` for REST, which
    /// mocks do not answer).
    func answer(for key: String, data: (any SelectionSet.Type)?, variables: JSONObject = [:]) throws(APIError) -> JSONValue {
        let answer: Answer? = lock.withLock {
            guard var queue = stubs[key], let first = queue.first else { return nil }
            if queue.count > 1 {
                queue.removeFirst()
                stubs[key] = queue
            }
            return first
        }
        switch answer {
        case .json(let json): return json
        case .error(let error): throw error
        case .mock(let mock):
            guard let data else {
                throw .invalidRequest("'\(key)' is stubbed with a mock, which answers GraphQL operations only")
            }
            do throws(MockDataError) {
                let object = try MockDataBuilder(variables: variables).object(
                    mock, selections: data.__selections, parent: data.__parentType, path: [])
                return ["data": .object(object)]
            } catch {
                throw .invalidRequest("the mock stubbed for '\(key)' does not give what it selects: \(error)")
            }
        case nil:
            let known = lock.withLock { stubs.keys.sorted() }
            throw .invalidRequest("MockAPIClient has no stub for '\(key)'; stubbed: \(known.isEmpty ? "nothing" : known.joined(separator: ", "))")
        }
    }
}
