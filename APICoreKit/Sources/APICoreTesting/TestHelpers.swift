import Foundation
import Observation
import Logging
import Synchronization

// Helpers for tests of code that uses APICoreKit: what was logged, and waiting for something
// that happens on its own (a watcher registered, a socket closed) without sleeping a fixed time.

/// Collects everything logged (level, message, metadata) as text lines, for tests that check what
/// was said, and that no secret was: give its ``logger`` to `APIClientConfiguration`.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    /// An empty capture.
    public init() {}

    /// A logger at `trace` that writes here.
    public var logger: Logger {
        var logger = Logger(label: "capture") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Every line, in order: `[level] message key=value …`.
    public var all: [String] { lines.withLock { $0 } }

    /// Every line, joined.
    public var text: String { all.joined(separator: "\n") }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let meta = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            capture.lines.withLock { $0.append("[\(event.level)] \(event.message) \(meta)") }
        }
    }
}

/// Waits until `condition` holds, checking every 10 ms for at most `timeout`; answers whether it
/// held. `condition` runs in the caller's isolation (a `@MainActor` test's, say).
public func eventually(
    isolation: isolated (any Actor)? = #isolation, _ condition: () async -> Bool, timeout: Duration = .seconds(30)
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// Waits until `condition` holds, woken by the observation of what it reads (an `@Observable`
/// model's properties: no polling); answers whether it held before `timeout`, a ceiling only.
@MainActor
public func observed(timeout: Duration = .seconds(30), _ condition: @escaping @MainActor () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        let (changes, signal) = AsyncStream<Void>.makeStream()
        withObservationTracking { _ = condition() } onChange: {
            signal.yield()
            signal.finish()
        }
        let ceiling = Task {
            try? await Task.sleep(until: deadline)
            signal.finish()
        }
        for await _ in changes { break }
        ceiling.cancel()
        if ContinuousClock.now >= deadline { return condition() }
    }
    return true
}

/// The error `call` throws, or `nil` when it returns.
public func thrownError<T, Failure: Error>(_ call: () async throws(Failure) -> T) async -> Failure? {
    do {
        _ = try await call()
        return nil
    } catch {
        return error
    }
}

/// A temporary folder (for a SQLite cache file, say), removed with everything in it when the value
/// goes away.
public final class TemporaryDirectory {
    /// The folder.
    public let url: URL

    /// Creates a new, empty folder in the system's temporary directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
