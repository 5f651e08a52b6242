@_spi(Engine) import APICore
import Foundation
import Testing

/// `APISubscription` as an app iterates it: values in order however they were yielded, the
/// producer's error after the values before it, and the producer told once when the consumer
/// stops (breaking out, being cancelled, or dropping the subscription).
@Suite("subscription values")
struct SubscriptionStreamTests {
    /// A subscription and what its producer was told.
    final class Producer: Sendable {
        let ends = Locked(0)
        let continuation = Locked<APISubscription<Int>.Continuation?>(nil)

        func make() -> APISubscription<Int> {
            APISubscription { continuation in
                continuation.onTermination { [ends] in ends.withLock { $0 += 1 } }
                self.continuation.withLock { $0 = continuation }
            }
        }

        var feed: APISubscription<Int>.Continuation { continuation.withLock { $0! } }
    }

    @Test("values yielded one by one and in batches come in order, then the end; the producer is told once")
    func order() async throws {
        let producer = Producer()
        let subscription = producer.make()
        producer.feed.yield(1)
        producer.feed.yield(contentsOf: [2, 3, 4])
        let consumer = Task {
            var values: [Int] = []
            for try await value in subscription { values.append(value) }
            return values
        }
        producer.feed.yield(contentsOf: Array(5...1_000))
        producer.feed.yield(1_001)
        producer.feed.finish()
        #expect(try await consumer.value == Array(1...1_001))
        #expect(producer.ends.withLock { $0 } == 1)
    }

    @Test("an error comes after the values yielded before it, once; then the sequence ends")
    func error() async {
        let producer = Producer()
        let subscription = producer.make()
        producer.feed.yield(contentsOf: [1, 2])
        producer.feed.finish(throwing: .invalidRequest("the server failed the subscription"))
        var iterator = subscription.makeAsyncIterator()
        #expect(try! await iterator.next() == 1)
        #expect(try! await iterator.next() == 2)
        await #expect(throws: APIError.self) { try await iterator.next() }
        #expect(try! await iterator.next() == nil)
    }

    @Test("breaking out of the loop, and dropping the subscription, tell the producer; later values are dropped")
    func consumerStops() async throws {
        let producer = Producer()
        var subscription: APISubscription<Int>? = producer.make()
        producer.feed.yield(contentsOf: [1, 2, 3])
        for try await value in subscription! where value == 2 { break }
        #expect(producer.ends.withLock { $0 } == 0)  // the subscription is still held
        subscription = nil
        #expect(producer.ends.withLock { $0 } == 1)
        producer.feed.yield(4)
        producer.feed.finish()
        #expect(producer.ends.withLock { $0 } == 1)
    }

    @Test("cancelling the consuming task while it waits ends the loop and tells the producer")
    func cancellation() async throws {
        let producer = Producer()
        let subscription = producer.make()
        let started = EventQueue<Void>()
        let consumer = Task {
            var count = 0
            started.yield(())
            for try await _ in subscription { count += 1 }
            return count
        }
        _ = await started.next()
        consumer.cancel()
        #expect(try await consumer.value == 0)
        #expect(producer.ends.withLock { $0 } == 1)
    }
}
