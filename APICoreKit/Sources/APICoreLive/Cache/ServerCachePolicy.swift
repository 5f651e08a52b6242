@_spi(Generated) import APICore
import Foundation

/// What a server said about caching its answer: its `Cache-Control` header (`no-store`; `max-age`
/// less the answer's `Age`, and `no-cache` as a maximum age of zero) and Apollo Server's cache hints
/// (`extensions.cacheControl.hints`, a maximum age per response path, which holds for the field
/// at that path and what is below it unless a shorter hint says otherwise).
///
/// The cache sets the expiry of each field it writes to the shortest of these; the app's
/// per-type and per-request maximum ages still apply beside it, and the shortest of all wins.
package struct ServerCachePolicy: Sendable, Equatable {
    /// The answer must not be written to the cache.
    package var noStore = false
    /// The `Cache-Control` maximum age of the whole answer.
    package var maxAge: Duration?
    /// Maximum ages by dotted response path (`hero.friends.0.name`).
    package var hints: [String: Duration] = [:]

    /// Nothing said.
    package static let none = ServerCachePolicy()

    package init() {}

    /// The policy of a response's headers (names lowercased) and its `extensions`; what cannot be
    /// read (a malformed directive, a hint without a path or a number) is ignored.
    package init(headers: [String: String], extensions: JSONObject?) {
        let control = CacheControl(headers["cache-control"])
        noStore = control.noStore
        if control.noCache { shorten(to: .zero) }
        if let seconds = control.maxAge { shorten(to: .seconds(seconds)) }
        // An answer that waited in an HTTP cache (a CDN's, the client's) has that much less to live.
        if let maxAge, let age = headers["age"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), age > 0 {
            self.maxAge = max(.zero, maxAge - .seconds(age))
        }
        guard case .array(let list)? = extensions?["cacheControl"]?.objectValue?["hints"] else { return }
        for case .object(let hint) in list {
            guard case .array(let steps)? = hint["path"], !steps.isEmpty, let seconds = Self.seconds(hint["maxAge"]) else { continue }
            var components: [ResponsePath.Component] = []
            for step in steps {
                switch step {
                case .string(let name): components.append(.field(name))
                case .int(let index): components.append(.index(index))
                default: continue
                }
            }
            let path = ResponsePath(components).description
            hints[path] = min(hints[path] ?? .seconds(seconds), .seconds(seconds))
        }
    }

    /// Whether anything here sets an expiry.
    package var setsExpiry: Bool { maxAge != nil || !hints.isEmpty }

    private mutating func shorten(to age: Duration) { maxAge = min(maxAge ?? age, age) }

    private static func seconds(_ value: JSONValue?) -> Int? {
        switch value {
        case .int(let int)? where int >= 0: return int
        case .double(let double)? where double >= 0 && double < 1e12: return Int(double)
        default: return nil
        }
    }
}
