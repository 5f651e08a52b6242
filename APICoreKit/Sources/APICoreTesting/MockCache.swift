@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import Foundation

/// The mock's cache (`client.cache`): the data written with `writeQuery`, kept per operation and
/// variables, and record operations recorded in ``MockAPIClient/cacheOperations``.
extension MockAPIClient {
    /// The mock is its own cache: what is written to it is kept per operation and variables.
    public var cache: any GraphQLCache { self }

    /// The mock is its own offline queue.
    public var offlineQueue: any OfflineMutationQueue { self }

    /// The data last written for this query and variables.
    public func readQuery<Query: GraphQLQuery>(_ query: Query) async throws(APIError) -> Query.Data? {
        let key = Self.cacheKey(Query.operationName, query.coercedVariables)
        return lock.withLock { writtenQueries[key] }.map { Query.Data(_dataDict: DataDict(_data: $0)) }
    }

    /// The data last written for the request's query and variables, mapped; stubs are not read.
    public func readInMemory<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>) -> Response<Value>? {
        let key = Self.cacheKey(Query.operationName, request.operation.coercedVariables)
        guard let data = lock.withLock({ writtenQueries[key] }) else { return nil }
        guard let value = try? request.value(of: Query.Data(_dataDict: DataDict(_data: data))) else { return nil }
        return Response(
            value: value,
            metadata: ResponseMetadata(source: .cache, statusCode: nil, headers: [:], duration: .zero, operationName: Query.operationName))
    }

    /// The data kept for this key (``writeFragment(_:key:)``, an update), if it matches the fragment.
    public func readInMemory<Fragment: APICore.Fragment>(_ fragment: Fragment.Type, key: String, variables: JSONObject) -> Fragment? {
        lock.withLock { writtenQueries["fragment " + key] }.flatMap { try? Fragment(validating: $0, variables: variables) }
    }

    /// The data kept for this key, then again each time ``writeFragment(_:key:)`` or an update
    /// changes it; ``APIError/cacheMiss(_:)`` while nothing matching is kept.
    public func watch<Fragment: APICore.Fragment>(_ fragment: Fragment.Type, key: String, variables: JSONObject)
        -> APIStream<Result<Fragment, APIError>>
    {
        APIStream { continuation in
            let yield: @Sendable (JSONObject?) -> Void = { object in
                if let object, let data = try? Fragment(validating: object, variables: variables) {
                    continuation.yield(.success(data))
                } else {
                    continuation.yield(.failure(.cacheMiss("\(Fragment.self) at \(key)")))
                }
            }
            let id = UUID()
            let kept = lock.withLock {
                fragmentWatchers[key, default: [:]][id] = yield
                return writtenQueries["fragment " + key]
            }
            yield(kept)
            continuation.onTermination = { [weak self] _ in
                self?.lock.withLock { _ = self?.fragmentWatchers[key]?.removeValue(forKey: id) }
            }
        }
    }

    /// Keeps the data for ``readQuery(_:)``.
    public func writeQuery<Query: GraphQLQuery>(_ query: Query, data: Query.Data) async throws(APIError) {
        let key = Self.cacheKey(Query.operationName, query.coercedVariables)
        lock.withLock {
            writtenQueries[key] = data.__data._data
            recordedCacheOperations.append("write \(Query.operationName)")
        }
    }

    /// Starts from the data last written for this local cache mutation and its variables, else from
    /// the `data` of the stub for its operation name (checked against its selections); records
    /// `update <operation>`. Without either it throws ``APIError/cacheMiss(_:)``.
    public func update<Mutation: LocalCacheMutation>(_ mutation: Mutation, _ body: @Sendable (inout Mutation.Data) -> Void) async throws(APIError)
        -> Mutation.Data
    {
        let name = Mutation.operationName
        let key = Self.cacheKey(name, mutation.coercedVariables)
        var object = lock.withLock { writtenQueries[key] }
        if object == nil, lock.withLock({ stubs[name] != nil }), case .object(let response) = try answer(for: name, data: Mutation.Data.self, variables: mutation.coercedVariables),
            case .object(let data)? = response["data"]
        {
            object = data
        }
        guard let object else { throw .cacheMiss(name) }
        var data: Mutation.Data
        do throws(GraphQLDecodingError) {
            data = try Mutation.Data(validating: object, variables: mutation.coercedVariables)
        } catch {
            throw .invalidRequest("the cached data of \(name) does not match its selections: \(error)")
        }
        body(&data)
        let written = data.__data._data
        lock.withLock {
            writtenQueries[key] = written
            recordedCacheOperations.append("update \(name)")
        }
        return data
    }

    /// Keeps a fragment's data under a record key, for ``update(fragment:key:variables:_:)``.
    public func writeFragment<Fragment: APICore.Fragment>(_ fragment: Fragment, key: String) {
        keepFragment(fragment.__data._data, key: key)
    }

    /// Keeps a fragment's data and hands it to the watchers of its key.
    func keepFragment(_ data: JSONObject, key: String) {
        let watchers = lock.withLock {
            writtenQueries["fragment " + key] = data
            return Array((fragmentWatchers[key] ?? [:]).values)
        }
        for watcher in watchers { watcher(data) }
    }

    /// Starts from the data kept for this key (by ``writeFragment(_:key:)`` or an earlier update),
    /// else throws ``APIError/cacheMiss(_:)``; records `update <key>`.
    public func update<Fragment: APICore.Fragment & MutableSelectionSet>(
        fragment: Fragment.Type, key: String, variables: JSONObject, _ body: @Sendable (inout Fragment) -> Void
    ) async throws(APIError) -> Fragment {
        guard let object = lock.withLock({ writtenQueries["fragment " + key] }) else { throw .cacheMiss("\(Fragment.self) at \(key)") }
        var data: Fragment
        do throws(GraphQLDecodingError) {
            data = try Fragment(validating: object, variables: variables)
        } catch {
            throw .invalidRequest("the data kept for \(key) does not match \(Fragment.self): \(error)")
        }
        body(&data)
        keepFragment(data.__data._data, key: key)
        lock.withLock { recordedCacheOperations.append("update \(key)") }
        return data
    }

    /// Records `update <key>`.
    public func updateRecord(_ key: String, _ update: @escaping @Sendable (inout JSONObject) -> Void) async throws(APIError) {
        lock.withLock { recordedCacheOperations.append("update \(key)") }
    }

    /// Records `remove <key>`.
    public func removeRecord(_ key: String) async throws(APIError) {
        lock.withLock { recordedCacheOperations.append("remove \(key)") }
    }

    /// Forgets written queries and records `clear`.
    public func clear() async throws(APIError) {
        lock.withLock {
            writtenQueries = [:]
            recordedCacheOperations.append("clear")
        }
    }

    /// The cache operations received, in order: `write <operation>`, `update <key>`, `remove <key>`, `clear`.
    public var cacheOperations: [String] { lock.withLock { recordedCacheOperations } }

    /// Where written data is kept: the operation's name and its variables.
    static func cacheKey(_ operationName: String, _ variables: JSONObject) -> String {
        operationName + JSONSerializer.string(.object(variables))
    }
}
