import Patterns

/// Pattern compilation and matching on arbitrary bytes.
///
/// Input layout: the first byte picks the split point; the bytes before it are the pattern source
/// (decoded with replacement), the bytes after it the raw subject. Compile and match errors are the
/// expected outcome for hostile patterns; what must hold is that a whole-string match happens only
/// on valid UTF-8, implies a search match, and that match ranges lie inside the subject.
public enum PatternHarness {
    static let limits = MatchLimits(matchLimit: 10_000, depthLimit: 1_000, heapLimitKibibytes: 1_024)

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let first = input.first else { return [] }
        let split = 1 + Int(first) % input.count
        let source = String(decoding: input[1..<split], as: UTF8.self)
        let subject = UnsafeRawBufferPointer(rebasing: input[split...])
        guard let whole = try? Pattern(source, anchoring: .wholeString, limits: limits),
              let search = try? Pattern(source, anchoring: .search, limits: limits)
        else { return [] }
        var findings: [FuzzFinding] = []
        do {
            if try whole.matches(utf8: subject) {
                if !isValidUTF8(subject) { findings.append(FuzzFinding("whole-string match on invalid UTF-8")) }
                if try search.firstMatch(utf8: subject) == nil {
                    findings.append(FuzzFinding("whole-string match but no search match"))
                }
            }
            if let range = try search.firstMatch(utf8: subject), range.upperBound > subject.count {
                findings.append(FuzzFinding("match range \(range) outside a \(subject.count)-byte subject"))
            }
        } catch {
            // A typed PatternError (limits, resources) is a legitimate answer, never a match.
        }
        return findings
    }
}
