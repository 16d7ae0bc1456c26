import PropertyBased
import RulesLanguage
import Testing

@Suite struct TimestampTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0, 0),
        ("2026-11-22T00:39:05Z", 1_795_307_945, 0),
        ("2024-02-29T23:59:59.5Z", 1_709_251_199, 500_000_000),
        ("2024-03-01T01:00:00+01:00", 1_709_251_200, 0),
        ("1969-12-31T23:59:59.999999999Z", -1, 999_999_999),
        ("0001-01-01T00:00:00Z", -62_135_596_800, 0),
    ])
    func parsesRFC3339(text: String, seconds: Int64, nanos: Int32) throws {
        let timestamp = try #require(Timestamp(rfc3339: text))
        #expect(timestamp == Timestamp(seconds: seconds, nanos: nanos))
    }

    @Test(arguments: ["2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01", "2024-01-01T00:00:00", "2024-01-01T24:00:00Z",
                      "2024-01-01T00:00:00.Z", "x024-01-01T00:00:00Z", "2024-01-01T00:00:00Zjunk"])
    func rejectsMalformedTimestamps(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test func formatsAsRFC3339() {
        #expect(Timestamp(seconds: 1_709_251_199, nanos: 500_000_000).description == "2024-02-29T23:59:59.5Z")
        #expect(Timestamp(seconds: -1, nanos: 0).description == "1969-12-31T23:59:59Z")
    }

    @Test func extremeTimestampsFormatWithoutTrapping() {
        for seconds in [Int64.min, .max, .min + 1, .max - 1] {
            #expect(!Timestamp(seconds: seconds, nanos: 999_999_999).description.isEmpty)
            #expect(!Value.duration(RulesDuration(seconds: seconds, nanos: -999_999_999)).description.isEmpty)
        }
    }

    @Test func formatThenParseIsIdentity() async {
        await propertyCheck(count: 300, input: Gen.int64(in: -62_135_596_800...253_402_300_799), Gen.int32(in: 0...999_999_999)) { seconds, nanos in
            let timestamp = Timestamp(seconds: seconds, nanos: nanos)
            #expect(Timestamp(rfc3339: timestamp.description) == timestamp, "\(timestamp.description)")
        }
    }
}

@Suite struct ValueEqualityTests {
    @Test func numericEqualityCrossesIntAndFloat() {
        #expect(Value.int(1) == .float(1.0))
        #expect(Value.list([.int(1)]) == .list([.float(1.0)]))
        #expect(!Value.int(1).isIdentical(to: .float(1.0)))
        #expect(Value.makeSet([.int(1), .float(1.0), .int(2)]) == .set([.int(1), .int(2)]))
        #expect(Value.map(["a": .int(1), "b": .null]) == .map(["b": .null, "a": .float(1)]))
        #expect(Value.float(.nan) != .float(.nan))
    }

    @Test func durationsNormalize() {
        #expect(RulesDuration(seconds: 1, nanos: -500_000_000) == RulesDuration(seconds: 0, nanos: 500_000_000))
        #expect(RulesDuration(seconds: -1, nanos: 500_000_000) == RulesDuration(seconds: 0, nanos: -500_000_000))
        #expect(Timestamp(seconds: 0, nanos: -1) == Timestamp(seconds: -1, nanos: 999_999_999))
    }

    @Test func pathsSplitOnSlashes() {
        #expect(PathValue("/databases/(default)/documents/a").segments == ["databases", "(default)", "documents", "a"])
        #expect(PathValue("a//b/").segments == ["a", "b"])
        #expect(PathValue("/é/漢").description == "/é/漢")
    }
}
