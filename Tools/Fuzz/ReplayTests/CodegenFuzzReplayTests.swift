import Foundation
import Testing

@testable import CodegenFuzzTargets

/// Every committed input of the codegen fuzzer (corpus and regressions) runs in the normal tests.
@Suite struct CodegenFuzzReplayTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static func inputs(in folder: String) -> [URL] {
        let directory = fuzzFolder.appendingPathComponent(folder).appendingPathComponent("codegen")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test func committedInputs() throws {
        let corpus = Self.inputs(in: "Corpus")
        #expect(corpus.count >= CodegenFuzzTarget.seeds.count)
        for file in corpus + Self.inputs(in: "Regressions") {
            CodegenFuzzTarget.run(try Data(contentsOf: file))
        }
    }

    /// Every reader gets a seed, and every StarWars operation file is one: the fuzzer starts deep.
    @Test func seedsCoverEveryReader() throws {
        let modes = Set(CodegenFuzzTarget.seeds.compactMap { $0.first.flatMap(CodegenFuzzTarget.Mode.init(rawValue:)) })
        #expect(modes == Set(CodegenFuzzTarget.Mode.allCases))
        let operationFiles = try FileManager.default.contentsOfDirectory(atPath: CodegenFuzzTarget.starWarsFolder.path)
            .filter { $0.hasSuffix(".graphql") }
        #expect(CodegenFuzzTarget.seeds.filter { $0.first == CodegenFuzzTarget.Mode.operations.rawValue }.count == operationFiles.count)
    }
}
