// Shared by the fuzz executables of APICoreKit and Tools (Tools links this file), so both run
// inputs the same way: under libFuzzer when built with `-DFUZZING` (scripts/fuzz.sh), else by
// replaying the files they are given.
import Foundation

/// Runs one fuzz target, chosen by the first argument, over libFuzzer or over input files.
enum FuzzDriver {
    /// Runs `targets[CommandLine.arguments[1]]` and exits.
    static func main(targets: [String: @Sendable (Data) -> Void], usage: String) -> Never {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = targets[arguments[1]] else {
            let names = targets.keys.sorted().joined(separator: "|")
            FileHandle.standardError.write(Data("usage: \(arguments.first ?? "fuzz") <\(names)> [inputs or libFuzzer options…]\n\(usage)\n".utf8))
            exit(arguments.contains("--help") || arguments.contains("-h") ? 0 : 2)
        }
        selected = target
        #if FUZZING
        // libFuzzer reads its own options; it must not see the target's name.
        var rest = [arguments[0]] + arguments.dropFirst(2)
        var argc = Int32(rest.count)
        var cArguments: [UnsafeMutablePointer<CChar>?] = rest.map { strdup($0) } + [nil]
        rest.removeAll()
        let status = cArguments.withUnsafeMutableBufferPointer { buffer in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
                FuzzDriver.selected?(bytes.map { Data(bytes: $0, count: count) } ?? Data())
                return 0
            }
        }
        exit(status)
        #else
        var replayed = 0
        for path in arguments.dropFirst(2) {
            for file in inputFiles(at: URL(fileURLWithPath: path)) {
                guard let data = FileManager.default.contents(atPath: file.path) else {
                    FileHandle.standardError.write(Data("cannot read \(file.path)\n".utf8))
                    exit(1)
                }
                target(data)
                replayed += 1
            }
        }
        print("replayed \(replayed) inputs without a crash")
        exit(0)
        #endif
    }

    /// The target libFuzzer's C callback calls: set once, before the first input.
    nonisolated(unsafe) private static var selected: (@Sendable (Data) -> Void)?

    /// A file, or the regular files of a folder (not hidden), sorted.
    static func inputFiles(at url: URL) -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else { return [url] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { url.appendingPathComponent($0) }
    }
}

#if FUZZING
/// libFuzzer's entry point for programs that have their own `main` (`libclang_rt.fuzzer_no_main`).
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif
