@_spi(Tools) import APICore
import APICoreSupport
import Foundation
import GRDB

/// How SQLite keeps a record's fields (and a root's field values) since format version 4: a
/// compact binary form that reads back into the record's tree without a JSON parse (no text to
/// scan, no escapes, no number literals to convert, each container's size known before it is
/// filled), with references as tagged values.
///
/// A blob starts with ``marker`` (0xA5: a UTF-8 continuation byte, never the first byte of JSON
/// text), then, for a record, its `__typename` (so that ``typename(of:)`` reads it without
/// decoding the rest), then its other fields. Rows written by earlier versions hold compact JSON
/// and stay readable as they are: ``fields(from:)`` and ``value(from:)`` look at the first byte.
/// A row is rewritten in this form when its record is next written.
///
/// The reader trusts nothing: a blob another program wrote, cut short or with counts larger than
/// its bytes, nests deeper than ``JSONParser/maximumDepth`` or holds an unknown tag is `nil`
/// (it reads as missing), never a crash or a large allocation.
package enum RecordCoding {
    /// The first byte of a blob in this form.
    static let marker: UInt8 = 0xA5
    private static let typenameKey = "__typename"

    /// What a value is; each tag is followed by its payload.
    private enum Tag: UInt8 {
        /// `null`, `false`, `true`: no payload.
        case null, isFalse, isTrue
        /// A zigzag varint.
        case int
        /// Eight bytes: the `Double`'s bit pattern, little-endian.
        case double
        /// A number kept as its literal: a varint length and the text.
        case number
        /// A varint length and UTF-8 bytes.
        case string
        /// A varint count and the elements.
        case array
        /// A varint count and, for each field, its name (length and bytes) and value.
        case object
        /// `{"__ref": key}`: the key's length and bytes.
        case reference
    }

    // MARK: Writing

    /// A record's fields in this form.
    package static func encode(record fields: JSONObject) -> Data {
        var out = Writer()
        out.bytes.append(marker)
        if case .string(let typename)? = fields[typenameKey] {
            out.varint(UInt64(typename.utf8.count) + 1)
            out.utf8(typename)
            out.object(fields, leavingOut: typenameKey)
        } else {
            out.varint(0)
            out.object(fields, leavingOut: nil)
        }
        return Data(out.bytes)
    }

    /// One value (a root's field) in this form.
    static func encode(value: JSONValue) -> Data {
        var out = Writer()
        out.bytes.append(marker)
        out.value(value)
        return Data(out.bytes)
    }

    /// The expiry of a record's fields (those a server gave a maximum age), as JSON: milliseconds
    /// since 1970 by field; `nil` when there is none.
    static func encode(expiry: [String: Date]) -> Data? {
        guard !expiry.isEmpty else { return nil }
        return JSONSerializer.data(.object(expiry.mapValues { .int(Int(($0.timeIntervalSince1970 * 1000).rounded())) }))
    }

    private struct Writer {
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(256) }

        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        mutating func utf8(_ text: String) {
            var text = text
            text.withUTF8 { bytes.append(contentsOf: $0) }
        }

        mutating func string(_ text: String) {
            varint(UInt64(text.utf8.count))
            utf8(text)
        }

        mutating func object(_ object: JSONObject, leavingOut left: String?) {
            varint(UInt64(object.count - (left == nil ? 0 : 1)))
            for (name, value) in object where name != left {
                string(name)
                self.value(value)
            }
        }

        mutating func value(_ value: JSONValue) {
            switch value {
            case .null: bytes.append(Tag.null.rawValue)
            case .bool(let flag): bytes.append((flag ? Tag.isTrue : Tag.isFalse).rawValue)
            case .int(let number):
                bytes.append(Tag.int.rawValue)
                varint(UInt64(bitPattern: Int64(number) << 1 ^ Int64(number) >> 63))
            case .double(let number):
                bytes.append(Tag.double.rawValue)
                withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            case .number(let literal):
                bytes.append(Tag.number.rawValue)
                string(literal.text)
            case .string(let text):
                bytes.append(Tag.string.rawValue)
                string(text)
            case .array(let elements):
                bytes.append(Tag.array.rawValue)
                varint(UInt64(elements.count))
                for element in elements { self.value(element) }
            case .object(let object):
                if object.count == 1, case .string(let key)? = object[CacheNaming.reference] {
                    bytes.append(Tag.reference.rawValue)
                    string(key)
                } else {
                    bytes.append(Tag.object.rawValue)
                    self.object(object, leavingOut: nil)
                }
            }
        }
    }

    // MARK: Reading

    /// A record's fields from a blob in this form or in JSON; `nil` when it is neither.
    package static func fields(from data: Data) -> JSONObject? {
        guard data.first == marker else {
            guard case .object(let fields)? = try? JSONParser.parse(data) else { return nil }
            return fields
        }
        return data.withUnsafeBytes { bytes in
            var reader = Reader(bytes, from: 1)
            guard let typename = reader.typename(), var fields = reader.object(depth: 0), reader.atEnd else { return nil }
            if let typename { fields[typenameKey] = .string(typename) }
            return fields
        }
    }

    /// A value (a root's field) from a blob in this form or in JSON; `nil` when it is neither.
    static func value(from data: Data) -> JSONValue? {
        guard data.first == marker else { return try? JSONParser.parse(data) }
        return data.withUnsafeBytes { bytes in
            var reader = Reader(bytes, from: 1)
            guard let value = reader.value(depth: 0), reader.atEnd else { return nil }
            return value
        }
    }

    /// The expiry of a record's fields; what cannot be read is none.
    static func expiry(from data: Data) -> [String: Date] {
        guard case .object(let object)? = try? JSONParser.parse(data) else { return [:] }
        return object.compactMapValues { value in value.intValue.map { Date(timeIntervalSince1970: Double($0) / 1000) } }
    }

    /// A record's `__typename` without decoding its fields: `.some(nil)` for a record without
    /// one, `nil` for a blob that is not a record.
    static func typename(of data: Data) -> String?? {
        guard data.first == marker else {
            guard case .object(let fields)? = try? JSONParser.parse(data) else { return nil }
            return .some(fields[typenameKey]?.stringValue)
        }
        return data.withUnsafeBytes { bytes in
            var reader = Reader(bytes, from: 1)
            return reader.typename()
        }
    }

    /// `apicore_typename(fields)`: a record's `__typename`, `''` for a record without one, NULL
    /// for a blob that is not a record (each connection has it: ``SQLiteRecordStore`` counts
    /// records by type with it, in whichever form their rows are).
    static let typenameFunction = DatabaseFunction("apicore_typename", argumentCount: 1, pure: true) { arguments in
        guard let data = Data.fromDatabaseValue(arguments[0]), let typename = typename(of: data) else { return nil }
        return typename ?? ""
    }

    private struct Reader {
        let base: UnsafeRawBufferPointer
        var index: Int

        init(_ base: UnsafeRawBufferPointer, from index: Int) {
            self.base = base
            self.index = index
        }

        var atEnd: Bool { index == base.count }

        mutating func varint() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while index < base.count, shift < 64 {
                let byte = base[index]
                index += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
            return nil
        }

        /// A count of things each at least `room` bytes long: no more than the bytes left hold.
        mutating func count(room: Int = 1) -> Int? {
            guard let count = varint(), count <= UInt64(base.count - index) / UInt64(room) else { return nil }
            return Int(count)
        }

        /// `length` bytes (the caller checked they are there) as text.
        private mutating func text(_ length: Int) -> String {
            defer { index += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: base[index..<index + length]), as: UTF8.self)
        }

        mutating func string() -> String? { count().map { text($0) } }

        /// A record's typename: its length plus one, 0 for none.
        mutating func typename() -> String?? {
            guard let length = varint(), length <= UInt64(base.count - index) + 1 else { return nil }
            return length == 0 ? .some(nil) : .some(text(Int(length) - 1))
        }

        /// An object's fields: a count, then each field's name and value (two bytes at least).
        mutating func object(depth: Int) -> JSONObject? {
            guard let count = count(room: 2) else { return nil }
            var object = JSONObject(minimumCapacity: count)
            for _ in 0..<count {
                guard let name = string(), let value = value(depth: depth + 1) else { return nil }
                object[name] = value
            }
            return object
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth <= JSONParser.maximumDepth, index < base.count, let tag = Tag(rawValue: base[index]) else { return nil }
            index += 1
            switch tag {
            case .null: return .null
            case .isFalse: return .bool(false)
            case .isTrue: return .bool(true)
            case .int:
                guard let bits = varint() else { return nil }
                return .int(Int(truncatingIfNeeded: Int64(bitPattern: bits >> 1) ^ -Int64(bitPattern: bits & 1)))
            case .double:
                guard base.count - index >= 8 else { return nil }
                let bits = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                index += 8
                return .double(Double(bitPattern: bits))
            case .number:
                guard let text = string(), let literal = JSONNumber(text) else { return nil }
                return .number(literal)
            case .string:
                return string().map(JSONValue.string)
            case .array:
                guard let count = count() else { return nil }
                var elements: [JSONValue] = []
                elements.reserveCapacity(count)
                for _ in 0..<count {
                    guard let element = value(depth: depth + 1) else { return nil }
                    elements.append(element)
                }
                return .array(elements)
            case .object:
                return object(depth: depth).map(JSONValue.object)
            case .reference:
                return string().map { .object([CacheNaming.reference: .string($0)]) }
            }
        }
    }
}
