import Dispatch

/// `first` and `second` run at once, each on a thread of its own, and both results once both
/// are done: for phases that only read what they share (the syntax tree of a schema, which
/// nothing changes once parsed), so that checking a schema as graphql-js does costs no extra
/// time where a second core is free.
func concurrently<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
    let slots = ConcurrentSlots<A, B>()
    withoutActuallyEscaping(first) { first in
        withoutActuallyEscaping(second) { second in
            nonisolated(unsafe) let (first, second) = (first, second)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { slots.a = first() } else { slots.b = second() }
            }
        }
    }
    return (slots.a!, slots.b!)
}

/// The two results of `concurrently`: each thread writes only its own, and both are read after
/// both threads are done.
private final class ConcurrentSlots<A, B>: @unchecked Sendable {
    var a: A?
    var b: B?
}
