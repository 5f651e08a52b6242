import Foundation

/// A buffer that grows as the tape is written, with no check of uniqueness or exclusivity per
/// append (an array's `append` was a tenth of reading an answer with many escapes): a block of
/// ``TapeBlocks``, grown with `realloc`, and taken whole by the tape that keeps it.
struct TapeBuffer<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    /// How many elements it holds (set by a writer that stored them through ``base``, within
    /// ``capacity``).
    var count = 0
    private(set) var capacity: Int

    init(capacity: Int) {
        let block = TapeBlocks.take(bytes: capacity * MemoryLayout<Element>.stride)
        base = block.start.assumingMemoryBound(to: Element.self)
        self.capacity = block.bytes / MemoryLayout<Element>.stride
    }

    /// Room for at least `capacity` elements.
    mutating func reserve(_ capacity: Int) {
        guard capacity > self.capacity else { return }
        if self.capacity == 0 {
            self = TapeBuffer(capacity: capacity)
            return
        }
        base = realloc(base, capacity * MemoryLayout<Element>.stride)!.assumingMemoryBound(to: Element.self)
        self.capacity = capacity
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { reserve(Swift.max(16, capacity * 2)) }
        base[count] = element
        count += 1
    }

    @inline(__always)
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        if count + elements.count > capacity { reserve(Swift.max(count + elements.count, capacity * 2)) }
        if let source = elements.baseAddress { (base + count).update(from: source, count: elements.count) }
        count += elements.count
    }

    @inline(__always)
    subscript(index: Int) -> Element {
        get { base[index] }
        nonmutating set { base[index] = newValue }
    }

    /// The elements, in their block, for whoever gives it back (``TapeBlocks/give(_:)``); the
    /// buffer is empty after. A block far larger than what it holds is cut to size first, so a
    /// small answer kept for long does not keep a large block.
    mutating func take() -> TapeBlocks.Block {
        var bytes = capacity * MemoryLayout<Element>.stride
        if capacity > 4 * count + 8192 {
            bytes = Swift.max(count, 1) * MemoryLayout<Element>.stride
            base = realloc(base, bytes)!.assumingMemoryBound(to: Element.self)
        }
        let block = TapeBlocks.Block(start: UnsafeMutableRawPointer(base), bytes: bytes, count: count)
        self = TapeBuffer(empty: ())
        return block
    }

    /// Gives the block back (after an error).
    mutating func release() {
        TapeBlocks.give(TapeBlocks.Block(start: UnsafeMutableRawPointer(base), bytes: capacity * MemoryLayout<Element>.stride, count: 0))
        self = TapeBuffer(empty: ())
    }

    private init(empty: ()) {
        base = TapeBlocks.empty.assumingMemoryBound(to: Element.self)
        capacity = 0
    }
}

/// The blocks that tapes were written into, kept for the next ones: a tape's buffers, hundreds
/// of kilobytes for an answer of that size, came fresh from the kernel for each answer (above
/// malloc's mmap threshold), so writing them took a page fault every 4 KB. A few blocks of
/// ``smallest`` to ``largest`` bytes are kept, at most 16 MB idle; a block is lent only to a tape
/// that needs at least a quarter of it. A larger answer's blocks go back to malloc: their page
/// faults are a small part of reading them.
enum TapeBlocks {
    /// A block: where it starts, its size, and how many elements it holds.
    struct Block {
        let start: UnsafeMutableRawPointer
        let bytes: Int
        let count: Int
    }

    /// The most blocks kept, and the largest.
    static let kept = 4
    static let largest = 4 << 20

    /// Where an empty buffer points (never written, never freed).
    nonisolated(unsafe) static let empty = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)

    /// The blocks kept, for tests.
    static var idle: [(start: UnsafeMutableRawPointer, bytes: Int)] { free.withLock { $0 } }

    private static let free = Locked<[(start: UnsafeMutableRawPointer, bytes: Int)]>([])

    /// Below this size a block comes from malloc and goes back to it: malloc keeps small blocks
    /// in pages it already has, and a small document (a cache record) should not take a lock.
    static let smallest = 64 << 10

    /// A block of at least `bytes` bytes.
    static func take(bytes: Int) -> (start: UnsafeMutableRawPointer, bytes: Int) {
        guard bytes > 0 else { return (empty, 0) }
        guard bytes >= smallest else { return (malloc(bytes)!, bytes) }
        let reused = free.withLock { blocks -> (start: UnsafeMutableRawPointer, bytes: Int)? in
            guard let best = blocks.indices.filter({ blocks[$0].bytes >= bytes && blocks[$0].bytes <= 4 * bytes + 65536 }).min(by: { blocks[$0].bytes < blocks[$1].bytes })
            else { return nil }
            return blocks.remove(at: best)
        }
        return reused ?? (malloc(bytes)!, bytes)
    }

    /// Takes a block back: kept for another tape, or freed.
    static func give(_ block: Block) {
        guard block.start != empty else { return }
        let isKept = block.bytes >= smallest && block.bytes <= largest && free.withLock { blocks in
            guard blocks.count < kept else { return false }
            blocks.append((block.start, block.bytes))
            return true
        }
        if !isKept { Foundation.free(block.start) }
    }
}
