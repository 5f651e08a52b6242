import APICore
import Foundation

/// Where the CLI writes: results to standard output, progress and errors to standard error;
/// colour only on a terminal (and never with `NO_COLOR` or `--no-color`). Tests swap in one that
/// captures lines (``Console/current``).
public final class Console: @unchecked Sendable {
    /// The console commands write to.
    @TaskLocal public static var current = Console()

    private let lock = NSLock()
    private let capture: Bool
    private var captured: [String] = []
    /// Colour and progress marks on.
    var colors: Bool
    /// JSON for scripts instead of text for people.
    var json = false

    /// The process's standard output and error.
    public init() {
        capture = false
        colors = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }

    /// A console that keeps every line, standard error's prefixed with `! `.
    public init(capturing: Bool) {
        capture = capturing
        colors = false
    }

    /// Everything written so far (a capturing console only).
    public var lines: [String] { lock.withLock { captured } }

    /// Everything written so far, one string.
    public var text: String { lines.joined(separator: "\n") }

    /// A line of output.
    func print(_ text: String = "") {
        if capture { lock.withLock { captured.append(contentsOf: text.components(separatedBy: "\n")) } } else { Swift.print(text) }
    }

    /// A line for the person watching (progress, notes, errors): standard error.
    func note(_ text: String) {
        if capture {
            lock.withLock { captured.append("! " + text) }
        } else {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }

    /// A JSON document on standard output.
    func printJSON(_ value: JSONValue) {
        print(JSONSerializer.string(value))
    }

    /// Runs a slow step, saying what it is, then how long it took.
    func step<T>(_ title: String, _ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        note(dim("… \(title)"))
        let value = try await body()
        note(dim("  done in \(Self.milliseconds(ContinuousClock.now - start)) ms"))
        return value
    }

    /// A table: a header row and aligned columns.
    func table(_ headers: [String], _ rows: [[String]]) {
        let widths = headers.indices.map { column in ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        print(bold(line(headers)))
        for row in rows { print(line(row)) }
    }

    /// Where results came from, such as `[server 12 ms]` or `[cache, offline]`.
    func sources(_ metadata: [ResponseMetadata]) -> String {
        guard !metadata.isEmpty else { return "" }
        let parts = metadata.map { item -> String in
            var text = item.source == .cache ? "cache" : "server \(Self.milliseconds(item.duration)) ms"
            if item.isOfflineFallback { text += ", offline" }
            if item.isStale { text += ", stale" }
            return text
        }
        let joined = "[" + parts.joined(separator: "; ") + "]"
        return metadata.allSatisfy { $0.source == .cache } ? green(joined) : cyan(joined)
    }

    func bold(_ text: String) -> String { colored(text, "1") }
    func dim(_ text: String) -> String { colored(text, "2") }
    func green(_ text: String) -> String { colored(text, "32") }
    func cyan(_ text: String) -> String { colored(text, "36") }
    func red(_ text: String) -> String { colored(text, "31") }

    private func colored(_ text: String, _ code: String) -> String { colors ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    static func milliseconds(_ duration: Duration) -> Int { Int(duration / .milliseconds(1)) }
}
