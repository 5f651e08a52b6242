// codegen-properties: the generator's property run over many seeds (scripts/codegen-properties.sh),
// and the writer of the committed random samples (Fixtures/GeneratedSamples).
import CodegenFuzzTargets
import CodegenKit
import Foundation

let usage = """
    usage: codegen-properties run [--seeds <count>] [--first <seed>] [--large]
           codegen-properties sample <seed> <folder>
           codegen-properties round-trip <folder> <module> <file>

    run     generates random valid schemas and operations (interfaces, unions, objects with
            several interfaces, overlapping and nested type conditions, fragments, aliases,
            @include/@skip) for <count> seeds from <first> (defaults 1000 and 0) and checks each:
            accepted, finished within 20 s, at most (selection sets)² + 10 structs, the same bytes
            twice. --large uses the benchmark's size (about 1,000 types, 50 operations).
            Prints the first failing seed and exits 1, else a summary.
    sample  writes the sample of <seed> to <folder>/schema.graphqls and <folder>/operations.graphql.
    round-trip  writes to <file> the test support that rebuilds the data of <folder>'s operations,
            generated into <module> with every initializer, through those initializers
            (Fixtures/GeneratedSamples/Tests/GeneratedSamplesTests/RoundTrip).
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, default value: UInt64) -> UInt64 {
    guard let index = arguments.firstIndex(of: name) else { return value }
    guard index + 1 < arguments.count, let parsed = UInt64(arguments[index + 1]) else { fail("\(name) needs a number\n\n\(usage)") }
    return parsed
}

switch arguments.first {
case "sample":
    guard arguments.count == 3, let seed = UInt64(arguments[1]) else { fail(usage) }
    let folder = URL(fileURLWithPath: arguments[2])
    let sample = RandomGraphQL.sample(seed: seed)
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try sample.schema.write(to: folder.appendingPathComponent("schema.graphqls"), atomically: true, encoding: .utf8)
        try sample.operations.write(to: folder.appendingPathComponent("operations.graphql"), atomically: true, encoding: .utf8)
    } catch {
        fail("codegen-properties: cannot write to \(folder.path): \(error.localizedDescription)")
    }
case "round-trip":
    guard arguments.count == 4 else { fail(usage) }
    let folder = URL(fileURLWithPath: arguments[1])
    do {
        let schema = try String(contentsOf: folder.appendingPathComponent("schema.graphqls"), encoding: .utf8)
        let operations = try String(contentsOf: folder.appendingPathComponent("operations.graphql"), encoding: .utf8)
        let source = try InitializerRoundTrip.source(schema: schema, operations: operations, module: arguments[2])
        try source.write(to: URL(fileURLWithPath: arguments[3]), atomically: true, encoding: .utf8)
    } catch {
        fail("codegen-properties: \(error)")
    }
case "run":
    let count = option("--seeds", default: 1000)
    let first = option("--first", default: 0)
    let size = arguments.contains("--large") ? RandomGraphQL.Size.benchmark : RandomGraphQL.Size()
    var slowest: (seed: UInt64, duration: Duration) = (first, .zero)
    var structs = 0
    for seed in first..<(first + count) {
        let sample = RandomGraphQL.sample(seed: seed, size: size)
        let start = ContinuousClock.now
        let files: [GeneratedFile]
        do {
            files = try PropertyCheck.generate(sample)
        } catch {
            fail("seed \(seed): a valid sample was rejected:\n\(error)")
        }
        let duration = ContinuousClock.now - start
        if duration > slowest.duration { slowest = (seed, duration) }
        if let problem = PropertyCheck.problem(sample, files, duration: duration) { fail("seed \(seed): \(problem)") }
        structs += PropertyCheck.structCount(files)
    }
    print("codegen-properties: \(count) seeds from \(first) passed; \(structs) structs; slowest seed \(slowest.seed) took \(slowest.duration)")
default:
    print(usage)
    exit(arguments.contains("--help") || arguments.contains("-h") ? 0 : 2)
}
