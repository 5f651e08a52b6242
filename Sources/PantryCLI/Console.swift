import APICore
import Foundation
import Logging

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

    /// A line of output, written at once (a pipe or a file sees it before the next one), with
    /// every control character in it made visible (see ``terminalSafe(_:keepingStyles:)``).
    func print(_ text: String = "") {
        let line = Self.terminalSafe(text, keepingStyles: colors)
        if capture { lock.withLock { captured.append(line) } } else { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }

    /// A line for the person watching (progress, notes, errors): standard error.
    func note(_ text: String) {
        let line = Self.terminalSafe(text, keepingStyles: colors)
        if capture {
            lock.withLock { captured.append("! " + line) }
        } else {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    /// `text` with every character that could move the cursor, rewrite the screen, ring the bell
    /// or reorder what is shown (C0 and C1 controls, DEL, bidirectional overrides) written as a
    /// visible escape such as `\n` or `\u{1B}`, so that a string from a server stays on its line
    /// and does what it says. With `keepingStyles`, the console's own colour codes stay.
    public static func terminalSafe(_ text: String, keepingStyles: Bool) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if keepingStyles, scalar == "\u{1B}", let end = styleEnd(scalars, from: index) {
                out.append(contentsOf: scalars[index..<end])
                index = end
                continue
            }
            if isUnsafe(scalar) {
                switch scalar {
                case "\n": out.append(contentsOf: "\\n".unicodeScalars)
                case "\r": out.append(contentsOf: "\\r".unicodeScalars)
                case "\t": out.append(contentsOf: "\\t".unicodeScalars)
                default: out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
                }
            } else {
                out.append(scalar)
            }
            index += 1
        }
        return String(out)
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// The end of one of the console's own colour codes (`ESC [ n m`) starting at `start`.
    private static func styleEnd(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        for code in styleCodes {
            let sequence = Array("\u{1B}[\(code)m".unicodeScalars)
            if scalars.count - start >= sequence.count, Array(scalars[start..<start + sequence.count]) == sequence {
                return start + sequence.count
            }
        }
        return nil
    }

    private static let styleCodes = ["0", "1", "2", "31", "32", "36"]

    /// A JSON document on standard output.
    func printJSON(_ value: JSONValue) {
        print(value.description)
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
        // Cells are data: escaped first, so that widths count what is shown and a row stays one line.
        let rows = rows.map { $0.map { Self.terminalSafe($0, keepingStyles: false) } }
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
            if item.isOptimistic { text += ", optimistic" }
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

/// The engine's warnings and errors (a cache file set aside, a failed write) as the CLI's own lines
/// on standard error, `warning: <message> (<error>)`, instead of timestamped log records.
struct ConsoleLogHandler: LogHandler {
    let console: Console
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let label = event.level >= .error ? "error: " : "warning: "
        let error = (event.error.map { "\($0)" } ?? (event.metadata?["error"] ?? metadata["error"]).map { "\($0)" }).map { " (\($0))" } ?? ""
        console.note(console.red(label) + "\(event.message)\(error)")
    }
}
