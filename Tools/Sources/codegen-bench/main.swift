// codegen-bench: synthesizes a large schema and many operations, generates, compiles the result,
// and prints one `name: value` per line. Run it through `scripts/bench.sh codegen`.
import CodegenFuzzTargets
import CodegenKit
import Foundation

let arguments = CommandLine.arguments.dropFirst()

/// The value after `--name`, if given.
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), arguments.index(after: index) < arguments.endIndex else { return nil }
    return arguments[arguments.index(after: index)]
}

// Compile time and size on a real schema, before and after (`scripts/bench.sh codegen-compare`):
// `input` writes the workload, `compile` generates and compiles it with one side's generator.
switch arguments.first {
case "input":
    guard let schemaDirectory = option("--schema-dir"), let out = option("--out") else {
        print("usage: codegen-bench input --schema-dir <dir with schema.graphqls and *.graphql> --out <dir> [--operations N]")
        exit(2)
    }
    try CompareBench.writeInput(schemaDirectory: schemaDirectory, out: out, operations: Int(option("--operations") ?? "") ?? 120)
    exit(0)
case "compile":
    // Each side as label=generator:apicorekit; rounds alternate between the sides.
    let sides = arguments.indices.filter { arguments[$0] == "--side" && $0 + 1 < arguments.endIndex }.compactMap { index -> CompareBench.Side? in
        let spec = arguments[index + 1]
        guard let equals = spec.firstIndex(of: "="), let colon = spec[equals...].firstIndex(of: ":") else { return nil }
        return CompareBench.Side(
            label: String(spec[..<equals]), generator: String(spec[spec.index(after: equals)..<colon]), apiCoreKit: String(spec[spec.index(after: colon)...]))
    }
    guard let input = option("--input"), !sides.isEmpty else {
        print("usage: codegen-bench compile --input <dir> --side <label>=<apicore-codegen>:<APICoreKit dir>… [--rounds N]")
        exit(2)
    }
    try CompareBench.compile(input: input, sides: sides, rounds: Int(option("--rounds") ?? "") ?? 4)
    exit(0)
default:
    break
}

guard let apiCoreKitIndex = arguments.firstIndex(of: "--apicorekit"), arguments.index(after: apiCoreKitIndex) < arguments.endIndex else {
    print("usage: codegen-bench --apicorekit <path to APICoreKit> [--keep]")
    exit(arguments.contains("--help") ? 0 : 2)
}
let apiCoreKit = URL(fileURLWithPath: arguments[arguments.index(after: apiCoreKitIndex)]).standardizedFileURL.path

let objectCount = 1_000, enumCount = 800, inputCount = 800, interfaceCount = 200, unionCount = 200, operationCount = 200

func schema() -> String {
    var out = "type Query {\n"
    for i in 0..<objectCount { out += "  t\(i)(id: ID!, filter: I\(i % inputCount)): T\(i)\n" }
    out += "}\n\n"
    for i in 0..<interfaceCount { out += "\"Interface \(i)\"\ninterface N\(i) { id: ID! label: String! }\n" }
    for i in 0..<enumCount { out += "enum E\(i) { A\(i) B\(i) C\(i) D\(i) E\(i) }\n" }
    for i in 0..<inputCount { out += "input I\(i) { a: String, b: Int!, c: [E\(i % enumCount)!], d: Boolean, e: Float }\n" }
    for i in 0..<objectCount {
        out += """
            "Object type \(i)"
            type T\(i) implements N\(i % interfaceCount) {
              id: ID!
              label: String!
              name: String!
              count: Int
              price: Float
              active: Boolean!
              status: E\(i % enumCount)
              tags: [String!]!
              next: T\((i + 1) % objectCount)
              children: [T\((i + 7) % objectCount)!]!
              node: N\((i + 3) % interfaceCount)
              extra1: String
              extra2: String
            }

            """
    }
    for i in 0..<unionCount { out += "union U\(i) = T\(i) | T\(i + 1)\n" }
    return out
}

func operation(_ k: Int) -> String {
    let i = (k * 5) % objectCount
    return """
        query Op\(k)($id: ID!, $filter: I\(i % inputCount)) {
          t\(i)(id: $id, filter: $filter) {
            id
            name
            count
            status
            tags
            next { id name price active children { id name } }
            node { id label ... on T\((i + 3) % interfaceCount) { name count } }
          }
        }

        """
}

func seconds(_ duration: Duration) -> Double { CompareBench.seconds(duration) }

/// The process's peak resident memory so far, in MiB.
func peakMemoryMiB() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024  // kilobytes
    #else
    getrusage(RUSAGE_SELF, &usage)
    return Double(usage.ru_maxrss) / 1024 / 1024  // bytes
    #endif
}

// Overlapping type conditions first, so that the peak memory printed is this run's: a random
// schema of about 1,000 types with several interfaces per object, and 50 operations with nested
// and overlapping conditions (RandomGraphQL.Size.benchmark).
let overlapSample = RandomGraphQL.sample(seed: 1, size: .benchmark)
var overlapFiles: [GeneratedFile] = []
let overlap = try ContinuousClock().measure { overlapFiles = try PropertyCheck.generate(overlapSample) }
let overlapPeak = peakMemoryMiB()

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("codegen-bench-\(ProcessInfo.processInfo.processIdentifier)")
try? FileManager.default.removeItem(at: directory)
try FileManager.default.createDirectory(at: directory.appendingPathComponent("Operations"), withIntermediateDirectories: true)
defer { if !arguments.contains("--keep") { try? FileManager.default.removeItem(at: directory) } }
try schema().write(to: directory.appendingPathComponent("schema.graphqls"), atomically: true, encoding: .utf8)
for k in 0..<operationCount {
    try operation(k).write(to: directory.appendingPathComponent("Operations/Op\(k).graphql"), atomically: true, encoding: .utf8)
}
try """
    {
      "schemaNamespace": "BenchAPI",
      "input": { "operationSearchPaths": ["Operations/*.graphql"], "schemaSearchPaths": ["schema.graphqls"] },
      "output": {
        "schemaTypes": { "path": "Sources/BenchAPI", "moduleType": { "embeddedInTarget": { "name": "BenchAPI", "accessModifier": "public" } } },
        "operations": { "inSchemaModule": {} }
      }
    }
    """.write(to: directory.appendingPathComponent("apollo-codegen-config.json"), atomically: true, encoding: .utf8)
try """
    // swift-tools-version:6.0
    import PackageDescription
    let package = Package(
        name: "BenchAPI",
        dependencies: [.package(path: "\(apiCoreKit)")],
        targets: [.target(name: "BenchAPI", dependencies: [.product(name: "APICore", package: "APICoreKit")])]
    )
    """.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)

let clock = ContinuousClock()
var report: CodegenReport?
let generation = try clock.measure {
    report = try Codegen.run(configURL: directory.appendingPathComponent("apollo-codegen-config.json"))
}
guard let report else { exit(1) }

// Selected fields: every field written in the operations (each `name` or `name {`), counted from the text.
let selectedFields = (0..<operationCount).reduce(0) { total, k in
    total + operation(k).split(whereSeparator: { " \n{}".contains($0) }).filter { token in
        !token.hasPrefix("$") && !token.hasPrefix("query") && !token.hasPrefix("Op") && !token.contains(":") && !token.contains("(")
            && !token.contains(")") && token != "..." && token != "on" && !token.hasPrefix("T") && !token.hasPrefix("I")
    }.count
}

func swiftBuild(_ extra: [String]) throws -> Int32 {
    try CompareBench.run("/usr/bin/env", ["swift", "build", "--package-path", directory.path] + extra)
}

// Build APICore first, so that the timed build compiles the generated module only.
guard try swiftBuild(["--target", "APICore"]) == 0 else {
    FileHandle.standardError.write(Data("codegen-bench: APICore did not build\n".utf8))
    exit(1)
}
var status: Int32 = 0
let compile = try clock.measure { status = try swiftBuild(["--target", "BenchAPI"]) }
guard status == 0 else {
    FileHandle.standardError.write(Data("codegen-bench: the generated module did not compile (run with --keep to look at \(directory.path))\n".utf8))
    exit(1)
}

print("codegen-schema-types: \(objectCount + enumCount + inputCount + interfaceCount + unionCount + 1)")
print("codegen-operations: \(operationCount)")
print("codegen-seconds: \(String(format: "%.2f", seconds(generation)))")
print("generated-files: \(report.produced)")
print("generated-lines: \(report.generatedLines)")
print("selected-fields: \(selectedFields)")
print("lines-per-selected-field: \(String(format: "%.1f", Double(report.generatedLines) / Double(selectedFields)))")
print("compile-seconds: \(String(format: "%.2f", seconds(compile)))")
let overlapSize = RandomGraphQL.Size.benchmark
print("codegen-overlap-types: \(overlapSize.interfaces + overlapSize.objects + overlapSize.unions + overlapSize.enums + 1)")
print("codegen-overlap-operations: \(overlapSize.operations)")
print("codegen-overlap-structs: \(PropertyCheck.structCount(overlapFiles))")
print("codegen-overlap-seconds: \(String(format: "%.2f", seconds(overlap)))")
print("codegen-overlap-peak-memory-mib: \(String(format: "%.0f", overlapPeak))")
