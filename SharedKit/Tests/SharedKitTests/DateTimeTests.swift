import APICore
import Foundation
import SharedKit
import Testing

@Suite("DateTime")
struct DateTimeTests {
    @Test("reads ISO 8601 with and without fractional seconds, in any zone", arguments: [
        ("2026-11-22T03:00:00Z", 1_795_316_400.0),
        ("2026-11-22T03:00:00.250Z", 1_795_316_400.25),
        ("2026-11-22T04:00:00+01:00", 1_795_316_400.0),
        ("2026-11-22T04:00:00.5+01:00", 1_795_316_400.5),
    ])
    func accepts(text: String, seconds: Double) throws {
        let value = try DateTime(iso8601: text)
        #expect(abs(value.date.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test("rejects anything else and quotes it", arguments: [
        "2026-11-22", "2026-11-22T03:00:00", "1795316400", "22/11/2026 03:00", "", "2026-13-40T03:00:00Z",
    ])
    func rejects(text: String) {
        #expect(throws: DateTimeError(text: text)) { try DateTime(iso8601: text) }
        #expect(DateTimeError(text: text).description.contains("'\(text)'"))
    }

    @Test("writes UTC, with milliseconds only when there are some, and reads back what it writes")
    func roundTrip() throws {
        let whole = DateTime(Date(timeIntervalSince1970: 1_795_316_400))
        #expect(whole.iso8601 == "2026-11-22T03:00:00Z")
        let fractional = DateTime(Date(timeIntervalSince1970: 1_795_316_400.25))
        #expect(fractional.iso8601 == "2026-11-22T03:00:00.250Z")
        #expect(try DateTime(iso8601: fractional.iso8601) == fractional)
    }

    @Test("works as a GraphQL custom scalar: read from and written as its JSON string; a number is refused with the text it got")
    func customScalar() throws {
        #expect(try DateTime(jsonValue: "2026-11-22T03:00:00Z").iso8601 == "2026-11-22T03:00:00Z")
        #expect(throws: DateTimeError(text: "1795316400")) { try DateTime(jsonValue: 1_795_316_400) }
        #expect(DateTime(Date(timeIntervalSince1970: 0)).jsonValue == "1970-01-01T00:00:00Z")
    }
}
