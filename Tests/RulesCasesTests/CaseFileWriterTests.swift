import Diagnostics
import RulesCases
import RulesLanguage
import Testing

/// What `CaseFileWriter` writes is the case-file format: the exact text witnesses carry, read
/// back by `CaseFileLoader` as the values it stands for.
@Suite("Case-file writing")
struct CaseFileWriterTests {
    @Test("the wrappers are written as witnesses show them")
    func wrapperTexts() {
        #expect(CaseFileWriter.float(2) == #"{"__type__": "float", "value": 2.0}"#)
        #expect(CaseFileWriter.timestamp(Timestamp(seconds: 1_767_225_600, nanos: 500_000_000))
            == #"{"__type__": "timestamp", "value": "2026-01-01T00:00:00.5Z"}"#)
        #expect(CaseFileWriter.duration(seconds: -3, nanos: -5) == #"{"__type__": "duration", "seconds": -3, "nanos": -5}"#)
        #expect(CaseFileWriter.bytes([0xFF, 0x00, 0x01]) == #"{"__type__": "bytes", "base64": "/wAB"}"#)
        #expect(CaseFileWriter.object([("a\"b", "1"), ("c", "null")]) == #"{"a\"b": 1, "c": null}"#)
        #expect(CaseFileWriter.file(rules: "x.rules", service: .storage, cases: ["{}", "{}"])
            == #"{"rules": "x.rules", "service": "storage", "cases": [{}, {}]}"#)
    }

    @Test("a written case file reads back as the case it describes")
    func roundTrip() throws {
        let time = Timestamp(seconds: 1_767_312_000, nanos: 250_000_000)
        let data = CaseFileWriter.object([
            ("ratio", CaseFileWriter.float(3)),
            ("at", CaseFileWriter.timestamp(time)),
            ("ttl", CaseFileWriter.duration(seconds: 90, nanos: 1)),
            ("raw", CaseFileWriter.bytes([1, 2, 3])),
            ("name", jsonString("a \"quoted\" name")),
        ])
        let testCase = CaseFileWriter.object([
            ("name", jsonString("witness")),
            ("path", jsonString("/databases/(default)/documents/users/alice")),
            ("method", jsonString("create")),
            ("auth", CaseFileWriter.object([("uid", jsonString("alice")), ("token", "{}")])),
            ("resource", "null"),
            ("requestResource", data),
            ("existing", CaseFileWriter.object([])),
            ("time", jsonString(time.description)),
            ("expect", jsonString("allow")),
        ])
        let file = try CaseFileLoader.decode(CaseFileWriter.file(rules: "../firestore.rules", service: .firestore, cases: [testCase]),
                                             path: "rules/tests/witness.json")
        #expect(file.rulesPath == "rules/firestore.rules")
        #expect(file.service == .firestore)
        let decoded = try #require(file.cases.first)
        #expect(decoded == RulesTestCase(
            name: "witness", path: "/databases/(default)/documents/users/alice", method: .create,
            auth: CaseAuth(uid: "alice"), resource: .null,
            requestResource: .map([
                "ratio": .float(3), "at": .timestamp(time), "ttl": .duration(seconds: 90, nanos: 1),
                "raw": .bytes([1, 2, 3]), "name": .string("a \"quoted\" name"),
            ]),
            time: time, expect: .allow))
    }
}
