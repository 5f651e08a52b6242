@_spi(Engine) import APICore
import Foundation

/// The chunks of one answer between the transport that receives them and the reader that takes
/// them: `append` says when it holds `capacity` bytes or more, and a transport that can pause
/// (URLSession on Apple platforms, by suspending its task) waits in `room()` until the reader has
/// taken half. So a server that sends faster than the app reads slows down to the app's pace
/// instead of filling memory.
///
/// The reader's side is ``chunks(onStop:)``: a stream that pulls one chunk at a time, and whose
/// end (read to the end, let go or cancelled) calls `onStop` once.
final class BodyBuffer: Sendable {
    private struct State {
        var chunks: [Result<Data, APIError>] = []
        var first = 0
        var bytes = 0
        var finished = false
        var reader: CheckedContinuation<Result<Data, APIError>?, Never>?
        var waitingTask: CheckedContinuation<Void, Never>?

        /// The oldest chunk held, taken out.
        mutating func take() -> Result<Data, APIError>? {
            guard first < chunks.count else { return nil }
            let chunk = chunks[first]
            first += 1
            if first == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                first = 0
            }
            if case .success(let data) = chunk { bytes -= data.count }
            return chunk
        }
    }

    /// The bytes held before `append` says the buffer is full.
    let capacity: Int
    private let state = Locked(State())

    /// A buffer that holds up to `capacity` bytes before it asks the transport to wait.
    init(capacity: Int = 1 << 20) {
        self.capacity = capacity
    }

    /// Hands `chunk` to the reader; `false` when the buffer is now full, so the transport should
    /// wait for room before it receives more. After the end, chunks are dropped.
    @discardableResult func append(_ chunk: Data) -> Bool {
        let (reader, hasRoom) = state.withLock { state -> (CheckedContinuation<Result<Data, APIError>?, Never>?, Bool) in
            guard !state.finished else { return (nil, true) }
            if let reader = state.reader {
                state.reader = nil
                return (reader, true)
            }
            state.chunks.append(.success(chunk))
            state.bytes += chunk.count
            return (nil, state.bytes < capacity)
        }
        reader?.resume(returning: .success(chunk))
        return hasRoom
    }

    /// Ends the answer, with `error` as its last element when it failed; wakes whoever waits.
    func finish(_ error: APIError? = nil) {
        let (reader, element) = state.withLock { state -> (CheckedContinuation<Result<Data, APIError>?, Never>?, Result<Data, APIError>?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            guard let reader = state.reader else {
                if let error { state.chunks.append(.failure(error)) }
                return (nil, nil)
            }
            state.reader = nil
            return (reader, error.map { .failure($0) })
        }
        reader?.resume(returning: element)
        wakeProducer()
    }

    /// Suspends the calling task until the reader has taken half of what the buffer holds, or the
    /// answer ended.
    func room() async {
        await withCheckedContinuation { continuation in
            let full = state.withLock { state in
                guard !state.finished, state.bytes >= capacity / 2 else { return false }
                state.waitingTask = continuation
                return true
            }
            if !full { continuation.resume() }
        }
    }

    /// The next chunk, or `nil` after the last.
    func next() async -> Result<Data, APIError>? {
        let taken = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Data, APIError>?, Never>) in
            let outcome = state.withLock { state -> Result<Data, APIError>?? in
                if let chunk = state.take() { return .some(chunk) }
                if state.finished { return .some(nil) }
                state.reader = continuation
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
        wakeProducer(ifBelow: capacity / 2)
        return taken
    }

    /// Drops what is held and ends the answer: the reader stopped.
    func discard() {
        state.withLock { state in
            state.chunks.removeAll()
            state.first = 0
            state.bytes = 0
        }
        finish()
    }

    /// Wakes a waiting transport (when fewer than `bytes` are held).
    private func wakeProducer(ifBelow bytes: Int = .max) {
        let task = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.bytes < bytes || state.finished else { return nil }
            defer { state.waitingTask = nil }
            return state.waitingTask
        }
        task?.resume()
    }

    /// The reader's stream: one chunk at a time, pulled; `onStop` runs once when it ends, is let
    /// go, or its task is cancelled.
    func chunks(onStop: @escaping @Sendable () -> Void) -> APIStream<Result<Data, APIError>> {
        let lifetime = Lifetime(buffer: self, onStop: onStop)
        return APIStream(unfolding: {
            guard let chunk = await lifetime.buffer.next() else {
                lifetime.stop()
                return nil
            }
            return chunk
        }, onCancel: { lifetime.stop() })
    }

    /// Stops the exchange once, when the reader is done with it (or lets the stream go).
    private final class Lifetime: Sendable {
        let buffer: BodyBuffer
        private let onStop: Locked<(@Sendable () -> Void)?>

        init(buffer: BodyBuffer, onStop: @escaping @Sendable () -> Void) {
            self.buffer = buffer
            self.onStop = Locked(onStop)
        }

        func stop() {
            guard let onStop = onStop.withLock({ value -> (@Sendable () -> Void)? in
                defer { value = nil }
                return value
            }) else { return }
            buffer.discard()
            onStop()
        }

        deinit { stop() }
    }
}
