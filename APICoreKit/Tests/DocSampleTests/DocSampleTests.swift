import APICore
import APICoreTesting
import Foundation
import Testing

/// What the articles' samples may use without declaring it: a client, as an app's composition
/// root or a kit would have one.
let client: any APIClient = MockAPIClient()

@Suite("DocC articles' samples")
struct DocSampleTests {
    static let catalog = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/APICore/APICore.docc")

    @Test("every ```swift block of every article was compiled with this target")
    func everySampleCompiled() throws {
        let articles = try FileManager.default.contentsOfDirectory(at: Self.catalog, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
        #expect(!articles.isEmpty)
        var counted: [String: Int] = [:]
        for article in articles {
            let text = try String(contentsOf: article, encoding: .utf8)
            counted[article.deletingPathExtension().lastPathComponent] =
                text.components(separatedBy: "\n").count { $0.trimmingCharacters(in: .whitespaces) == "```swift" }
        }
        #expect(counted == docSampleCounts)
        #expect(docSampleCounts.values.reduce(0, +) > 0)
    }
}
