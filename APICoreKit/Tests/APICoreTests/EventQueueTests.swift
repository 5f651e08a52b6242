@_spi(Engine) import APICore
import Foundation
import Testing

/// The queue between a subscription's channel and its loop, and between the loop and the app's
/// `for await`: events that wait are taken together, in order; the producer never waits; stopping
/// (or cancelling the consumer) tells the producer.
@Suite("subscription event queue")
struct EventQueueTests {
    @Test("events yielded before the consumer asks come as one batch, in order; then it waits for the next")
    func batches() async {
        let queue = EventQueue<Int>()
        for number in 1...5 { #expect(queue.yield(number)) }
        #expect(await queue.next() == [1, 2, 3, 4, 5])
        let consumer = Task { await queue.next() }
        // Whether the consumer is already waiting or not, it gets the event, alone.
        queue.yield(6)
        #expect(await consumer.value == [6])
    }

    @Test("after finish, the events still waiting come, then nil; later yields are refused")
    func finish() async {
        let queue = EventQueue<Int>()
        queue.yield(1)
        queue.yield(2)
        queue.finish()
        #expect(!queue.yield(3))
        #expect(await queue.next() == [1, 2])
        #expect(await queue.next() == nil)
        let waiting = EventQueue<Int>()
        let consumer = Task { await waiting.next() }
        waiting.finish()
        #expect(await consumer.value == nil)
    }

    @Test("stop drops what waits, refuses later events and runs onStop once, even when set afterwards")
    func stop() async {
        let queue = EventQueue<Int>()
        let stops = Locked(0)
        queue.onStop { stops.withLock { $0 += 1 } }
        queue.yield(1)
        queue.stop()
        queue.stop()
        #expect(!queue.yield(2))
        #expect(await queue.next() == nil)
        #expect(stops.withLock { $0 } == 1)
        let late = Locked(false)
        queue.onStop { late.withLock { $0 = true } }
        #expect(late.withLock { $0 })
    }

    @Test("cancelling the consumer while it waits answers nil and stops the queue")
    func cancellation() async {
        let queue = EventQueue<Int>()
        let stopped = Locked(false)
        queue.onStop { stopped.withLock { $0 = true } }
        let consumer = Task { await queue.next() }
        consumer.cancel()
        #expect(await consumer.value == nil)
        #expect(stopped.withLock { $0 })  // told before the consumer saw the end
        #expect(!queue.yield(1))
    }

    @Test("a producer on another task: every event, in order, whatever the batches")
    func producerAndConsumer() async {
        let queue = EventQueue<Int>()
        let producer = Task {
            for number in 0..<10_000 { queue.yield(number) }
            queue.finish()
        }
        var received: [Int] = []
        while let batch = await queue.next() {
            #expect(!batch.isEmpty)
            received += batch
        }
        await producer.value
        #expect(received == Array(0..<10_000))
    }

    @Test("events yielded together come together, after those before them; an empty batch is nothing")
    func batchYield() async {
        let queue = EventQueue<Int>()
        #expect(queue.yield(contentsOf: []))
        queue.yield(1)
        #expect(queue.yield(contentsOf: [2, 3]))
        #expect(await queue.next() == [1, 2, 3])
        let consumer = Task { await queue.next() }
        queue.yield(contentsOf: [4, 5])
        #expect(await consumer.value == [4, 5])
        queue.finish()
        #expect(!queue.yield(contentsOf: [6]))
    }

    @Test("finishing with an error: the events waiting come first, then nil, and the error is answered once")
    func finishWithError() async {
        let queue = EventQueue<Int>()
        queue.yield(1)
        queue.finish(throwing: .cancelled)
        queue.finish(throwing: .invalidRequest("a second finish is ignored"))
        #expect(await queue.next() == [1])
        #expect(await queue.next() == nil)
        guard case .cancelled? = queue.takeFailure() else {
            Issue.record("the finishing error was not answered")
            return
        }
        #expect(queue.takeFailure() == nil)
    }

    @Test("onEnd runs once when the producer finishes or the consumer stops, and at once when set after")
    func onEnd() async {
        let finished = EventQueue<Int>()
        let ends = Locked(0)
        finished.onEnd { ends.withLock { $0 += 1 } }
        finished.finish()
        finished.stop()
        #expect(ends.withLock { $0 } == 1)

        let stopped = EventQueue<Int>()
        let stops = Locked((end: 0, stop: 0))
        stopped.onEnd { stops.withLock { $0.end += 1 } }
        stopped.onStop { stops.withLock { $0.stop += 1 } }
        stopped.stop()
        stopped.finish()
        #expect(stops.withLock { $0.end == 1 && $0.stop == 1 })

        let late = Locked(false)
        finished.onEnd { late.withLock { $0 = true } }
        #expect(late.withLock { $0 })
    }
}
