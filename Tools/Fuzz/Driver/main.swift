import CodegenFuzzTargets
import Foundation

// `codegen-fuzz seed <folder>` writes the seeds to <folder>/codegen/.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "seed" {
    let directory = URL(fileURLWithPath: CommandLine.arguments[2]).appendingPathComponent("codegen")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let seeds = CodegenFuzzTarget.seeds
    for (index, seed) in seeds.enumerated() {
        try seed.write(to: directory.appendingPathComponent(String(format: "seed-%03d", index)))
    }
    print("codegen: \(seeds.count) seeds in \(directory.path)")
    exit(0)
}

FuzzDriver.main(
    targets: ["codegen": { @Sendable input in CodegenFuzzTarget.run(input) }],
    usage: """
        Runs the code generator's readers (operations, schemas, introspection results,
        configurations, the schema splitter) under a fuzzer. Built by scripts/fuzz.sh with
        libFuzzer and AddressSanitizer, it takes libFuzzer's options; a plain build replays the
        given files or folders and exits 0 when none crashes. `codegen-fuzz seed <folder>` writes
        the seeds under <folder>.
        """
)
