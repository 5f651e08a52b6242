import Foundation

// Writes the Swift code samples of DocC articles as Swift sources, so that the articles' samples
// are compiled with the package's tests (the DocSamples build plugin runs this):
//
//     apicore-doc-samples <output folder> <article.md>…
//
// Each ```swift block of `Name.md` lands in `Name+Samples.swift`, under a `#sourceLocation` that
// points at the article, so a compiler error or warning names the article's file and line. Its
// `import`s go to the top of the file. A block of declarations only (types, extensions,
// functions, at the block's left margin) stays at file scope; any other block becomes the body of
// an `async throws` function of its own, so that statements (`let answer = try await …`) compile
// as they are written. `DocSampleIndex.swift` lists how many samples each article has.

/// One ```swift block: its lines, without the fence's indentation, and the article line it starts at.
struct Sample {
    var firstLine: Int
    var lines: [String]
}

/// The ```swift blocks of an article, in order.
func samples(in text: String) -> [Sample] {
    var result: [Sample] = []
    var current: Sample?
    var indentation = 0
    for (index, line) in text.components(separatedBy: "\n").enumerated() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if current == nil {
            if trimmed == "```swift" {
                indentation = line.prefix { $0 == " " }.count
                current = Sample(firstLine: index + 2, lines: [])
            }
        } else if trimmed == "```" {
            result.append(current!)
            current = nil
        } else {
            let margin = min(indentation, line.prefix { $0 == " " }.count)
            current!.lines.append(String(line.dropFirst(margin)))
        }
    }
    return result
}

/// Words that begin a declaration at the block's left margin: such blocks stay at file scope.
let declarationStarts = [
    "struct ", "final ", "class ", "enum ", "extension ", "protocol ", "actor ", "func ", "typealias ", "public ", "private ",
    "fileprivate ", "internal ", "package ", "nonisolated ", "@", "//", "}", ")", "]", "#if", "#else", "#endif", "import ",
]

func isDeclarations(_ sample: Sample) -> Bool {
    sample.lines.allSatisfy { line in
        line.isEmpty || line.first == " " || declarationStarts.contains { line.hasPrefix($0) }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 1 else {
    FileHandle.standardError.write(Data("usage: apicore-doc-samples <output folder> <article.md>…\n".utf8))
    exit(2)
}
let output = URL(fileURLWithPath: arguments[0])
var index: [(String, Int)] = []
do {
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    for path in arguments.dropFirst() {
        let article = URL(fileURLWithPath: path)
        let name = article.deletingPathExtension().lastPathComponent
        let symbol = name.filter { $0.isLetter || $0.isNumber }
        let found = samples(in: try String(contentsOf: article, encoding: .utf8))
        var imports: [String] = []
        var body = ""
        for sample in found {
            for line in sample.lines where line.hasPrefix("import ") && !imports.contains(line) { imports.append(line) }
            let lines = sample.lines.map { $0.hasPrefix("import ") ? "" : $0 }
            body += "#sourceLocation(file: \"\(article.path)\", line: \(sample.firstLine))\n"
            if isDeclarations(sample) {
                body += lines.joined(separator: "\n") + "\n"
            } else {
                // The function's own line sits before the sample's first line.
                body += "#sourceLocation(file: \"\(article.path)\", line: \(sample.firstLine - 1))\n"
                body += "func docSample_\(symbol)_\(sample.firstLine)() async throws {\n"
                body += lines.map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n") + "\n}\n"
            }
            body += "#sourceLocation()\n"
        }
        let file = "// Written by apicore-doc-samples from \(article.lastPathComponent); do not edit.\n"
            + imports.sorted().joined(separator: "\n") + "\n\n" + body
        try file.write(to: output.appendingPathComponent("\(name)+Samples.swift"), atomically: false, encoding: .utf8)
        index.append((name, found.count))
    }
    let entries = index.map { "    \"\($0.0)\": \($0.1)," }.joined(separator: "\n")
    let indexFile = """
        // Written by apicore-doc-samples; do not edit.

        /// How many Swift samples of each article were compiled, by article name.
        let docSampleCounts: [String: Int] = [
        \(entries.isEmpty ? ":" : entries)
        ]

        """
    try indexFile.write(to: output.appendingPathComponent("DocSampleIndex.swift"), atomically: false, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("apicore-doc-samples: \(error)\n".utf8))
    exit(1)
}
