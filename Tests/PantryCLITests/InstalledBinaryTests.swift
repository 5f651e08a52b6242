import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pantry` as one binary: copied alone into an empty folder, it needs nothing beside it and
/// nothing from the build folder or the repository (the dev server's schema is compiled in).
@Suite("pantry installed alone")
struct InstalledBinaryTests {
    @Test("copied alone into an empty folder, run by another user with the repository and build folder out of reach, the demo runs to the end")
    func demoFromACopy() async throws {
        let installed = try InstalledPantry()
        let scratch = try Scratch()
        _ = chmod(scratch.url.path, 0o777)
        // The build folder is hidden too when it is not inside the repository (a --scratch-path elsewhere).
        let build = pantryExecutable.deletingLastPathComponent().standardizedFileURL
        let root = repositoryRoot.standardizedFileURL
        let hidden = build.path.hasPrefix(root.path + "/") ? [root] : [root, build]
        let demo = try PantryProcess(["demo", "--cache", scratch.cache], executable: installed.executable, user: nobody, hiding: hidden)
        let code = await demo.exitCode(timeout: .seconds(300))
        #expect(code == 0, "\(demo.transcript)")
        #expect(!demo.errors.contains("Fatal error") && !demo.errors.contains("resource bundle"), "\(demo.transcript)")
        for expected in ["logged in as alice@example.com [server", "embedded server stopped", "the queue replayed: the server took the rename"] {
            #expect(demo.output.contains(expected), "missing '\(expected)' in:\n\(demo.transcript)")
        }
        #expect(demo.problemLines.isEmpty, "\(demo.transcript)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: installed.folder.path) == ["pantry"], "nothing was looked up or written beside it")
    }
}
