@_spi(Generated) import APICore
import Foundation

/// Reading and writing the cache directly, for `LiveAPIClient`.
extension LiveAPIClient {
    func readQuery<Query: GraphQLQuery>(_ query: Query) async throws(APIError) -> Query.Data? {
        guard let store else { return nil }
        let outcome = await store.read(Query.self, variables: query.variablesJSON, requestMaxAge: nil)
        return outcome.data.map { Query.Data(_dataDict: DataDict(_data: $0)) }
    }

    func writeQuery<Query: GraphQLQuery>(_ query: Query, data: Query.Data) async throws(APIError) {
        try await write(data, root: Query.operationType, name: Query.operationName, variables: query.variablesJSON)
    }

    func updateCache<Mutation: LocalCacheMutation>(_ mutation: Mutation, _ body: (inout Mutation.Data) -> Void) async throws(APIError)
        -> Mutation.Data
    {
        guard let store else { throw .invalidRequest("this client has no cache") }
        let root = CacheNaming.rootKey(for: Mutation.operationType)
        let read = await store.read(
            key: root, selections: Mutation.Data.__selections, parent: Mutation.Data.__parentType, variables: mutation.variablesJSON,
            requestMaxAge: nil)
        guard let object = read.data else { throw .cacheMiss(Mutation.operationName) }
        var data = Mutation.Data(_dataDict: DataDict(_data: object))
        body(&data)
        try await write(data, root: Mutation.operationType, name: Mutation.operationName, variables: mutation.variablesJSON)
        return data
    }

    /// Checks data built or changed on the client against its selections, then normalizes it
    /// into the cache under its operation's root record.
    private func write<Data: RootSelectionSet>(
        _ data: Data, root: GraphQLOperationType, name: String, variables: JSONObject
    ) async throws(APIError) {
        guard store != nil else { throw .invalidRequest("this client has no cache to write to") }
        do throws(GraphQLDecodingError) {
            _ = try Data(validating: data.__data._data, variables: variables)
        } catch {
            throw .invalidRequest("the data written for \(name) does not match its selections: \(error)")
        }
        await store(data.__data._data, as: Data.self, root: root, variables: variables)
    }

    func updateRecord(_ key: String, _ update: @escaping @Sendable (inout JSONObject) -> Void) async throws(APIError) {
        guard let store else { throw .invalidRequest("this client has no cache") }
        await store.update(key, update)
    }

    func removeRecord(_ key: String) async throws(APIError) {
        guard let store else { throw .invalidRequest("this client has no cache") }
        await store.remove(key)
    }

    func clearCache() async throws(APIError) {
        await store?.removeAll()
    }

    func collectGarbage(maxStaleness: Duration) async throws(APIError) -> CacheCollection {
        guard let store else { throw .invalidRequest("this client has no cache") }
        let collection = await store.collectGarbage(maxStaleness: maxStaleness)
        configuration.logger.info("cache garbage collection: \(collection)")
        return collection
    }

    func cacheSummary() async throws(APIError) -> CacheSummary {
        guard let store else { throw .invalidRequest("this client has no cache") }
        return await store.summary()
    }
}
