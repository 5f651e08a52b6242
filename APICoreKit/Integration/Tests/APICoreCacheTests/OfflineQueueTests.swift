@_spi(Tools) @_spi(Generated) import APICore
@testable import APICoreLive
import APICoreSQLite
import APICoreTestServer
import Foundation
import Logging
import StarWarsOperations
import Synchronization
import Testing

@Suite("The offline mutation queue")
struct OfflineQueueTests {
    /// A client of `url` with a cache in the SQLite file at `cache` (in memory without one).
    static func client(_ url: URL, cache: URL?) -> any APIClient {
        let storage = cache.map { SQLiteCache.storage(at: $0) } ?? .inMemory
        return APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: url, timeout: .seconds(30), cache: CacheConfiguration(storage: storage), logger: Logger(label: "test"), retryPolicy: nil))
    }

    /// Renames a character, with an optimistic response saying `"<name> (optimistic)"`.
    static func rename(_ client: any APIClient, _ id: String, to name: String) async throws -> MutationOutcome<RenameCharacterMutation.Data> {
        try await client.performOrQueue(
            RenameCharacterMutation(id: id, name: name), optimisticResponse: OptimisticTests.renamed("Human", id, "\(name) (optimistic)"))
    }

    static func cachedName(_ client: any APIClient, _ id: String) async throws -> (name: String?, optimistic: Bool) {
        let response = try await client.fetch(HumanQuery(id: id), cachePolicy: .cacheOnly)
        return (response.value.human?.name, response.metadata.isOptimistic)
    }

    /// The `RenameCharacter` requests the server saw: their idempotency keys and the names asked for.
    static func renames(_ server: TestServer) -> [(key: String?, name: String?)] {
        server.requests.compactMap { request in
            guard let body = try? JSONParser.parse(request.body), body["operationName"]?.stringValue == "RenameCharacter" else { return nil }
            let key = request.headers.first { $0.key.lowercased() == "idempotency-key" }?.value
            return (key, body["variables"]?["name"]?.stringValue)
        }
    }

    @Test("mutations made while the server is down are queued, shown at once, kept across a restart, and replayed in order once")
    func queueSurvivesRestart() async throws {
        let directory = try TemporaryDirectory()
        let cache = directory.url.appendingPathComponent("cache.sqlite")
        var server = try await TestServer.start()
        let url = server.baseURL
        var ids: [String] = []
        do {
            let client = Self.client(url, cache: cache)
            _ = try await client.fetch(HumanQuery(id: "1000"))
            _ = try await client.fetch(HumanQuery(id: "1002"))
            await server.stop()
            for (id, name) in [("1000", "Luke 1"), ("1002", "Han 1"), ("1000", "Luke 2")] {
                guard case .queued(let queued) = try await Self.rename(client, id, to: name) else {
                    Issue.record("\(name) was not queued with the server down")
                    return
                }
                #expect(queued.operationName == "RenameCharacter")
                ids.append(queued.id)
            }
            #expect(try await Self.cachedName(client, "1000") == ("Luke 2 (optimistic)", true))
            #expect(try await client.offlineQueue.mutations().map(\.id) == ids)
        }

        // A new launch: the queue and its optimistic data are there before anything is sent.
        let client = Self.client(url, cache: cache)
        #expect(try await Self.cachedName(client, "1000") == ("Luke 2 (optimistic)", true))
        #expect(try await Self.cachedName(client, "1002") == ("Han 1 (optimistic)", true))
        #expect(try await client.offlineQueue.mutations().map(\.id) == ids)
        client.offlineQueue.register(RenameCharacterMutation.self)
        let updates = QueueRecorder(client.offlineQueue.updates())
        defer { updates.stop() }

        server = try await TestServer.start(port: try #require(url.port))
        await client.offlineQueue.replay()
        let seen = Self.renames(server)
        #expect(seen.map(\.key) == ids)
        #expect(seen.map(\.name) == ["Luke 1", "Han 1", "Luke 2"])
        #expect(try await client.offlineQueue.mutations().isEmpty)
        #expect(try await Self.cachedName(client, "1000") == ("Luke 2", false))
        #expect(try await Self.cachedName(client, "1002") == ("Han 1", false))
        #expect(await updates.waitFor(6))
        #expect(updates.states == ids.flatMap { ["\($0) sending", "\($0) done"] })

        // Replaying again sends nothing, and a fresh launch finds the queue empty.
        await client.offlineQueue.replay()
        #expect(Self.renames(server).count == 3)
        #expect(try await Self.client(url, cache: cache).offlineQueue.mutations().isEmpty)
        await server.stop()
    }

    @Test("a replay the server refuses is reported and kept, the rest of the queue goes on, and cancelling removes it")
    func rejectedReplay() async throws {
        let directory = try TemporaryDirectory()
        let cache = directory.url.appendingPathComponent("cache.sqlite")
        var server = try await TestServer.start()
        let url = server.baseURL
        let client = Self.client(url, cache: cache)
        _ = try await client.fetch(HumanQuery(id: "1000"))
        _ = try await client.fetch(HumanQuery(id: "1002"))
        await server.stop()
        var ids: [String] = []
        for (id, name) in [("1000", "Luke A"), ("1002", "Han B"), ("1000", "Luke C")] {
            if case .queued(let queued) = try await Self.rename(client, id, to: name) { ids.append(queued.id) }
        }
        #expect(ids.count == 3)
        let updates = QueueRecorder(client.offlineQueue.updates())
        defer { updates.stop() }

        server = try await TestServer.start(port: try #require(url.port))
        server.respond("graphql", with: [
            .init(status: 200, body: #"{"data":{"renameCharacter":{"__typename":"Human","id":"1000","name":"Luke A"}}}"#),
            .init(status: 200, body: #"{"errors":[{"message":"that name is taken","path":["renameCharacter"]}],"data":{"renameCharacter":null}}"#),
            .init(status: 200, body: #"{"data":{"renameCharacter":{"__typename":"Human","id":"1000","name":"Luke C"}}}"#),
        ])
        await client.offlineQueue.replay()
        #expect(Self.renames(server).map(\.key) == ids)
        #expect(await updates.waitFor(6))
        #expect(updates.states == [
            "\(ids[0]) sending", "\(ids[0]) done", "\(ids[1]) sending", "\(ids[1]) failed: GraphQL error: RenameCharacter: that name is taken at renameCharacter (partial data available)",
            "\(ids[2]) sending", "\(ids[2]) done",
        ])
        let left = try await client.offlineQueue.mutations()
        #expect(left.map(\.id) == [ids[1]])
        guard case .failed(.graphQL(let failure))? = left.first?.state else {
            Issue.record("the refused mutation is not listed as failed: \(left)")
            return
        }
        #expect(failure.errors.map(\.message) == ["that name is taken"])
        // Its optimistic data is gone; the others' answers are in.
        #expect(try await Self.cachedName(client, "1002") == ("Han Solo", false))
        #expect(try await Self.cachedName(client, "1000") == ("Luke C", false))

        // The refusal is kept in the file: a new launch lists it, with the server's error.
        let relaunched = try await Self.client(url, cache: cache).offlineQueue.mutations()
        guard case .failed(.graphQL(let kept))? = relaunched.first?.state, relaunched.count == 1 else {
            Issue.record("a new launch does not list the refusal: \(relaunched)")
            return
        }
        #expect(kept.errors.map(\.message) == ["that name is taken"])
        #expect(kept.errors.first?.path?.description == "renameCharacter")

        try await client.offlineQueue.cancel(id: ids[1])
        #expect(try await client.offlineQueue.mutations().isEmpty)
        #expect(try await Self.client(url, cache: cache).offlineQueue.mutations().isEmpty)
        #expect(await updates.waitFor(7))
        #expect(updates.states.last == "\(ids[1]) cancelled")
        await server.stop()
    }

    @Test("cancelling a queued mutation takes its optimistic data away; the next request that succeeds replays the rest")
    func cancelAndReplayOnSuccess() async throws {
        var server = try await TestServer.start()
        let url = server.baseURL
        let client = Self.client(url, cache: nil)
        _ = try await client.fetch(HumanQuery(id: "1000"))
        _ = try await client.fetch(HumanQuery(id: "1002"))

        // Online, it is sent at once, with an idempotency key.
        guard case .sent(let sent) = try await Self.rename(client, "1002", to: "Han online") else {
            Issue.record("a mutation was queued with the server up")
            return
        }
        #expect(sent.value.renameCharacter?.name == "Han online")
        #expect(Self.renames(server).first?.key?.isEmpty == false)
        let uploads = await thrownError { () async throws(APIError) in
            try await client.performOrQueue(
                UploadFilesMutation(files: [GraphQLFile(data: Data("x".utf8), filename: "x.txt")], input: AttachmentInput(label: "x")),
                optimisticResponse: nil)
        }
        #expect(uploads?.description.contains("UploadFiles uploads files, and a mutation with uploads cannot wait in the offline queue") == true)

        await server.stop()
        guard case .queued(let luke) = try await Self.rename(client, "1000", to: "Luke X"),
            case .queued(let han) = try await Self.rename(client, "1002", to: "Han Y")
        else {
            Issue.record("not queued with the server down")
            return
        }
        #expect(try await Self.cachedName(client, "1000") == ("Luke X (optimistic)", true))
        try await client.offlineQueue.cancel(id: luke.id)
        #expect(try await Self.cachedName(client, "1000") == ("Luke Skywalker", false))
        #expect(try await client.offlineQueue.mutations().map(\.id) == [han.id])
        let unknown = await thrownError { () async throws(APIError) in try await client.offlineQueue.cancel(id: "no-such-id") }
        #expect(unknown?.description.contains("there is no queued mutation with id no-such-id") == true)

        server = try await TestServer.start(port: try #require(url.port))
        _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
        #expect(await eventually { (try? await client.offlineQueue.mutations().isEmpty) == true })
        #expect(Self.renames(server).map(\.name) == ["Han Y"])
        #expect(try await Self.cachedName(client, "1002") == ("Han Y", false))
        await server.stop()
    }
}

/// Collects the states a queue reports, as `"<id> <state>"`.
final class QueueRecorder: Sendable {
    private final class Box: Sendable {
        let seen = Mutex<[String]>([])
    }

    private let box = Box()
    private let task: Task<Void, Never>

    /// Starts reading `stream`, which reports every change from its creation on.
    init(_ stream: APIStream<QueuedMutation>) {
        let box = box
        task = Task {
            for await mutation in stream { box.seen.withLock { $0.append("\(mutation.id) \(mutation.state)") } }
        }
    }

    var states: [String] { box.seen.withLock { $0 } }

    func waitFor(_ count: Int) async -> Bool { await eventually { self.states.count >= count } }

    func stop() { task.cancel() }
}
