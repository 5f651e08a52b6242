import Foundation

/// Apollo-style search paths: globs relative to a base folder, with `*` (within one path
/// component), `**` (any number of components), `?` (one character) and a leading `!` that
/// excludes what it matches.
public struct Glob: Sendable {
    /// The patterns, in order.
    public let patterns: [String]

    /// Creates a matcher.
    public init(_ patterns: [String]) { self.patterns = patterns }

    /// Whether `path` (relative, `/`-separated) is included: matched by some pattern and by no
    /// exclusion.
    public func matches(_ path: String) -> Bool {
        var included = false
        for pattern in patterns {
            if pattern.hasPrefix("!") {
                if Self.match(String(pattern.dropFirst()), path) { return false }
            } else if Self.match(pattern, path) {
                included = true
            }
        }
        return included
    }

    /// The files that match, as sorted paths relative to `base` (a pattern may climb out of it
    /// with leading `../`). Hidden folders and build folders (`.build*`) are not searched.
    public func files(in base: URL) -> [String] {
        var roots: Set<String> = []
        for pattern in patterns where !pattern.hasPrefix("!") {
            var literal: [Substring] = []
            for component in pattern.split(separator: "/") {
                if component.contains("*") || component.contains("?") { break }
                literal.append(component)
            }
            if literal.count == pattern.split(separator: "/").count { literal.removeLast() }  // a plain file path
            roots.insert((pattern.hasPrefix("/") ? "/" : "") + literal.joined(separator: "/"))
        }
        var result: Set<String> = []
        for root in roots {
            let rootURL = Glob.resolve(root, in: base)
            for path in Self.walk(rootURL) {
                let relative = root.isEmpty ? path : (root.hasSuffix("/") ? root + path : root + "/" + path)
                if matches(relative) { result.insert(relative) }
            }
        }
        return result.sorted()
    }

    /// `path` resolved against `base`, unless it is absolute.
    public static func resolve(_ path: String, in base: URL) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path) }
        return path.isEmpty ? base : base.appendingPathComponent(path)
    }

    /// A path as a compiler prints it: relative to the working directory when the file is inside
    /// it, else absolute, so that a terminal or editor opens it from where the tool was run.
    static func displayPath(_ path: String, in base: URL) -> String {
        let absolute = resolve(path, in: base).standardizedFileURL.path
        let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return absolute.hasPrefix(prefix) ? String(absolute.dropFirst(prefix.count)) : absolute
    }

    private static func walk(_ root: URL) -> [String] {
        let fileManager = FileManager.default
        guard let enumerator = fileManager.enumerator(
            at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
        else { return [] }
        let rootPath = root.standardizedFileURL.path
        var result: [String] = []
        for case let url as URL in enumerator {
            let isDirectory = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            if isDirectory {
                if url.lastPathComponent.hasPrefix(".build") { enumerator.skipDescendants() }
                continue
            }
            var relative = url.standardizedFileURL.path
            if relative.hasPrefix(rootPath) { relative.removeFirst(rootPath.count) }
            while relative.hasPrefix("/") { relative.removeFirst() }
            result.append(relative)
        }
        return result
    }

    static func match(_ pattern: String, _ path: String) -> Bool {
        var pattern = pattern
        while pattern.hasPrefix("./") { pattern.removeFirst(2) }
        return matchComponents(pattern.split(separator: "/", omittingEmptySubsequences: true)[...],
                               path.split(separator: "/", omittingEmptySubsequences: true)[...])
    }

    private static func matchComponents(_ pattern: ArraySlice<Substring>, _ path: ArraySlice<Substring>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        if first == "**" {
            let rest = pattern.dropFirst()
            var remaining = path
            while true {
                if matchComponents(rest, remaining) { return true }
                guard !remaining.isEmpty else { return false }
                remaining = remaining.dropFirst()
            }
        }
        guard let component = path.first, matchComponent(Array(first.utf8)[...], Array(component.utf8)[...]) else { return false }
        return matchComponents(pattern.dropFirst(), path.dropFirst())
    }

    private static func matchComponent(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        switch first {
        case UInt8(ascii: "*"):
            var remaining = text
            while true {
                if matchComponent(pattern.dropFirst(), remaining) { return true }
                guard !remaining.isEmpty else { return false }
                remaining = remaining.dropFirst()
            }
        case UInt8(ascii: "?"):
            return !text.isEmpty && matchComponent(pattern.dropFirst(), text.dropFirst())
        default:
            return text.first == first && matchComponent(pattern.dropFirst(), text.dropFirst())
        }
    }
}
