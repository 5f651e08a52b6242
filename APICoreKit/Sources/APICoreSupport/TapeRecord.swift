@_spi(Engine) @_spi(Tools) import APICore
import Foundation

/// A record that is an object of an answer's tape whole (its selections are plain leaves with
/// nothing to note field by field), kept on the tape until it is written: a subscription's events
/// that arrived together and carry the same object need the tree of the last one only.
package struct TapeRecord: Sendable {
    /// The object.
    package let value: JSONTape.Value
    /// The selection set it was checked against: a later record of the same object and selection
    /// set holds every field this one does.
    package let shape: ObjectIdentifier

    /// The record's fields, as a tree.
    package var fields: JSONObject { value.jsonValue.objectValue ?? [:] }

    /// Whether this record may stand for `earlier` (none, or the same object's record from the
    /// same selection set, whose fields this one all replaces) without either being made a tree.
    package func replaces(_ earlier: TapeRecord?) -> Bool { earlier.map { $0.shape == shape } ?? true }
}
