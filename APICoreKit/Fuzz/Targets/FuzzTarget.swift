import Foundation

/// What the fuzzers exercise: each target takes any bytes, returns normally for every input, and
/// stops the process (a failed `check`, or a trap in the code under test) when an invariant
/// breaks. scripts/fuzz.sh runs them under libFuzzer; `FuzzReplayTests` replays the committed
/// corpus and regression inputs.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// The JSON parser: parse, serialize, parse again; the two values and texts must agree.
    case json
    /// Response reading: an operation and its variables chosen by the first two bytes, the rest a
    /// response body read as the engine reads it, then every accessor, then the cache round trip.
    case response
    /// graphql-transport-ws and graphql-ws messages as the subscription connection reads them.
    case websocket
    /// `multipart/mixed` incremental delivery: the streaming reader in any chunking, and the
    /// assembly of `@defer` payloads.
    case multipart

    /// Runs the target on one input.
    package func run(_ input: Data) {
        switch self {
        case .json: JSONRoundTrip.run(input)
        case .response: ResponseReading.run(input)
        case .websocket: WebSocketMessages.run(input)
        case .multipart: IncrementalReading.run(input)
        }
    }

    /// Inputs that reach the target's deeper paths, for a first corpus (`apicore-fuzz` writes them
    /// with `seed <folder>`; the committed corpus started from them).
    package var seeds: [Data] {
        switch self {
        case .json: return JSONRoundTrip.seeds
        case .response: return ResponseReading.seeds
        case .websocket: return WebSocketMessages.seeds
        case .multipart: return IncrementalReading.seeds
        }
    }
}

/// Stops the process with `message` when `condition` is false, in every build configuration:
/// a fuzzer must see a broken invariant even in an optimized build.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant broken: \(message())") }
}
