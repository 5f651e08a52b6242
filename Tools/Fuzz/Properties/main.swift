// codegen-properties: the generator's property run over many seeds (scripts/codegen-properties.sh),
// and the writer of the committed random samples (Fixtures/GeneratedSamples).
import CodegenFuzzTargets
import CodegenKit
import Foundation

let usage = """
    usage: codegen-properties run [--seeds <count>] [--first <seed>] [--large]
           codegen-properties sample <seed> <folder>
           codegen-properties round-trip <folder> <module> <file>
           codegen-properties space [--seeds <count>] [--first <seed>] [--seconds <budget>] [--modules <folder>]
           codegen-properties space-sample <seed> <folder>

    run     generates random valid schemas and operations (interfaces, unions, objects with
            several interfaces, overlapping and nested type conditions, fragments, aliases,
            @include/@skip) for <count> seeds from <first> (defaults 1000 and 0) and checks each:
            accepted, finished within 20 s, at most (selection sets)² + 10 structs, the same bytes
            twice. --large uses the benchmark's size (about 1,000 types, 50 operations).
            Prints the first failing seed and exits 1, else a summary.
    space   generates RandomSpecSpace samples (recursive input objects, names that meet after
            Swift's conversions or Swift's own, descriptions everywhere, defaults of every type,
            @oneOf, a directive at every location) for <count> seeds from <first> (defaults 20
            and 0), or until <budget> seconds have passed, and compiles each with swiftc against
            the APICore module in <folder> (default: the Modules folder beside this executable).
            Prints the first failing seed with the compiler's errors and exits 1.
    space-sample  writes the RandomSpecSpace sample of <seed> to <folder>.
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

/// Writes a sample's schema.graphqls and operations.graphql into `folder`.
func write(_ sample: RandomGraphQL.Sample, to folder: URL) {
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try sample.schema.write(to: folder.appendingPathComponent("schema.graphqls"), atomically: true, encoding: .utf8)
        try sample.operations.write(to: folder.appendingPathComponent("operations.graphql"), atomically: true, encoding: .utf8)
    } catch {
        fail("codegen-properties: cannot write to \(folder.path): \(error.localizedDescription)")
    }
}

switch arguments.first {
case "sample":
    guard arguments.count == 3, let seed = UInt64(arguments[1]) else { fail(usage) }
    write(RandomGraphQL.sample(seed: seed), to: URL(fileURLWithPath: arguments[2]))
case "space-sample":
    guard arguments.count == 3, let seed = UInt64(arguments[1]) else { fail(usage) }
    write(RandomSpecSpace.sample(seed: seed), to: URL(fileURLWithPath: arguments[2]))
case "space":
    let count = option("--seeds", default: 20)
    let first = option("--first", default: 0)
    let budget = option("--seconds", default: 0)
    let modules = arguments.firstIndex(of: "--modules").flatMap { $0 + 1 < arguments.count ? URL(fileURLWithPath: arguments[$0 + 1]) : nil }
        ?? CompileCheck.modulesBesideExecutable
    guard let modules else { fail("codegen-properties space: no APICore module beside this executable; pass --modules <folder>") }
    let start = ContinuousClock.now
    var compiled = 0
    for seed in first..<(first + count) {
        if budget > 0 && ContinuousClock.now - start > .seconds(budget) { break }
        let sample = RandomSpecSpace.sample(seed: seed)
        let files: [GeneratedFile]
        do {
            files = try RandomSpecSpace.generate(sample)
        } catch {
            fail("seed \(seed): a valid sample was rejected:\n\(error)\nwrite it out with: codegen-properties space-sample \(seed) <folder>")
        }
        do {
            let errors = try CompileCheck.errors(files, moduleName: "Space", modules: modules)
            if !errors.isEmpty {
                fail("seed \(seed): the generated code does not compile:\n\(errors.prefix(20).joined(separator: "\n"))\nwrite it out with: codegen-properties space-sample \(seed) <folder>")
            }
        } catch {
            fail("codegen-properties space: cannot run swiftc: \(error)")
        }
        compiled += 1
    }
    print("codegen-properties space: \(compiled) seeds from \(first) generated and compiled")
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
