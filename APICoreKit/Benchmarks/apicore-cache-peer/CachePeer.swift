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
//   apicore-cache-peer churn <file> <name> <keys> <seconds>
//       writes records `Note:0` … `Note:<keys - 1>` in a loop, one or two at a time at random, each
//       with its writer's name and the write's number (`writer`, `n`), for <seconds> or until its
//       standard input closes; after each write is saved it prints `ack <n> <received> <key>…`
//       (received: the bits of the time the store gave the write, seconds since 1970)
//   apicore-cache-peer replay <file> <url>
//       replays the file's offline queue against the GraphQL server at <url>, then prints `replayed`
import APICore
import APICoreLive
import APICoreSQLite
import APICoreSupport
import Foundation
import Logging
import Synchronization

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
        case ("churn", 5):
            guard let keys = Int(arguments[3]), let seconds = Double(arguments[4]), keys > 0, seconds > 0 else { usage() }
            await churn(file: URL(fileURLWithPath: arguments[1]), name: arguments[2], keys: keys, seconds: seconds)
        case ("replay", 3):
            guard let url = URL(string: arguments[2]) else { usage() }
            await replay(file: URL(fileURLWithPath: arguments[1]), url: url)
        case ("--help", _), ("-h", _):
            print(help)
        default:
            usage()
        }
    }

    static let help = """
        usage: apicore-cache-peer write <file> <key> <count> <interval-ms> | watch <file> <key>
                                  | churn <file> <name> <keys> <seconds> | replay <file> <url>
          write   writes the record <key> <count> times, <interval-ms> apart, with its number (n) and the time (sentAt)
          watch   prints `ready`, then the record's n each time another process changes it, until standard input closes
          churn   writes Note:0 … Note:<keys - 1>, one or two at a time, for <seconds> or until standard input closes,
                  printing `ack <n> <received-bits> <key>…` once each write is saved
          replay  replays the file's offline queue against the GraphQL server at <url>, then prints `replayed`
        """

    /// A line on standard output, written at once.
    static func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

    static func usage() -> Never {
        FileHandle.standardError.write(Data((help + "\n").utf8))
        exit(2)
    }

    static func store(_ file: URL, now: @escaping @Sendable () -> Date = Date.init) -> NormalizedStore {
        guard let persistent = SQLiteCache.storage(at: file).persistent else {
            FileHandle.standardError.write(Data("apicore-cache-peer: \(file.path) cannot hold the cache\n".utf8))
            exit(1)
        }
        return NormalizedStore(persistent: persistent, logger: Logger(label: "apicore-cache-peer"), now: now)
    }

    /// Until standard input closes (the parent ends it, or is gone).
    static func waitForInputToClose() {
        while FileHandle.standardInput.availableData.count > 0 {}
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
        waitForInputToClose()
    }

    static func churn(file: URL, name: String, keys: Int, seconds: Double) async {
        // The time the store gives each write: it writes only, so its one use of the clock is the write's.
        let given = Mutex(Date.distantPast)
        let store = store(file) {
            let now = Date()
            given.withLock { $0 = now }
            return now
        }
        let writer = CacheWriter(store: store)
        let inputClosed = Atomic(false)
        Thread.detachNewThread {
            waitForInputToClose()
            inputClosed.store(true, ordering: .relaxed)
        }
        let end = ContinuousClock.now + .seconds(seconds)
        var number = 0
        while ContinuousClock.now < end, !inputClosed.load(ordering: .relaxed) {
            number += 1
            let chosen = Set((0..<Int.random(in: 1...2)).map { _ in "Note:\(Int.random(in: 0..<keys))" }).sorted()
            let fields: JSONObject = ["__typename": "Note", "writer": .string(name), "n": .int(number)]
            await writer.write(records: Dictionary(uniqueKeysWithValues: chosen.map { ($0, fields) }))
            let received = given.withLock { $0 }
            await store.persisted()
            say("ack \(number) \(received.timeIntervalSince1970.bitPattern) \(chosen.joined(separator: " "))")
        }
    }

    static func replay(file: URL, url: URL) async {
        let client = APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: url, graphQLURL: url, cache: CacheConfiguration(storage: SQLiteCache.storage(at: file)), retryPolicy: nil))
        await client.offlineQueue.replay()
        say("replayed")
    }
}
