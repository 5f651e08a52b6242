@_spi(Tools) import APICore
import APICoreSupport
import Foundation
import GRDB

// The offline queue's mutations, in the record store's file (its third table), in order.
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
}
