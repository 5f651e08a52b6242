// apicore-json-bench: JSON reading throughput on the same bytes, in one run — APICore's reader
// (`JSONTape`: the whole text checked, numbers classified, a navigable tape, as simdjson's DOM),
// APICore's tree (`JSONParser.parse`: the tape, then `JSONValue` built from it), bytes to checked
// typed data (the tape checked against a generated query's selections and kept as the data, as the
// engine reads an answer; and, beside it, the tree checked, as data from elsewhere is), Foundation's
// JSONSerialization and, when `--simdjson <binary>` is given, simdjson's DOM parse
// (scripts/bench.sh json builds that binary). Prints one `name: value` line per figure.
//
// The inputs are written once per run from a fixed seed: a GitHub-like answer of about 410 KB
// (issues with their comments, authors, bodies of prose with escapes and non-ASCII text, like
// GitHub's IssuesAndCommentsForRepository), and 20 MB of the same shape.
@_spi(Tools) @_spi(Engine) import APICore
import Foundation

/// A fixed-seed generator, so that every run reads the same bytes.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// GitHub-like issues and comments as JSON text, about `bytes` long.
func githubLikeAnswer(bytes: Int, seed: UInt64) -> Data {
    var random = SplitMix(state: seed)
    let words = [
        "the", "cache", "request", "response", "fails", "when", "server", "returns", "a", "null", "field", "in", "list", "we", "should",
        "handle", "this", "case", "gracefully", "reproduced", "on", "iOS", "Linux", "after", "upgrading", "to", "version", "naïve",
        "café", "déjà", "vu", "🚀", "✅", "`code`", "\"quoted\"", "path/to/file.swift", "https://example.com/a?b=c", "é", "日本語",
    ]
    func prose(_ count: Int) -> String {
        var text = ""
        for index in 0..<count {
            text += words[random.below(words.count)]
            text += index % 17 == 16 ? ".\n\n" : " "
        }
        return text
    }
    func string(_ text: String) -> String { JSONSerializer.string(.string(text)) }
    func author() -> String {
        let login = "user\(random.below(5_000))"
        return #"{"__typename":"User","login":\#(string(login)),"avatarUrl":"https://avatars.githubusercontent.com/u/\#(random.below(9_000_000))?v=4","url":"https://github.com/\#(login)","id":"MDQ6VXNlcj\#(random.below(1_000_000_000))"}"#
    }
    var issues: [String] = []
    var size = 0
    var number = 1
    while size < bytes {
        var comments: [String] = []
        for _ in 0..<random.below(12) {
            comments.append(
                #"{"__typename":"IssueCommentEdge","node":{"__typename":"IssueComment","id":"MDEyOklzc3VlQ29tbWVudD\#(random.below(1_000_000_000))","body":\#(string(prose(20 + random.below(120)))),"createdAt":"2019-0\#(1 + random.below(9))-1\#(random.below(10))T1\#(random.below(10)):2\#(random.below(10)):00Z","reactions":{"__typename":"ReactionConnection","totalCount":\#(random.below(40))},"author":\#(author())}}"#)
        }
        let issue =
            #"{"__typename":"IssueEdge","node":{"__typename":"Issue","id":"MDU6SXNzdWU\#(random.below(1_000_000_000))","number":\#(number),"title":\#(string(prose(4 + random.below(10)))),"body":\#(string(prose(40 + random.below(200)))),"state":"\#(random.below(2) == 0 ? "OPEN" : "CLOSED")","createdAt":"2018-1\#(random.below(3))-0\#(1 + random.below(9))T0\#(random.below(10)):1\#(random.below(10)):3\#(random.below(10))Z","score":\#(Double(random.below(100_000)) / 1000),"author":\#(author()),"labels":{"__typename":"LabelConnection","nodes":[{"__typename":"Label","name":"bug","color":"d73a4a"}]},"comments":{"__typename":"IssueCommentConnection","totalCount":\#(comments.count),"edges":[\#(comments.joined(separator: ","))]}}}"#
        issues.append(issue)
        size += issue.utf8.count + 1
        number += 1
    }
    let text = #"{"data":{"repository":{"__typename":"Repository","name":"apollo-ios","issues":{"__typename":"IssueConnection","totalCount":\#(issues.count),"edges":[\#(issues.joined(separator: ","))]}}}}"#
    return Data(text.utf8)
}

/// Bytes to checked typed data, as a client reads an answer: read onto a tape, its `data` checked
/// there against the generated selections of `query IssuesAndComments` (GraphQL/, generated into
/// Generated/).
func checkedData(_ data: Data) throws -> IssuesAndCommentsQuery.Data {
    guard let object = try JSONTape(reading: data).root["data"] else { fatalError("the benchmark's answer has no data") }
    let checked = try IssuesAndCommentsQuery.Data(validating: object)
    precondition(!checked.repository.issues.edges.isEmpty)
    return checked
}

/// The same through a tree: parsed into `JSONValue`, then checked.
func checkedTreeData(_ data: Data) throws -> IssuesAndCommentsQuery.Data {
    guard case .object(let envelope) = try JSONParser.parse(data), let object = envelope["data"]?.objectValue else {
        fatalError("the benchmark's answer has no data")
    }
    let checked = try IssuesAndCommentsQuery.Data(validating: object)
    precondition(!checked.repository.issues.edges.isEmpty)
    return checked
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The best time of `rounds` calls of `body`, in seconds.
func best(_ rounds: Int, _ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    var fastest = Double.infinity
    for _ in 0..<rounds {
        let time = seconds(try clock.measure(body))
        fastest = min(fastest, time)
    }
    return fastest
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print("""
        usage: apicore-json-bench [--simdjson <simdjson-bench binary>]
               apicore-json-bench --profile tape|tree   (one reader on the large input, for perf record)
        """)
    exit(0)
}
// `--profile tape|tree`: that reader alone on the large input for a while, for `perf record`.
if let option = arguments.firstIndex(of: "--profile"), arguments.indices.contains(option + 1) {
    let data = githubLikeAnswer(bytes: 20_000_000, seed: 20)
    for _ in 0..<20 {
        switch arguments[option + 1] {
        case "tape": _ = try JSONTape(reading: data)
        default: _ = try JSONParser.parse(data)
        }
    }
    exit(0)
}
let simdjson = arguments.firstIndex(of: "--simdjson").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-json-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let inputs: [(name: String, data: Data, rounds: Int)] = [
    ("github", githubLikeAnswer(bytes: 410_000, seed: 41), 60),
    ("large", githubLikeAnswer(bytes: 20_000_000, seed: 20), 6),
]
var files: [String: URL] = [:]
for input in inputs {
    let file = folder.appendingPathComponent("\(input.name).json")
    try input.data.write(to: file)
    files[input.name] = file
}

// simdjson first, on the files written: its figures by input name.
var simdjsonMBps: [String: Double] = [:]
if let simdjson {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: simdjson)
    process.arguments = ["20"] + inputs.map { files[$0.name]!.path }
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: " ")
        guard parts.count == 2, let value = Double(parts[1]) else { continue }
        let name = URL(fileURLWithPath: String(parts[0])).deletingPathExtension().lastPathComponent
        simdjsonMBps[name] = value
    }
}

for input in inputs {
    let megabytes = Double(input.data.count) / 1e6
    print("json-\(input.name)-bytes: \(input.data.count)")
    // Rounds alternate between the readers, so that a noisy moment costs each alike.
    var ours = Double.infinity
    var foundation = Double.infinity
    var tree = Double.infinity
    var checked = Double.infinity
    var checkedTree = Double.infinity
    for _ in 0..<3 {
        ours = min(ours, try best(input.rounds / 3) { _ = try JSONTape(reading: input.data) })
        tree = min(tree, try best(input.rounds / 3) { _ = try JSONParser.parse(input.data) })
        checked = min(checked, try best(input.rounds / 3) { _ = try checkedData(input.data) })
        checkedTree = min(checkedTree, try best(input.rounds / 3) { _ = try checkedTreeData(input.data) })
        foundation = min(foundation, try best(input.rounds / 3) { _ = try JSONSerialization.jsonObject(with: input.data) })
    }
    print("json-\(input.name)-apicore-tree-mb-per-second: \(String(format: "%.1f", megabytes / tree))")
    print("json-\(input.name)-apicore-mb-per-second: \(String(format: "%.1f", megabytes / ours))")
    print("json-\(input.name)-apicore-checked-mb-per-second: \(String(format: "%.1f", megabytes / checked))")
    print("json-\(input.name)-apicore-checked-tree-mb-per-second: \(String(format: "%.1f", megabytes / checkedTree))")
    print("json-\(input.name)-jsonserialization-mb-per-second: \(String(format: "%.1f", megabytes / foundation))")
    if let reference = simdjsonMBps[input.name] {
        print("json-\(input.name)-simdjson-mb-per-second: \(String(format: "%.1f", reference))")
        print("json-\(input.name)-apicore-over-simdjson: \(String(format: "%.3f", megabytes / ours / reference)) (target >= 0.25)")
        print("json-\(input.name)-apicore-tree-over-simdjson: \(String(format: "%.3f", megabytes / tree / reference))")
        print("json-\(input.name)-apicore-checked-over-simdjson: \(String(format: "%.3f", megabytes / checked / reference)) (target >= 0.25)")
        print("json-\(input.name)-apicore-checked-tree-over-simdjson: \(String(format: "%.3f", megabytes / checkedTree / reference))")
    } else {
        print("json-\(input.name)-simdjson-mb-per-second: n/a (no simdjson: scripts/bench.sh json builds it from libsimdjson-dev)")
    }
}
