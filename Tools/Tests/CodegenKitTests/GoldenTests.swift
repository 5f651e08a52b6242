import CodegenKit
import Foundation
import Testing

@Suite("StarWars golden output")
struct GoldenTests {
    let fixture = repositoryRoot.appendingPathComponent("Tools/Fixtures/StarWarsAPI")

    func generated(_ config: String) throws -> [GeneratedFile] {
        try Codegen.generate(try CodegenConfiguration.load(from: fixture.appendingPathComponent(config)))
    }

    @Test("the committed StarWars code is exactly what the generator writes, from SDL and from schema.json alike")
    func golden() throws {
        let fromSDL = try generated("apollo-codegen-config.json")
        let fromJSON = try generated("apollo-codegen-config-introspection.json")
        #expect(fromSDL.count == 66)  // 58 for the operations and schema types, 8 test mocks
        #expect(fromSDL == fromJSON)
        for file in fromSDL {
            let committed = try String(contentsOf: fixture.appendingPathComponent(file.path), encoding: .utf8)
            #expect(committed == file.contents, "\(file.path) differs from the generator's output")
        }
    }

    @Test("two runs give byte-identical output")
    func deterministic() throws {
        #expect(try generated("apollo-codegen-config.json") == (try generated("apollo-codegen-config.json")))
    }

    @Test("generated code grows with what operations select: only used schema types are written")
    func onlyUsedTypes() throws {
        let paths = try generated("apollo-codegen-config.json").map(\.path)
        #expect(paths.contains("Sources/StarWarsAPI/Enums/Episode.graphql.swift"))
        #expect(paths.contains("Sources/StarWarsAPI/InputObjects/ColorInput.graphql.swift"))
        // LengthUnit is only an argument default in the schema; no operation names it.
        #expect(!paths.contains("Sources/StarWarsAPI/Enums/LengthUnit.graphql.swift"))
    }
}
