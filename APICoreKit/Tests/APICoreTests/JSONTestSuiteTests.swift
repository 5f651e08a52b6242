@_spi(Tools) @testable import APICore
import Foundation
import Testing

/// nst/JSONTestSuite's parsing cases (Fixtures/ThirdParty/JSONTestSuite, MIT): each file a JSON
/// text that a parser must accept (`y_`), must refuse (`n_`) or may do either (`i_`), covering
/// RFC 8259's whole input space: numbers, strings and escapes, UTF-8 and UTF-16, nesting,
/// whitespace, truncation. The reference, not our own examples.
@Suite("JSONTestSuite")
struct JSONTestSuiteTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Fixtures/ThirdParty/JSONTestSuite/test_parsing")

    static let cases: [String] = {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.filter { $0.hasSuffix(".json") }.sorted() ?? []
    }()

    @Test("every case is there")
    func allCases() {
        #expect(Self.cases.count == 318)
        #expect(Self.cases.filter { $0.hasPrefix("y_") }.count == 95)
        #expect(Self.cases.filter { $0.hasPrefix("n_") }.count == 188)
    }

    @Test("y_ is accepted, n_ refused with an error that says where, i_ either, none crashes; the tape and the tree agree", arguments: cases)
    func parse(_ name: String) throws {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(name))
        let tape = Result { () throws(JSONParseError) in try JSONTape(reading: data) }
        let tree = Result { () throws(JSONParseError) in try JSONParser.parse(data) }
        switch (tape, tree) {
        case (.success(let tape), .success(let tree)):
            #expect(!name.hasPrefix("n_"), "\(name) was accepted")
            #expect(JSONValue(tape) == tree)
        case (.failure(let error), .failure):
            #expect(!name.hasPrefix("y_"), "\(name) was refused: \(error)")
            #expect(error.offset <= data.count)
        default:
            Issue.record("the tape says \(tape), the tree \(tree)")
        }
    }

    @Test("each accepted string reads as Foundation reads it (escapes, surrogate pairs, UTF-8 of every length)", arguments: cases.filter { $0.hasPrefix("y_string_") })
    func strings(_ name: String) throws {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(name))
        guard let expected = (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) as? [String] else { return }
        let read = try JSONTape(reading: data).root.elements.map(\.stringValue)
        #expect(read == expected.map(Optional.some))
    }
}
