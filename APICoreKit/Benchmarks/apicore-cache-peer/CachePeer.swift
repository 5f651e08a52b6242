// apicore-cache-peer: a second process on one SQLite cache file, as an app's extension is, for the
// tests that run real processes (APICoreStoreTests/ProcessTests.swift) and `scripts/bench.sh
// processes`. It opens the file as a client does (its own store, memory and connections).
//
//   apicore-cache-peer write <file> <key> <count> <interval-ms>
//       writes the record <key> <count> times, `interval-ms` apart, each with its number (`n`) and
//       the time it was written (`sentAt`, seconds since 1970), each saved before the next
//   apicore-cache-peer watch <file> <key>
//       prints `ready` once it watches <key>, then the record's `n` each time another process
//       changes it, until its standard input closes
import APICoreLive
import APICoreSQLite
import APICoreSupport
import Foundation
import Logging

@main
struct CachePeer {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch (arguments.first, arguments.count) {
        case ("write", 5):
            guard let count = Int(arguments[3]), let interval = Int(arguments[4]), count > 0, interval >= 0 else { usage() }
            await write(file: URL(fileURLWithPath: arguments[1]), key: arguments[2], count: count, interval: .milliseconds(interval))
        case ("watch", 3):
            await watch(file: URL(fileURLWithPath: arguments[1]), key: arguments[2])
        case ("--help", _), ("-h", _):
            print(help)
        default:
            usage()
        }
    }

    static let help = """
        usage: apicore-cache-peer write <file> <key> <count> <interval-ms> | watch <file> <key>
          write  writes the record <key> <count> times, <interval-ms> apart, with its number (n) and the time (sentAt)
          watch  prints `ready`, then the record's n each time another process changes it, until standard input closes
        """

    /// A line on standard output, written at once.
    static func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

    static func usage() -> Never {
        FileHandle.standardError.write(Data((help + "\n").utf8))
        exit(2)
    }

    static func store(_ file: URL) -> NormalizedStore {
        guard let persistent = SQLiteCache.storage(at: file).persistent else {
            FileHandle.standardError.write(Data("apicore-cache-peer: \(file.path) cannot hold the cache\n".utf8))
            exit(1)
        }
        return NormalizedStore(persistent: persistent, logger: Logger(label: "apicore-cache-peer"))
    }

    static func write(file: URL, key: String, count: Int, interval: Duration) async {
        let store = store(file)
        let writer = CacheWriter(store: store)
        for number in 1...count {
            await writer.write(records: [key: ["__typename": "Note", "n": .int(number), "sentAt": .double(Date().timeIntervalSince1970)]])
            await store.persisted()
            if number < count { try? await Task.sleep(for: interval) }
        }
    }

    static func watch(file: URL, key: String) async {
        let store = store(file)
        _ = await store.record(key)
        _ = await store.addWatcher(dependencies: [key]) { store in
            if let number = store.record(key)?.fields["n"]?.intValue { say("\(number)") }
            return [key]
        }
        say("ready")
        // Until standard input closes (the parent ends it, or is gone).
        while FileHandle.standardInput.availableData.count > 0 {}
    }
}
