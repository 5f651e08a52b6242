// Written once by apicore-codegen and never overwritten: replace the typealias with your own
// type (conforming to APICore's CustomScalarType) to read Decimal as something richer than text.
// The extension is `nonisolated` so that the type is usable from any isolation.

import APICore
import Foundation

nonisolated extension SharedAPI {
    /// An exact decimal number, sent as a string so that no cent is lost: `"12.50"`.
    /// Read as `Foundation.Decimal` (see `DecimalScalar.swift`).
    public typealias Decimal = Foundation.Decimal
}
