@_spi(Tools) import APICore
import APICoreSupport
import Foundation
import GRDB

// The offline queue's mutations, in the record store's file, in order, and the claim of the
// process that sends them.
extension SQLiteRecordStore {
    func loadQueue() throws -> [StoredMutation] {
        try pool.read { db in
            var result: [StoredMutation] = []
            let rows = try Row.fetchCursor(
                db, sql: "SELECT id, operation_name, document, variables, optimistic, enqueued_at, failure FROM apicore_mutation_queue ORDER BY position")
            while let row = try rows.next() {
                // A row that cannot be read (another program wrote it) is skipped, never a crash.
                guard let id = try? row.decode(String.self, atIndex: 0), let name = try? row.decode(String.self, atIndex: 1),
                    let document = try? row.decode(String.self, atIndex: 2), let variables = try? row.decode(Data.self, atIndex: 3),
                    case .object(let variablesObject)? = try? JSONParser.parse(variables), let enqueued = try? row.decode(Double.self, atIndex: 5)
                else { continue }
                let optimistic = ((try? row.decode(Data?.self, atIndex: 4)) ?? nil).flatMap { data -> [String: JSONObject]? in
                    guard case .object(let records)? = try? JSONParser.parse(data) else { return nil }
                    return records.compactMapValues(\.objectValue)
                }
                let failure = ((try? row.decode(Data?.self, atIndex: 6)) ?? nil).flatMap { (try? JSONParser.parse($0))?.objectValue }
                result.append(StoredMutation(
                    id: id, operationName: name, document: document, variables: variablesObject, optimistic: optimistic,
                    enqueuedAt: Date(timeIntervalSince1970: enqueued), failure: failure))
            }
            return result
        }
    }

    func enqueue(_ mutation: StoredMutation) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO apicore_mutation_queue (id, operation_name, document, variables, optimistic, enqueued_at, failure)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    mutation.id, mutation.operationName, mutation.document, JSONSerializer.data(.object(mutation.variables)),
                    mutation.optimistic.map { JSONSerializer.data(.object($0.mapValues(JSONValue.object))) },
                    mutation.enqueuedAt.timeIntervalSince1970, mutation.failure.map { JSONSerializer.data(.object($0)) },
                ])
        }
    }

    func setFailure(_ failure: JSONObject, of id: String) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE apicore_mutation_queue SET failure = ?, optimistic = NULL WHERE id = ?",
                arguments: [JSONSerializer.data(.object(failure)), id])
        }
    }

    func removeQueued(_ id: String) throws {
        try pool.write { db in try db.execute(sql: "DELETE FROM apicore_mutation_queue WHERE id = ?", arguments: [id]) }
    }

    // One claim at a time (apicore_queue_claim, SQLiteSharedFile.swift): its holder and expiry.
    func claimQueue(for holder: String, until: Date) throws -> Bool {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO apicore_queue_claim (only, holder, until) VALUES (1, ?, ?)
                    ON CONFLICT (only) DO UPDATE SET holder = excluded.holder, until = excluded.until
                    WHERE apicore_queue_claim.holder = excluded.holder OR apicore_queue_claim.until < ?
                    """,
                arguments: [holder, until.timeIntervalSince1970, Date().timeIntervalSince1970])
            return db.changesCount > 0
        }
    }

    func releaseQueue(for holder: String) throws {
        try pool.write { db in try db.execute(sql: "DELETE FROM apicore_queue_claim WHERE holder = ?", arguments: [holder]) }
    }
}
