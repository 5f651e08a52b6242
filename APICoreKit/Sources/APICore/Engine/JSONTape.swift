import Foundation

/// A JSON document read into a flat tape: one pass over the bytes checks the whole text
/// (RFC 8259) and records every value as two 64-bit words, with no allocation per value.
///
/// The tape is what ``JSONParser`` builds ``JSONValue`` from, and what a reader that needs only
/// part of a document (its shape, one member, a count) walks without building a tree. Strings
/// and number literals stay in the text and are decoded when asked for; a string with escapes is
/// unescaped once, into a side buffer. Numbers are checked and classified while reading: an
/// integer that fits `Int`, a `Double` that holds the literal exactly, or the literal kept as text
/// (as ``JSONValue/number(_:)``).
///
/// Word layout: the first word of a value holds its kind in the top byte and a payload below;
/// the second holds the rest.
///
/// | kind | first word's payload | second word |
/// |---|---|---|
/// | `null`, `true`, `false` | — | — |
/// | integer | — | the `Int`'s bits |
/// | double | — | the `Double`'s bits |
/// | number literal | offset in the text | length |
/// | string | offset in the text (or in the unescaped buffer) | length |
/// | array, object | index of the word after the last member | member count |
///
/// An object's members are a key (a string) then a value, in the order written.
@_spi(Tools) public struct JSONTape: Sendable {
    /// The kind of a value on the tape.
    public enum Kind: UInt8, Sendable {
        /// `null`.
        case null = 1
        /// `true`.
        case `true`
        /// `false`.
        case `false`
        /// An integer that `Int` holds.
        case int
        /// A number that `Double` holds as written.
        case double
        /// Any other number, kept as its literal.
        case number
        /// A string without escapes, as written in the text.
        case string
        /// A string that had escapes, unescaped into the side buffer.
        case escapedString
        /// An array.
        case array
        /// An object.
        case object
    }

    /// What the tape holds, shared by every ``Value`` of it (a value is one reference and an index):
    /// the text, its words and its unescaped strings, each in a block of its own (``TapeBlocks``),
    /// so that reading a field needs no closure over a `Data`'s bytes.
    @usableFromInline final class Storage: @unchecked Sendable {
        /// The tape's buffers: the text read (strings and number literals point into it), two
        /// words per value, strings that had escapes unescaped.
        @usableFromInline let buffers: Buffers
        /// The blocks they are in, given back when the tape goes.
        private let blocks: (text: TapeBlocks.Block, words: TapeBlocks.Block, unescaped: TapeBlocks.Block)

        init(text: TapeBlocks.Block, words: TapeBlocks.Block, unescaped: TapeBlocks.Block) {
            buffers = Buffers(
                words: UnsafeBufferPointer(start: words.start.assumingMemoryBound(to: UInt64.self), count: words.count),
                text: UnsafeBufferPointer(start: text.start.assumingMemoryBound(to: UInt8.self), count: text.count),
                unescaped: UnsafeBufferPointer(start: unescaped.start.assumingMemoryBound(to: UInt8.self), count: unescaped.count))
            blocks = (text, words, unescaped)
        }

        deinit {
            TapeBlocks.give(blocks.text)
            TapeBlocks.give(blocks.words)
            TapeBlocks.give(blocks.unescaped)
        }

        /// Two words per value.
        @inlinable var words: UnsafeBufferPointer<UInt64> { buffers.words }
        /// Strings that had escapes, unescaped.
        @inlinable var unescaped: UnsafeBufferPointer<UInt8> { buffers.unescaped }
    }

    /// The tape's buffers, for a walk over it without a copy or a check per access.
    @usableFromInline struct Buffers {
        @usableFromInline let words: UnsafeBufferPointer<UInt64>
        @usableFromInline let text: UnsafeBufferPointer<UInt8>
        @usableFromInline let unescaped: UnsafeBufferPointer<UInt8>

        @inlinable init(words: UnsafeBufferPointer<UInt64>, text: UnsafeBufferPointer<UInt8>, unescaped: UnsafeBufferPointer<UInt8>) {
            self.words = words
            self.text = text
            self.unescaped = unescaped
        }

        @inlinable func kind(_ index: Int) -> Kind { Kind(rawValue: UInt8(words[index] >> 56))! }

        /// The index after the value at `index` (after its last member, for a container).
        @inlinable func end(_ index: Int) -> Int {
            let first = words[index]
            return UInt8(first >> 56) >= Kind.array.rawValue ? Int(first & JSONTape.payloadMask) : index + 2
        }

        /// The UTF-8 of the string at `index` (a string's word), unescaped.
        @inlinable func utf8(at index: Int) -> UnsafeBufferPointer<UInt8> {
            let first = words[index]
            let base = UInt8(first >> 56) == Kind.string.rawValue ? text.baseAddress! : unescaped.baseAddress!
            return UnsafeBufferPointer(start: base + Int(first & JSONTape.payloadMask), count: Int(words[index + 1]))
        }

        /// The string at `index` (a string's word), decoded.
        @inlinable func string(at index: Int) -> String {
            String(decoding: utf8(at: index), as: UTF8.self)
        }

        /// The member of the object at `object` whose key is `key`'s bytes (its last, when the
        /// key is written twice).
        @inlinable func member(_ key: UnsafeBufferPointer<UInt8>, of object: Int) -> Int? {
            var found: Int?
            var cursor = object + 2
            let stop = Int(words[object] & JSONTape.payloadMask)
            while cursor < stop {
                let first = words[cursor]
                let value = cursor + 2
                if Int(words[cursor + 1]) == key.count {
                    if key.isEmpty {
                        found = value
                    } else {
                        let base = UInt8(first >> 56) == Kind.string.rawValue ? text.baseAddress! : unescaped.baseAddress!
                        let bytes = base + Int(first & JSONTape.payloadMask)
                        // Keys of one length mostly differ in their first byte: no call for those.
                        if bytes.pointee == key[0] && memcmp(bytes, key.baseAddress!, key.count) == 0 { found = value }
                    }
                }
                cursor = end(value)
            }
            return found
        }

        /// ``member(_:of:)`` by name.
        @inlinable func member(_ key: String, of object: Int) -> Int? {
            if let found = key.utf8.withContiguousStorageIfAvailable({ member($0, of: object) }) { return found }
            var key = key
            return key.withUTF8 { member($0, of: object) }
        }
    }

    @usableFromInline let storage: Storage

    /// Reads a complete JSON document; the error says what is wrong and where. The tape keeps a
    /// copy of the text (in a block it reuses), not `data`.
    public init(reading data: Data) throws(JSONParseError) {
        var text = TapeBuffer<UInt8>(capacity: data.count)
        data.withUnsafeBytes { text.append(contentsOf: $0.bindMemory(to: UInt8.self)) }
        var writer = TapeWriter(bytes: UnsafeBufferPointer(start: text.base, count: text.count))
        do throws(JSONParseError) {
            try writer.read()
        } catch {
            writer.release()
            text.release()
            throw error
        }
        // The side buffer was given room for the rest of the document at its first escape; what
        // the tape keeps is cut to what it holds (in place).
        storage = Storage(text: text.take(), words: writer.words.take(), unescaped: writer.unescaped.take())
    }

    /// Reads a complete JSON document given as text.
    public init(reading text: String) throws(JSONParseError) {
        try self.init(reading: Data(text.utf8))
    }

    /// Whether `data` is one complete JSON document; the error says where it is not.
    public static func validate(_ data: Data) throws(JSONParseError) {
        _ = try JSONTape(reading: data)
    }

    /// The document's value: index 0.
    public var root: Value { Value(storage: storage, index: 0) }

    /// A value on the tape: its kind, its scalar, or its members, read without building a tree.
    public struct Value: Sendable {
        @usableFromInline let storage: Storage
        @usableFromInline let index: Int

        @inlinable init(storage: Storage, index: Int) {
            self.storage = storage
            self.index = index
        }

        /// What kind of value this is.
        public var kind: Kind { Kind(rawValue: UInt8(storage.words[index] >> 56))! }

        /// The number of elements of an array or members of an object; 0 for other values.
        public var count: Int {
            switch kind {
            case .array, .object: return Int(storage.words[index + 1])
            default: return 0
            }
        }

        /// The string, or `nil` when this is not a string.
        public var stringValue: String? {
            switch kind {
            case .string, .escapedString: return storage.buffers.string(at: index)
            default: return nil
            }
        }

        /// The elements of an array, in order; empty for other values.
        public var elements: [Value] {
            guard kind == .array else { return [] }
            let buffers = storage.buffers
            var result: [Value] = []
            result.reserveCapacity(Int(buffers.words[index + 1]))
            var cursor = index + 2
            let stop = buffers.end(index)
            while cursor < stop {
                result.append(Value(storage: storage, index: cursor))
                cursor = buffers.end(cursor)
            }
            return result
        }

        /// The members of an object, in the order written; empty for other values.
        public var members: [(key: String, value: Value)] {
            guard kind == .object else { return [] }
            let buffers = storage.buffers
            var result: [(key: String, value: Value)] = []
            result.reserveCapacity(Int(buffers.words[index + 1]))
            var cursor = index + 2
            let stop = buffers.end(index)
            while cursor < stop {
                result.append((buffers.string(at: cursor), Value(storage: storage, index: cursor + 2)))
                cursor = buffers.end(cursor + 2)
            }
            return result
        }

        /// The member named `key` of an object (its last, when the key is written twice), or `nil`.
        /// Keys compare as the tree's do: a key that is not valid UTF-8 is read with U+FFFD in
        /// place of what is wrong.
        public subscript(key: String) -> Value? {
            guard kind == .object else { return nil }
            // Only a key written with invalid UTF-8 reads as one holding U+FFFD, so only then
            // are keys compared as strings rather than as bytes.
            if key.unicodeScalars.contains("\u{FFFD}") { return members.last { $0.key == key }?.value }
            return storage.buffers.member(key, of: index).map { Value(storage: storage, index: $0) }
        }

        /// The value as a ``JSONValue`` tree.
        public var jsonValue: JSONValue { storage.buffers.jsonValue(at: index) }
    }

    @usableFromInline static let payloadMask: UInt64 = (1 << 56) - 1

    /// Whether two runs of UTF-8 are the same bytes.
    @inlinable static func sameBytes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        left.count == right.count && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
    }
}

extension JSONValue {
    /// The value a tape holds at its root.
    @_spi(Tools) public init(_ tape: JSONTape) {
        self = tape.root.jsonValue
    }
}

extension JSONTape.Buffers {
    /// The value at `index` as a ``JSONValue`` tree: containers sized once, strings decoded from
    /// the text.
    @usableFromInline func jsonValue(at index: Int) -> JSONValue {
        var cursor = index
        return value(at: &cursor)
    }

    private func value(at cursor: inout Int) -> JSONValue {
        let first = words[cursor]
        let second = words[cursor + 1]
        let at = cursor
        cursor += 2
        switch JSONTape.Kind(rawValue: UInt8(first >> 56)) {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .int: return .int(Int(bitPattern: UInt(second)))
        case .double: return .double(Double(bitPattern: second))
        case .number:
            let offset = Int(first & JSONTape.payloadMask)
            return .number(JSONNumber(unchecked: String(decoding: UnsafeBufferPointer(rebasing: text[offset..<offset + Int(second)]), as: UTF8.self)))
        case .string, .escapedString: return .string(string(at: at))
        case .array:
            var array: [JSONValue] = []
            array.reserveCapacity(Int(second))
            for _ in 0..<Int(second) { array.append(value(at: &cursor)) }
            return .array(array)
        case .object:
            var object = JSONObject(minimumCapacity: Int(second))
            for _ in 0..<Int(second) {
                let key = string(at: cursor)
                cursor += 2
                object[key] = value(at: &cursor)
            }
            return .object(object)
        case nil: preconditionFailure("JSONTape: a word of no kind at \(cursor - 2)")
        }
    }
}
