@_spi(Engine) import APICore
import APICoreSupport
@testable import APICoreSQLite
import APICoreTesting
import Foundation
import GRDB
import Testing

/// Real processes on one cache file, as an app and its extensions are: `apicore-cache-peer`s
/// writing the same records at once, killed (`SIGKILL`) at random points, and replaying one
/// offline queue against a server on 127.0.0.1 that counts what it is sent.
@Suite("Processes writing, killed and replaying on one cache file")
struct SharedFileProcessTests {
    typealias Peer = ProcessTests.Peer

    /// A write a peer acknowledged: saved in the file before it said so.
    struct Ack {
        let writer: String
        let number: Int
        /// The time its store gave it, as the file keeps it (`received_at`).
        let received: Double
        let keys: [String]
    }

    /// The writes `peer`, named `name`, acknowledged so far (`ack <n> <received-bits> <key>…`).
    static func acks(of peer: Peer, named name: String) -> [Ack] {
        peer.received.lines.withLock { $0 }.compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count >= 4, parts[0] == "ack", let number = Int(parts[1]), let bits = UInt64(parts[2]) else { return nil }
            return Ack(writer: name, number: number, received: Double(bitPattern: bits), keys: parts[3...].map(String.init))
        }
    }

    /// The number of the last write `peer` acknowledged; 0 before any.
    static func lastAck(of peer: Peer) -> Int { acks(of: peer, named: "").last?.number ?? 0 }

    /// The file is sound (SQLite's integrity check), and each record is as its last writer left
    /// it: no write acknowledged is lost or beaten by an older one, so the record holds the write
    /// the file received last of all those acknowledged; or a later one of a process in `killed`
    /// (saved, but killed before it said so).
    static func expectSound(_ file: URL, acks: [Ack], killed: Set<String> = [], keys: Int) throws {
        var configuration = Configuration()
        configuration.readonly = true
        let integrity = try DatabaseQueue(path: file.path, configuration: configuration).read { db in
            try String.fetchOne(db, sql: "PRAGMA integrity_check")
        }
        #expect(integrity == "ok")
        let records = try SQLiteRecordStore(url: file, readOnly: true).load((0..<keys).map { "Note:\($0)" })
        for key in (0..<keys).map({ "Note:\($0)" }) {
            let written = acks.filter { $0.keys.contains(key) }
            guard let last = written.max(by: { $0.received < $1.received }) else { continue }
            guard let record = records[key], let writer = record.fields["writer"]?.stringValue, let number = record.fields["n"]?.intValue else {
                Issue.record("\(key): \(last.writer)'s write \(last.number) was acknowledged, and the file has no such record")
                continue
            }
            let received = record.receivedAt.timeIntervalSince1970
            #expect(received >= last.received, "\(key): \(writer)'s write \(number) holds over \(last.writer)'s later write \(last.number)")
            if let ack = written.first(where: { $0.writer == writer && $0.number == number }) {
                #expect(ack.received == received, "\(key): \(writer)'s write \(number) holds with another time")
            } else {
                let lastOfWriter = acks.filter { $0.writer == writer }.map(\.number).max() ?? 0
                #expect(killed.contains(writer) && number > lastOfWriter, "\(key) holds \(writer)'s write \(number), which was never acknowledged")
            }
        }
    }

    @Test("two processes write the same records in a loop for a minute (APICORE_CHURN_SECONDS): the file ends sound, each record as its last writer left it")
    func writeTogether() async throws {
        let seconds = Double(ProcessInfo.processInfo.environment["APICORE_CHURN_SECONDS"] ?? "") ?? 60
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        // Both open the new file at once, as an app and its widget may at a first launch.
        let peers = try ["a", "b"].map { try Peer(["churn", file.path, $0, "8", "\(seconds)"]) }
        for peer in peers {
            #expect(await peer.ended(within: .seconds(seconds * 5 + 60)), "a writer did not end")
            #expect(peer.finish() == 0)
        }
        let (a, b) = (Self.acks(of: peers[0], named: "a"), Self.acks(of: peers[1], named: "b"))
        #expect(!a.isEmpty && !b.isEmpty)
        try Self.expectSound(file, acks: a + b, keys: 8)
    }

    @Test("kill -9 of either process at a random point, 20 rounds on one file: nothing acknowledged is lost, and the other goes on writing")
    func killedAtRandom() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        var acks: [Ack] = []
        var killed: Set<String> = []
        for round in 0..<20 {
            let names = ["a\(round)", "b\(round)"]
            let peers = try names.map { try Peer(["churn", file.path, $0, "8", "600"]) }
            let victim = round % 2
            let point = Int.random(in: 1...40)
            let reached = await peers[victim].line { $0.hasPrefix("ack \(point) ") } != nil
            peers[victim].killAbruptly()
            killed.insert(names[victim])
            let survivor = peers[1 - victim]
            let goesOn = Self.lastAck(of: survivor) + 3
            let wentOn = await survivor.line { $0.hasPrefix("ack \(goesOn) ") } != nil
            #expect(survivor.finish() == 0)
            #expect(reached, "round \(round): \(names[victim]) did not reach its write \(point)")
            #expect(wentOn, "round \(round): \(names[1 - victim]) stopped writing after \(names[victim]) was killed at its write \(point)")
            acks += Self.acks(of: peers[0], named: names[0]) + Self.acks(of: peers[1], named: names[1])
            try Self.expectSound(file, acks: acks, killed: killed, keys: 8)
            guard reached, wentOn else { return }
        }
    }

    @Test("two processes replaying one offline queue at once, 20 runs: the server is sent each mutation once, in the order it was queued")
    func replayedOnce() async throws {
        let server = try CountingServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        for run in 0..<20 {
            let file = directory.url.appendingPathComponent("cache-\(run).sqlite")
            let queued = (0..<10).map { "run\(run)-m\($0)" }
            do {
                let store = try SQLiteRecordStore(url: file)
                for (index, id) in queued.enumerated() {
                    try store.enqueue(StoredMutation(
                        id: id, operationName: "Rename", document: "mutation Rename($id: ID!) { rename(id: $id) }", variables: ["id": .string("\(index)")],
                        optimistic: nil, enqueuedAt: Date()))
                }
            }
            server.sent.keys.withLock { $0 = [] }
            let peers = try (0..<2).map { _ in try Peer(["replay", file.path, server.url.absoluteString]) }
            for peer in peers {
                #expect(await peer.line { $0 == "replayed" } != nil, "run \(run): a replay did not end")
                #expect(peer.finish() == 0)
            }
            #expect(server.sent.keys.withLock { $0 } == queued, "run \(run)")
            #expect(try SQLiteRecordStore(url: file, readOnly: true).loadQueue().isEmpty, "run \(run)")
        }
    }
}
