@_spi(Tools) import APICore
import Foundation
import Testing

@testable import FuzzTargets

/// Every committed fuzz input (corpus and regressions) runs through its target in the normal test
/// run, so a crash the fuzzer once found stays fixed without libFuzzer.
@Suite struct FuzzReplayTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static func inputs(_ target: FuzzTarget, in folder: String) -> [URL] {
        let directory = fuzzFolder.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func committedInputs(_ target: FuzzTarget) throws {
        let corpus = Self.inputs(target, in: "Corpus")
        #expect(corpus.count >= target.seeds.count, "the committed corpus has at least the generated seeds")
        for file in corpus + Self.inputs(target, in: "Regressions") {
            target.run(try Data(contentsOf: file))
        }
    }

    @Test func responseSeedsValidate() throws {
        for seed in ResponseReading.seeds {
            let operation = ResponseReading.operations[Int(seed[seed.startIndex])]
            let variables = ResponseReading.variables(for: operation.dataType, bits: seed[seed.startIndex + 1])
            let envelope = try #require(try JSONParser.parse(seed.dropFirst(2)).objectValue)
            let data = try #require(envelope["data"]?.objectValue)
            #expect(throws: Never.self, "\(operation.operationName) with \(variables)") {
                _ = try operation.dataType.init(validating: data, variables: variables)
            }
        }
    }

    /// A new operation in Tools' StarWars fixture must be added to the response target's list.
    @Test func everyGeneratedOperationIsFuzzed() throws {
        let operationsFolder = Self.fuzzFolder.appendingPathComponent("StarWarsAPI/Operations")
        var files: Set<String> = []
        for kind in ["Queries", "Mutations", "Subscriptions"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: operationsFolder.appendingPathComponent(kind).path)
            files.formUnion(names.map { String($0.prefix { $0 != "." }) })
        }
        let fuzzed = Set(ResponseReading.operations.map { String(reflecting: $0) }.filter { $0.hasPrefix("FuzzStarWarsAPI.") }
            .map { String($0.dropFirst("FuzzStarWarsAPI.".count)) })
        #expect(fuzzed == files)
    }

    /// The crash of issue 19: `name` under `@include(if: $withName)` sent as a number while the
    /// variable is false passed validation, then trapped in its accessor.
    @Test func conditionalFieldOfTheWrongType() throws {
        let index = try #require(ResponseReading.operations.firstIndex { $0.operationName == "HeroConditional" })
        for withName: UInt8 in [0, 1] {
            ResponseReading.run(Data([UInt8(index), withName]) + Data(#"{"data":{"hero":{"__typename":"Human","name":7}}}"#.utf8))
        }
    }
}

extension GraphQLOperation {
    static var dataType: any SelectionSet.Type { Data.self }
}
