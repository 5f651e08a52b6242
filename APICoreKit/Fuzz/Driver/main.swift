import FuzzTargets
import Foundation

// `apicore-fuzz seed <folder>` writes every target's seeds to <folder>/<target>/.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "seed" {
    let folder = URL(fileURLWithPath: CommandLine.arguments[2])
    for target in FuzzTarget.allCases {
        let directory = folder.appendingPathComponent(target.rawValue)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (index, seed) in target.seeds.enumerated() {
            try seed.write(to: directory.appendingPathComponent(String(format: "seed-%03d", index)))
        }
        print("\(target.rawValue): \(target.seeds.count) seeds in \(directory.path)")
    }
    exit(0)
}

FuzzDriver.main(
    targets: Dictionary(uniqueKeysWithValues: FuzzTarget.allCases.map { target in (target.rawValue, { @Sendable input in target.run(input) }) }),
    usage: """
        Runs one of APICoreKit's fuzz targets. Built by scripts/fuzz.sh with libFuzzer and
        AddressSanitizer, it takes libFuzzer's options (a corpus folder, -max_total_time=…); a
        plain build replays the given files or folders and exits 0 when none crashes.
        `apicore-fuzz seed <folder>` writes each target's generated seeds under <folder>.
        """
)
