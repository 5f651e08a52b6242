@_spi(Engine) @_spi(Tools) @testable import APICore
import APICoreSupport
@testable import APICoreLive
@testable import APICoreSQLite
import APICoreTesting
import Foundation
import GRDB
import Logging
import Testing

/// Records as SQLite keeps them (format version 4, RecordCoding.swift): read back as written,
/// rows of earlier versions (JSON) read as before, and hostile blobs read as missing.
@Suite("SQLite record format")
struct RecordCodingTests {
    /// Every kind of value, at its edges.
    static let values: [JSONValue] = [
        .null, true, false, 0, 1, -1, 63, 64, -64, -65, 127, 128, 300, .int(Int(Int32.max)), .int(Int(Int32.min)), .int(Int.max), .int(Int.min),
        0.5, -0.0, 1e308, -1e-308, .double(Double.leastNonzeroMagnitude), .double(.greatestFiniteMagnitude),
        .number(JSONNumber("123456789012345678901234567890")!), .number(JSONNumber("1e400")!),
        "", "Luke", "\u{0}", "é", "😀 \u{10FFFF}", .string(String(repeating: "x", count: 200)), .string(String(repeating: "€", count: 50_000)),
        [], [1, "two", nil, [3.5]], [:], ["__ref": "Human:1"], ["__ref": 1], ["__ref": "Human:1", "name": "Luke"],
        ["a": ["b": ["c": ["__ref": "Droid:2"]]]], ["__typename": "Human"], .object(Dictionary(uniqueKeysWithValues: (0..<300).map { ("f\($0)", .int($0)) })),
    ]

    @Test("every kind of value, at its edges, as a record's field and as a root's field value, reads back as written")
    func roundTrip() throws {
        for value in Self.values {
            #expect(RecordCoding.value(from: RecordCoding.encode(value: value)) == value, "\(value)")
            for typename: JSONValue? in [nil, "Human", "", .null, 7] {
                var fields: JSONObject = ["value": value, "id": "1"]
                fields["__typename"] = typename
                let blob = RecordCoding.encode(record: fields)
                #expect(blob.first == RecordCoding.marker)
                #expect(RecordCoding.fields(from: blob) == fields, "\(fields)")
                let expected: String?? = .some(typename?.stringValue)
                #expect(RecordCoding.typename(of: blob) == expected)
            }
        }
    }

    @Test("JSON rows (format versions 0 to 3) read as before: fields, values and typename by their first byte")
    func jsonRows() {
        let json = Data(#"{"__typename":"Human","name":"Luke","friend":{"__ref":"Human:2"}}"#.utf8)
        #expect(RecordCoding.fields(from: json) == ["__typename": "Human", "name": "Luke", "friend": ["__ref": "Human:2"]])
        #expect(RecordCoding.typename(of: json) == .some("Human"))
        #expect(RecordCoding.typename(of: Data(#"{"name":"Luke"}"#.utf8)) == .some(nil))
        #expect(RecordCoding.value(from: Data(#"[1,"a"]"#.utf8)) == [1, "a"])
        #expect(RecordCoding.fields(from: Data("[1]".utf8)) == nil)
        #expect(RecordCoding.typename(of: Data("not json".utf8)) == nil)
    }

    @Test("a blob cut short, with a byte changed, with counts past its end or nested past the parser's depth reads as missing, never a crash")
    func hostileBlobs() {
        let record: JSONObject = ["__typename": "Human", "name": "Luke", "mass": 77.5, "friends": [["__ref": "Human:2"], nil], "n": 12_345_678]
        let blob = [UInt8](RecordCoding.encode(record: record))
        for end in 0..<blob.count {
            let cut = Data(blob[..<end])
            #expect(RecordCoding.fields(from: cut) == nil, "cut at \(end)")
            _ = RecordCoding.typename(of: cut)
        }
        // Every byte changed to every value: read or refused, never a crash; a record that reads is a record.
        var read = 0
        for index in 1..<blob.count {
            for byte in UInt8.min...UInt8.max where byte != blob[index] {
                var changed = blob
                changed[index] = byte
                if RecordCoding.fields(from: Data(changed)) != nil { read += 1 }
                _ = RecordCoding.value(from: Data(changed))
            }
        }
        #expect(read > 0, "a changed letter of a name still reads")
        // Counts no blob can hold: refused before anything is allocated for them.
        let huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        #expect(RecordCoding.fields(from: Data([RecordCoding.marker, 0] + huge)) == nil)
        #expect(RecordCoding.value(from: Data([RecordCoding.marker, 7] + huge)) == nil)
        #expect(RecordCoding.value(from: Data([RecordCoding.marker, 6] + huge)) == nil)
        #expect(RecordCoding.value(from: Data([RecordCoding.marker, 0x0B])) == nil, "an unknown tag")
        #expect(RecordCoding.value(from: Data([RecordCoding.marker, 0, 0])) == nil, "bytes after the value")
        // Arrays nested 100,000 deep: refused at the parser's depth, not by the stack.
        let deep = [RecordCoding.marker] + Array(repeating: [7, 1], count: 100_000).joined() + [0]
        #expect(RecordCoding.value(from: Data(deep)) == nil)
        let allowed = [RecordCoding.marker] + Array(repeating: [7, 1], count: JSONParser.maximumDepth).joined() + [0]
        #expect(RecordCoding.value(from: Data(allowed)) != nil)
    }

    @Test("a version 3 file (JSON rows) opens as version 4: its rows read, are counted by type beside new rows, and are rewritten in the new form when written")
    func versionThreeFile() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        // A file as version 3 left it: the store's own tables, JSON in its rows.
        do {
            let store = try SQLiteRecordStore(url: file)
            try await store.pool.write { db in
                try db.execute(sql: #"INSERT INTO apicore_records (key, fields, received_at) VALUES ('Human:1', '{"__typename":"Human","name":"Luke","friend":{"__ref":"Human:2"}}', 1800000000)"#)
                try db.execute(sql: #"INSERT INTO apicore_records (key, fields, received_at) VALUES ('Human:2', '{"__typename":"Human","name":"Han"}', 1800000000)"#)
                try db.execute(sql: #"INSERT INTO apicore_records (key, fields, received_at) VALUES ('Note:1', '{"text":"untyped"}', 1800000000)"#)
                try db.execute(sql: #"INSERT INTO apicore_fields (key, field, value, received_at) VALUES ('QUERY_ROOT', 'hero', '{"__ref":"Human:1"}', 1800000000)"#)
                try db.execute(sql: "PRAGMA user_version = 3")
            }
            try store.pool.close()
        }
        let storage = SQLiteCache.storage(at: file)
        let persistent = try #require(storage.persistent)
        let version = try await DatabaseQueue(path: file.path).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == 4)

        let store = NormalizedStore(persistent: persistent, logger: Logger(label: "test"))
        let luke = await store.record("Human:1")
        #expect(luke?.fields == ["__typename": "Human", "name": "Luke", "friend": ["__ref": "Human:2"]])
        #expect(try persistent.loadFields(["hero"], of: "QUERY_ROOT")?.fields == ["hero": ["__ref": "Human:1"]])

        // A new record beside the old ones; one old record written again.
        try persistent.save(
            [CacheRecord(key: "Droid:1", fields: ["__typename": "Droid", "name": "R2-D2"], receivedAt: Date()),
             CacheRecord(key: "Human:2", fields: ["__typename": "Human", "name": "Han Solo"], receivedAt: Date())],
            fields: [], removing: [], unlessWrittenSince: nil, used: [], keeping: .none)
        #expect(try persistent.typeCounts().byType == ["Human": 2, "Droid": 1, "(untyped)": 1, "QUERY_ROOT": 1])
        let firstBytes = try await DatabaseQueue(path: file.path).read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, substr(fields, 1, 1) FROM apicore_records").map {
                (try $0.decode(String.self, atIndex: 0), try $0.decode(Data.self, atIndex: 1).first)
            })
        }
        #expect(firstBytes == ["Human:1": UInt8(ascii: "{"), "Note:1": UInt8(ascii: "{"), "Human:2": RecordCoding.marker, "Droid:1": RecordCoding.marker])
        #expect(try persistent.load(["Human:2", "Note:1"]).mapValues(\.fields) == [
            "Human:2": ["__typename": "Human", "name": "Han Solo"], "Note:1": ["text": "untyped"],
        ])
    }
}
