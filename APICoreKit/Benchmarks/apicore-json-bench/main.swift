// apicore-json-bench: JSON reading throughput on the same bytes, in one run — APICore's reader
// (`JSONTape`: the whole text checked, numbers classified, a navigable tape, as simdjson's DOM),
// APICore's tree (`JSONParser.parse`: the tape, then `JSONValue` built from it), bytes to checked
// typed data (the tape checked against a generated query's selections and kept as the data, as the
// engine reads an answer; and, beside it, the tree checked, as data from elsewhere is), Foundation's
// JSONSerialization and, when `--simdjson <binary>` is given, simdjson's DOM parse
// (scripts/bench.sh json builds that binary), run between rounds of ours. Prints one `name: value` line per figure.
//
// The inputs: GitHub's real answer to IssuesAndCommentsForRepository (410 KB, the one Apollo iOS's
// performance tests read: Fixtures/ThirdParty/apollo-ios/, read as GitHubOperations' query, generated against
// GitHub's schema), and, written once per run from a fixed seed, a GitHub-like answer of about
// 410 KB (issues with their comments, authors, bodies of prose with escapes and non-ASCII text) and
// 20 MB of the same shape. Beside each check, the check and then a read of every field of the
// typed data (as an app that shows the whole answer does), and simdjson's parse and walk of every
// value beside that.
@_spi(Tools) @_spi(Engine) import APICore
import GitHubOperations
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

/// Reads every field of the synthetic answer's typed data; the sum keeps the reads.
func readEveryField(_ data: IssuesAndCommentsQuery.Data) -> Int {
    func author(_ author: IssuesAndCommentsQuery.Data.Repository.Issues.Edge.Node.Author_) -> Int {
        author.login.utf8.count + author.avatarUrl.utf8.count + author.url.utf8.count + author.id.utf8.count
    }
    let repository = data.repository
    var sum = repository.name.utf8.count + repository.issues.totalCount
    for edge in repository.issues.edges {
        let issue = edge.node
        sum += issue.id.utf8.count + issue.number + issue.title.utf8.count + issue.body.utf8.count + issue.createdAt.utf8.count
        sum += Int(issue.score) + (issue.state.value == .open ? 1 : 0) + author(issue.author)
        for label in issue.labels.nodes { sum += label.name.utf8.count + label.color.utf8.count }
        sum += issue.comments.totalCount
        for comment in issue.comments.edges {
            let node = comment.node
            sum += node.id.utf8.count + node.body.utf8.count + node.createdAt.utf8.count + node.reactions.totalCount
            sum += node.author.login.utf8.count + node.author.avatarUrl.utf8.count + node.author.url.utf8.count + node.author.id.utf8.count
        }
    }
    return sum
}

/// Bytes to checked typed data for GitHub's real answer, with GitHubOperations' query.
func checkedRealData(_ data: Data) throws -> IssuesAndCommentsForRepositoryQuery.Data {
    guard let object = try JSONTape(reading: data).root["data"] else { fatalError("GitHub's answer has no data") }
    let checked = try IssuesAndCommentsForRepositoryQuery.Data(validating: object)
    precondition(checked.repository?.issues.nodes?.isEmpty == false)
    return checked
}

/// The same through a tree.
func checkedRealTreeData(_ data: Data) throws -> IssuesAndCommentsForRepositoryQuery.Data {
    guard case .object(let envelope) = try JSONParser.parse(data), let object = envelope["data"]?.objectValue else {
        fatalError("GitHub's answer has no data")
    }
    return try IssuesAndCommentsForRepositoryQuery.Data(validating: object)
}

/// Reads every field of GitHub's answer's typed data.
func readEveryField(_ data: IssuesAndCommentsForRepositoryQuery.Data) -> Int {
    guard let repository = data.repository else { return 0 }
    var sum = repository.name.utf8.count
    for issue in repository.issues.nodes ?? [] {
        guard let issue else { continue }
        sum += issue.title.utf8.count + issue.body.utf8.count
        if let author = issue.author { sum += author.login.utf8.count + (author.asUser.map { $0.id.utf8.count + ($0.name?.utf8.count ?? 0) } ?? 0) }
        for comment in issue.comments.nodes ?? [] {
            guard let comment else { continue }
            sum += comment.body.utf8.count
            if let author = comment.author {
                sum += author.login.utf8.count + (author.asUser.map { $0.id.utf8.count + ($0.name?.utf8.count ?? 0) } ?? 0)
            }
        }
    }
    return sum
}

/// What the benchmark does with one input: check it (tape or tree), check it and read every field.
struct Reading: Sendable {
    var check: @Sendable (Data) throws -> Void
    var checkTree: @Sendable (Data) throws -> Void
    var checkAndRead: @Sendable (Data) throws -> Int

    static let synthetic = Reading(
        check: { _ = try checkedData($0) }, checkTree: { _ = try checkedTreeData($0) }, checkAndRead: { readEveryField(try checkedData($0)) })
    static let github = Reading(
        check: { _ = try checkedRealData($0) }, checkTree: { _ = try checkedRealTreeData($0) },
        checkAndRead: { readEveryField(try checkedRealData($0)) })
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

/// GitHub's answer, vendored with its licence.
let realAnswer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "../../../Fixtures/ThirdParty/apollo-ios/Tests/ApolloPerformanceTests/Responses/IssuesAndCommentsForRepository.json")
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print("""
        usage: apicore-json-bench [--simdjson <simdjson-bench binary>]
               apicore-json-bench --profile tape|tree   (one reader on the large input, for perf record)
               apicore-json-bench --profile real-checked|real-read   (GitHub's real answer checked, or checked and read)
        """)
    exit(0)
}
// `--profile tape|tree`: that reader alone on the large input for a while, for `perf record`;
// `--profile real-checked|real-read`: GitHub's real answer checked (and every field read), 2,000 times.
if let option = arguments.firstIndex(of: "--profile"), arguments.indices.contains(option + 1) {
    let mode = arguments[option + 1]
    if mode.hasPrefix("real-") {
        let data = try Data(contentsOf: realAnswer)
        var sink = 0
        for _ in 0..<2_000 { sink &+= mode == "real-read" ? try Reading.github.checkAndRead(data) : (try checkedRealData(data).repository?.name.utf8.count ?? 0) }
        precondition(sink != 0)
        exit(0)
    }
    let data = githubLikeAnswer(bytes: 20_000_000, seed: 20)
    for _ in 0..<20 {
        switch mode {
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
let inputs: [(name: String, data: Data, rounds: Int, reading: Reading)] = [
    ("github-real", try Data(contentsOf: realAnswer), 60, .github),
    ("github", githubLikeAnswer(bytes: 410_000, seed: 41), 60, .synthetic),
    ("large", githubLikeAnswer(bytes: 20_000_000, seed: 20), 6, .synthetic),
]
var files: [String: URL] = [:]
for input in inputs {
    let file = folder.appendingPathComponent("\(input.name).json")
    try input.data.write(to: file)
    files[input.name] = file
}

/// simdjson's parse and parse-and-walk of `file`, MB/s, best of `rounds` (a run of its own
/// process, between rounds of ours, so that a noisy moment costs both sides alike).
func simdjsonFigures(_ binary: String, _ file: URL, rounds: Int) throws -> (parse: Double, walk: Double)? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = [String(rounds), file.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let parts = text.split(whereSeparator: \.isWhitespace)
    guard parts.count == 3, let parse = Double(parts[1]), let walk = Double(parts[2]) else { return nil }
    return (parse, walk)
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
    var checkedRead = Double.infinity
    var sink = 0
    var reference: Double?
    var walked: Double?
    for _ in 0..<3 {
        if let simdjson, let figures = try simdjsonFigures(simdjson, files[input.name]!, rounds: max(1, input.rounds / 3)) {
            reference = max(reference ?? 0, figures.parse)
            walked = max(walked ?? 0, figures.walk)
        }
        ours = min(ours, try best(input.rounds / 3) { _ = try JSONTape(reading: input.data) })
        tree = min(tree, try best(input.rounds / 3) { _ = try JSONParser.parse(input.data) })
        checked = min(checked, try best(input.rounds / 3) { try input.reading.check(input.data) })
        checkedTree = min(checkedTree, try best(input.rounds / 3) { try input.reading.checkTree(input.data) })
        checkedRead = min(checkedRead, try best(input.rounds / 3) { sink &+= try input.reading.checkAndRead(input.data) })
        foundation = min(foundation, try best(input.rounds / 3) { _ = try JSONSerialization.jsonObject(with: input.data) })
    }
    print("json-\(input.name)-apicore-tree-mb-per-second: \(String(format: "%.1f", megabytes / tree))")
    print("json-\(input.name)-apicore-mb-per-second: \(String(format: "%.1f", megabytes / ours))")
    print("json-\(input.name)-apicore-checked-mb-per-second: \(String(format: "%.1f", megabytes / checked))")
    print("json-\(input.name)-apicore-checked-tree-mb-per-second: \(String(format: "%.1f", megabytes / checkedTree))")
    print("json-\(input.name)-apicore-checked-read-mb-per-second: \(String(format: "%.1f", megabytes / checkedRead))")
    print("json-\(input.name)-jsonserialization-mb-per-second: \(String(format: "%.1f", megabytes / foundation))")
    if let reference {
        print("json-\(input.name)-simdjson-mb-per-second: \(String(format: "%.1f", reference))")
        print("json-\(input.name)-apicore-over-simdjson: \(String(format: "%.3f", megabytes / ours / reference)) (target >= 0.25)")
        print("json-\(input.name)-apicore-tree-over-simdjson: \(String(format: "%.3f", megabytes / tree / reference))")
        print("json-\(input.name)-apicore-checked-over-simdjson: \(String(format: "%.3f", megabytes / checked / reference)) (target >= 0.25)")
        print("json-\(input.name)-apicore-checked-tree-over-simdjson: \(String(format: "%.3f", megabytes / checkedTree / reference))")
        print("json-\(input.name)-apicore-checked-read-over-simdjson: \(String(format: "%.3f", megabytes / checkedRead / reference)) (target >= 0.15)")
        if let walked {
            print("json-\(input.name)-simdjson-walk-mb-per-second: \(String(format: "%.1f", walked))")
            print("json-\(input.name)-apicore-checked-read-over-simdjson-walk: \(String(format: "%.3f", megabytes / checkedRead / walked))")
        }
    } else {
        print("json-\(input.name)-simdjson-mb-per-second: n/a (no simdjson: scripts/bench.sh json builds it from libsimdjson-dev)")
    }
}
