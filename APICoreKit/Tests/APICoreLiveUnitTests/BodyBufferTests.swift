import APICore
@testable import APICoreLive
import Foundation
import Testing

/// The buffer between a transport and the reader of an answer: full, it asks the transport to
/// wait until the reader has taken half; the reader's stream stops the exchange once.
@Suite("Body buffer")
struct BodyBufferTests {
    @Test("full at its capacity; a task waiting for room goes on once the reader has taken half")
    func pacedTask() async throws {
        let buffer = BodyBuffer(capacity: 100)
        #expect(buffer.append(Data(count: 40)))
        #expect(buffer.append(Data(count: 40)) == true)
        #expect(buffer.append(Data(count: 40)) == false)
        let waiter = Task { await buffer.room() }
        var chunks = buffer.chunks(onStop: {}).makeAsyncIterator()
        for _ in 0..<2 { _ = await chunks.next() }
        await waiter.value
        #expect(try await chunks.next()?.get().count == 40)
    }

    @Test("the reader gets the chunks in order, then the error that ended them; onStop runs once")
    func order() async {
        let buffer = BodyBuffer()
        let stops = Locked(0)
        let stream = buffer.chunks(onStop: { stops.withLock { $0 += 1 } })
        buffer.append(Data([1]))
        buffer.append(Data([2]))
        buffer.finish(.cancelled)
        var seen: [Result<Data, APIError>] = []
        for await chunk in stream { seen.append(chunk) }
        #expect(seen.count == 3)
        #expect((try? seen[0].get()) == Data([1]))
        #expect((try? seen[1].get()) == Data([2]))
        if case .failure(.cancelled) = seen[2] {} else { Issue.record("expected the error last, got \(seen[2])") }
        #expect(stops.withLock { $0 } == 1)
        // Chunks after the end are dropped.
        #expect(buffer.append(Data([3])))
    }

    @Test("letting the stream go unread stops the exchange, and what it held is dropped")
    func letGo() async {
        let buffer = BodyBuffer()
        let stops = Locked(0)
        buffer.append(Data(count: 10))
        do {
            let stream = buffer.chunks(onStop: { stops.withLock { $0 += 1 } })
            _ = stream
        }
        #expect(stops.withLock { $0 } == 1)
        #expect(buffer.append(Data(count: 10)))
    }
}
