import Foundation

#if canImport(FoundationNetworking)
    /// A delegate queue with a thread of its own that holds at most `limit` deliveries: past them,
    /// whoever adds one (the session's queue, where libcurl runs) waits until the delegate has
    /// taken one, so libcurl stops reading and TCP slows the server. The deliveries run on the
    /// queue's own thread, never on Dispatch's workers, so a session's queue waiting here never
    /// waits on a pool it is itself holding a thread of.
    final class FlowQueue: OperationQueue, @unchecked Sendable {
        private let mailbox: Mailbox

        init(limit: Int) {
            mailbox = Mailbox(limit: limit)
            super.init()
            maxConcurrentOperationCount = 1
            let mailbox = mailbox
            let thread = Thread { mailbox.run() }
            thread.name = "APICoreKit URLSession delegate"
            thread.start()
        }

        deinit { mailbox.close() }

        override func addOperation(_ block: @escaping @Sendable () -> Void) { mailbox.post(block) }

        override func addOperation(_ operation: Operation) {
            let operation = UncheckedOperation(operation: operation)
            mailbox.post { operation.operation.start() }
        }

        private struct UncheckedOperation: @unchecked Sendable { let operation: Operation }

        /// The deliveries waiting for the thread, in order.
        private final class Mailbox: @unchecked Sendable {
            private let condition = NSCondition()
            private var blocks: [@Sendable () -> Void] = []
            private var first = 0
            private var closed = false
            private var thread: Thread?
            private let limit: Int

            init(limit: Int) { self.limit = limit }

            func post(_ block: @escaping @Sendable () -> Void) {
                condition.lock()
                defer { condition.unlock() }
                // The thread's own additions never wait (they would wait on themselves).
                while !closed, blocks.count - first >= limit, Thread.current !== thread { condition.wait() }
                blocks.append(block)
                condition.broadcast()
            }

            func close() {
                condition.lock()
                closed = true
                condition.broadcast()
                condition.unlock()
            }

            func run() {
                condition.lock()
                thread = Thread.current
                while true {
                    while first == blocks.count, !closed { condition.wait() }
                    if first == blocks.count { break }
                    let block = blocks[first]
                    first += 1
                    if first == blocks.count {
                        blocks.removeAll(keepingCapacity: true)
                        first = 0
                    }
                    condition.broadcast()
                    condition.unlock()
                    block()
                    condition.lock()
                }
                condition.unlock()
            }
        }
    }
#endif
