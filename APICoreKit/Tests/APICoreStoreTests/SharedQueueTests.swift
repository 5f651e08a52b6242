@_spi(Engine) @_spi(Generated) @testable import APICore
import APICoreSupport
@testable import APICoreLive
@testable import APICoreSQLite
import APICoreTesting
import Foundation
import Logging
import Synchronization
import Testing

/// The offline queue of one SQLite file, replayed by two clients at once (as an app and its
/// extension, two processes, would): each mutation is sent by one of them, once, in order.
@Suite("The offline queue shared by clients of one file")
struct SharedQueueTests {
    private static func mutation(_ id: String, failure: JSONObject? = nil) -> StoredMutation {
        StoredMutation(
            id: id, operationName: "Rename", document: "mutation Rename { rename }", variables: ["id": .string(id)], optimistic: nil,
            enqueuedAt: Date(), failure: failure)
    }

    private static func queue(_ store: SQLiteRecordStore) throws -> MutationQueue {
        MutationQueue(stored: try store.loadQueue(), persistent: store, cache: CacheWriter(store: nil), logger: Logger(label: "test"))
    }

    /// A server that counts what it is sent, and yields to the other replay between answers.
    private final class Server: Sendable {
        let sent = Mutex<[String]>([])

        func send(_ stored: StoredMutation) async -> Result<JSONObject, APIError> {
            sent.withLock { $0.append(stored.id) }
            await Task.yield()
            return .success(["rename": true])
        }
    }

    @Test("two clients replaying one file's queue at once send each mutation once, in the order it was queued; the other learns it left")
    func onceEach() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let appStore = try SQLiteRecordStore(url: file)
        let widgetStore = try SQLiteRecordStore(url: file)
        let app = try Self.queue(appStore)
        let widget = try Self.queue(widgetStore)
        var order: [String] = []
        for index in 0..<10 {
            let id = "m\(index)"
            order.append(id)
            // Queued by either; the app never saw the widget's in memory.
            _ = await (index.isMultiple(of: 2) ? app : widget).enqueue(Self.mutation(id), layer: nil)
        }
        let server = Server()
        let check: MutationQueue.Check = { _, _ in nil }
        async let byApp: Void = app.replay(send: server.send, check: check)
        async let byWidget: Void = widget.replay(send: server.send, check: check)
        _ = await (byApp, byWidget)
        // Whichever claimed the queue first sent it all; a later replay by the other sends nothing.
        await app.replay(send: server.send, check: check)
        await widget.replay(send: server.send, check: check)
        #expect(server.sent.withLock { $0 } == order)
        #expect(try appStore.loadQueue().isEmpty)
        let (appList, widgetList) = (await app.list, await widget.list)
        #expect(appList.isEmpty && widgetList.isEmpty)
        #expect(app.waiting.withLock { $0 } == 0 && widget.waiting.withLock { $0 } == 0)
    }

    @Test("a claim another process holds (killed while it sent) stops this replay until it expires; then this one sends")
    func claimExpires() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let store = try SQLiteRecordStore(url: file)
        let queue = try Self.queue(store)
        _ = await queue.enqueue(Self.mutation("m1"), layer: nil)
        let killed = try SQLiteRecordStore(url: file)
        #expect(try killed.claimQueue(for: "killed process", until: Date().addingTimeInterval(30)))
        let server = Server()
        await queue.replay(send: server.send, check: { _, _ in nil })
        #expect(server.sent.withLock { $0 }.isEmpty)
        #expect(await queue.list.map(\.id) == ["m1"])
        // Its claim expired: the next replay takes the queue over.
        #expect(try killed.claimQueue(for: "killed process", until: Date().addingTimeInterval(-1)))
        await queue.replay(send: server.send, check: { _, _ in nil })
        #expect(server.sent.withLock { $0 } == ["m1"])
        // The claim is given up when the replay ends: another holder may claim at once.
        #expect(try killed.claimQueue(for: "another process", until: Date().addingTimeInterval(30)))
    }

    @Test("what another client queued, had refused or cancelled is taken in before a replay: sent, failed, or gone")
    func othersChanges() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let appStore = try SQLiteRecordStore(url: file)
        let app = try Self.queue(appStore)
        _ = await app.enqueue(Self.mutation("refused"), layer: nil)
        _ = await app.enqueue(Self.mutation("cancelled"), layer: nil)
        // The extension's client: it queues one, had one refused, and cancelled one.
        let extensionStore = try SQLiteRecordStore(url: file)
        try extensionStore.enqueue(Self.mutation("queued elsewhere"))
        try extensionStore.setFailure(["status": 400], of: "refused")
        try extensionStore.removeQueued("cancelled")
        let updates = app.updates()
        let server = Server()
        await app.replay(send: server.send, check: { _, _ in nil })
        #expect(server.sent.withLock { $0 } == ["queued elsewhere"])
        let list = await app.list
        #expect(list.map(\.id) == ["refused"])
        if case .failed = list.first?.state {} else { Issue.record("the refusal is not taken in: \(list)") }
        // Every update was published before the replay ended; the deadline only bounds a failure.
        let consumer = Task {
            var seen: [String: String] = [:]
            for await update in updates {
                seen[update.id] = "\(update.state)"
                if seen["queued elsewhere"] == "done" { break }
            }
            return seen
        }
        let deadline = Task {
            try? await Task.sleep(for: .seconds(60))
            consumer.cancel()
        }
        let seen = await consumer.value
        deadline.cancel()
        #expect(seen["queued elsewhere"] == "done")
        #expect(seen["cancelled"] == "done")
        #expect(seen["refused"]?.hasPrefix("failed") == true)
    }
}
