import APICore
import APICoreSupport
import Foundation

/// The records of several checked data joined in order, for one write (a subscription's events
/// that arrived together): the store ends as writing them one by one would leave it, each field
/// as the last of them wrote it, its value and its expiry (a field written without one loses it).
/// A record still on its tape stays there while a later one of the same object and selection set
/// replaces it whole: of an object every event carries, only the last tree is made.
struct JoinedRecords {
    private var records: [String: JSONObject] = [:]
    private var expires: [String: [String: Date]] = [:]
    private var onTape: [String: TapeRecord] = [:]

    /// Joins the records of `checked` over those joined so far.
    mutating func join<Data>(_ checked: CacheWriter.Checked<Data>) {
        for (key, fields) in checked.recordTrees { join(fields, expiry: checked.expires[key], at: key) }
        for (key, record) in checked.onTape {
            if records[key] == nil, record.replaces(onTape[key]) {
                onTape[key] = record
            } else {
                join(record.fields, expiry: nil, at: key)
            }
        }
    }

    /// The joined records and their expiry.
    consuming func finished() -> (records: [String: JSONObject], expires: [String: [String: Date]]) {
        for (key, record) in onTape { records[key] = record.fields }
        return (records, expires)
    }

    private mutating func join(_ fields: JSONObject, expiry: [String: Date]?, at key: String) {
        if let kept = onTape.removeValue(forKey: key) { records[key] = kept.fields }
        guard records[key] != nil else {
            records[key] = fields
            expires[key] = expiry
            return
        }
        records[key]!.merge(fields) { _, later in later }
        // A field written again keeps the later write's expiry, or none.
        if let expiry {
            for name in fields.keys { expires[key, default: [:]][name] = expiry[name] }
        } else if expires[key] != nil {
            for name in fields.keys { expires[key]![name] = nil }
        }
    }
}
