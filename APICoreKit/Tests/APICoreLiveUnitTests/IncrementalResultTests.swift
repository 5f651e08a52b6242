@_spi(Tools) import APICore
@testable import APICoreLive
import Foundation
import Testing

/// Assembling a `@defer` and `@stream` result from its payloads, in both formats in use.
@Suite("incremental results")
struct IncrementalResultTests {
    static func object(_ text: String) throws -> JSONObject {
        try #require(try JSONParser.parse(text).objectValue)
    }

    @Test("2022 format: each incremental entry merges at its path and fulfils its labelled fragment")
    func format2022() throws {
        var result = try IncrementalResult(initial: Self.object(#"{"data":{"hero":{"__typename":"Droid","id":"2001"}},"hasNext":true}"#))
        #expect(result.hasNext)
        let update = try result.apply(Self.object(
            #"{"incremental":[{"data":{"name":"R2-D2","friends":[{"id":"1000"}]},"path":["hero"],"label":"HeroName"}],"hasNext":false}"#))
        #expect(update.fulfilled == [.init(path: ["hero"], label: "HeroName")])
        #expect(update.errors.isEmpty)
        #expect(!result.hasNext)
        #expect(result.data == Self.objectOrEmpty(#"{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","friends":[{"id":"1000"}]}}"#))
    }

    @Test("current format: pending announces, incremental fills (with a subPath), completed fulfils")
    func currentFormat() throws {
        var result = try IncrementalResult(initial: Self.object(
            #"{"data":{"hero":{"id":"2001","friends":[{"id":"1000"},{"id":"1002"}]}},"pending":[{"id":"0","path":["hero"],"label":"Details"}],"hasNext":true}"#))
        var update = try result.apply(Self.object(
            #"{"incremental":[{"id":"0","data":{"name":"R2-D2"}},{"id":"0","subPath":["friends",1],"data":{"name":"Han Solo"}}],"hasNext":true}"#))
        #expect(update.fulfilled.isEmpty)
        update = try result.apply(Self.object(#"{"completed":[{"id":"0"}],"hasNext":false}"#))
        #expect(update.fulfilled == [.init(path: ["hero"], label: "Details")])
        #expect(result.data["hero"]?["name"] == "R2-D2")
        let friends = result.data["hero"]?["friends"]?.arrayValue ?? []
        #expect(friends.count == 2 && friends[1]["name"] == "Han Solo" && friends[0]["name"] == nil)
    }

    @Test("nested defers, a deferred fragment on a list item, and errors with their paths")
    func nestedAndErrors() throws {
        var result = try IncrementalResult(initial: Self.object(#"{"data":{"hero":{"friends":[{"id":"1"},{"id":"2"}]}},"hasNext":true}"#))
        _ = try result.apply(Self.object(#"{"incremental":[{"data":{"name":"Luke","details":{"height":1.72}},"path":["hero","friends",0]}],"hasNext":true}"#))
        let update = try result.apply(Self.object(
            #"{"incremental":[{"data":{"details":{"mass":77}},"path":["hero","friends",0]},{"data":{"name":null},"path":["hero","friends",1],"errors":[{"message":"no name","path":["hero","friends",1,"name"]}]}],"hasNext":false}"#))
        #expect(result.data["hero"]?["friends"]?.arrayValue?.first?["details"] == ["height": 1.72, "mass": 77])
        #expect(update.errors.map(\.message) == ["no name"])
        #expect(update.errors.first?.path == ResponsePath([.field("hero"), .field("friends"), .index(1), .field("name")]))
        #expect(result.errors.count == 1)
    }

    @Test("a completion with errors fulfils nothing and reports them; a nulled parent takes no increment")
    func failedFragment() throws {
        var result = try IncrementalResult(initial: Self.object(
            #"{"data":{"hero":null},"pending":[{"id":"7","path":["hero"]}],"hasNext":true}"#))
        let update = try result.apply(Self.object(
            #"{"completed":[{"id":"7","errors":[{"message":"boom","path":["hero","name"]}]}],"hasNext":false}"#))
        #expect(update.fulfilled.isEmpty)
        #expect(update.errors.map(\.message) == ["boom"])
        var nulled = try IncrementalResult(initial: Self.object(#"{"data":{"hero":null},"hasNext":true}"#))
        _ = try nulled.apply(Self.object(#"{"incremental":[{"data":{"name":"R2-D2"},"path":["hero"]}],"hasNext":false}"#))
        #expect(nulled.data["hero"] == .null)
    }

    @Test("payloads that break the protocol are invalid responses, never a crash",
          arguments: [
            #"{"incremental":[{"id":"9","data":{}}],"hasNext":false}"#,
            #"{"completed":[{"id":"9"}],"hasNext":false}"#,
            #"{"incremental":[{"data":{"a":1},"path":["nowhere"]}],"hasNext":false}"#,
            #"{"incremental":[{"data":{"a":1},"path":["hero",5]}],"hasNext":false}"#,
            #"{"incremental":[{"data":{"a":1},"path":[true]}],"hasNext":false}"#,
            #"{"incremental":[{"data":{"a":1}}],"hasNext":false}"#,
            #"{"incremental":[3],"hasNext":false}"#,
            #"{"errors":{"message":"not a list"},"hasNext":false}"#,
            // @stream: items that are not a list, a path without an index, an index past the end,
            // a path that is not a list, an id never announced.
            #"{"incremental":[{"items":{"a":1},"path":["hero",0]}],"hasNext":false}"#,
            #"{"incremental":[{"items":[1],"path":["hero"]}],"hasNext":false}"#,
            #"{"incremental":[{"items":[1],"path":["hero","friends",5]}],"hasNext":false}"#,
            #"{"incremental":[{"items":[1],"path":["hero","id",0]}],"hasNext":false}"#,
            #"{"incremental":[{"id":"4","items":[1]}],"hasNext":false}"#,
          ])
    func invalidPayloads(_ payload: String) throws {
        var result = try IncrementalResult(initial: Self.object(#"{"data":{"hero":{"id":"1"}},"hasNext":true}"#))
        #expect(throws: APIError.self) { _ = try result.apply(Self.object(payload)) }
    }

    @Test("@stream, 2022 format: items go from the index their path ends with, and are counted")
    func stream2022() throws {
        var result = try IncrementalResult(initial: Self.object(#"{"data":{"hero":{"friends":[{"id":"1"}]}},"hasNext":true}"#))
        var update = try result.apply(Self.object(#"{"incremental":[{"items":[{"id":"2"},{"id":"3"}],"path":["hero","friends",1]}],"hasNext":true}"#))
        #expect(update.streamedItems == 2 && update.fulfilled.isEmpty)
        update = try result.apply(Self.object(#"{"incremental":[{"items":[{"id":"4"}],"path":["hero","friends",3],"label":"more"}],"hasNext":false}"#))
        #expect(update.streamedItems == 1)
        #expect(result.data["hero"]?["friends"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["1", "2", "3", "4"])
    }

    @Test("@stream, current format: items go at the end of the list their id announced; completed ends it; a nulled list takes none")
    func streamCurrent() throws {
        var result = try IncrementalResult(initial: Self.object(
            #"{"data":{"hero":{"friends":[]},"villain":null},"pending":[{"id":"0","path":["hero","friends"]},{"id":"1","path":["villain"]}],"hasNext":true}"#))
        _ = try result.apply(Self.object(#"{"incremental":[{"id":"0","items":["a"]},{"id":"1","items":["x"]}],"hasNext":true}"#))
        let update = try result.apply(Self.object(#"{"incremental":[{"id":"0","items":["b","c"]}],"completed":[{"id":"0"},{"id":"1"}],"hasNext":false}"#))
        #expect(update.streamedItems == 2)
        #expect(result.data["hero"]?["friends"] == ["a", "b", "c"])
        #expect(result.data["villain"] == .null)
        #expect(!result.hasNext)
    }

    @Test("a part after the last, and a first part with neither data nor errors, are invalid")
    func outOfOrder() throws {
        var result = try IncrementalResult(initial: Self.object(#"{"data":{},"hasNext":false}"#))
        #expect(throws: APIError.self) { _ = try result.apply(Self.object(#"{"hasNext":false}"#)) }
        #expect(throws: APIError.self) { _ = try IncrementalResult(initial: Self.object(#"{"hasNext":true}"#)) }
    }

    static func objectOrEmpty(_ text: String) -> JSONObject {
        (try? JSONParser.parse(text).objectValue) ?? [:]
    }
}
