// Written once by apicore-codegen and never overwritten: replace the typealias with your own
// type (conforming to APICore's CustomScalarType) to read DateTime as something richer than text.
// The extension is `nonisolated` so that the type is usable from any isolation.

import APICore
import Foundation

nonisolated extension SharedAPI {
    /// An instant: ISO 8601 with a time zone, with or without fractional seconds (`2026-11-22T03:00:00Z`).
    /// Read as SharedKit's `DateTime`, which rejects anything else with a clear error.
    public typealias DateTime = SharedKit.DateTime
}
