// CorpusGeneration: deterministic, labelled test corpora for the field validators and the rules.
//
// Owns: seeded generators that start from a valid value and apply one named mutation, so every
// record carries its label (the mutation and the exact violation codes it must produce); the
// JSONL and plain-lines renderings; case files of labelled rules requests.
// Does not own: validation itself. Generators never call a validator to decide a label — the
// label comes from construction, and the tests compare it with what the validators report.
import Diagnostics

/// One generated value with its label.
public struct CorpusRecord: Sendable, Hashable {
    /// The value to validate (may hold any Unicode, including controls: it is synthetic data).
    public var value: String
    /// The mutation applied to a valid value (`valid` when none), e.g. `double-period`.
    public var mutation: String
    /// Where and what the mutation did, e.g. `U+200B at 4`; empty when there is nothing to add.
    public var detail: String
    /// The exact violation codes the validator must report, in pack order; empty for `valid`.
    public var expect: [String]

    /// Creates a record.
    public init(value: String, mutation: String, detail: String = "", expect: [String]) {
        self.value = value
        self.mutation = mutation
        self.detail = detail
        self.expect = expect
    }

    /// The record as one JSON line: `{"value", "mutation", "detail"?, "expect": [codes]}`.
    public var jsonLine: String {
        var line = "{\"value\": \(jsonString(value)), \"mutation\": \(jsonString(mutation))"
        if !detail.isEmpty { line += ", \"detail\": \(jsonString(detail))" }
        return line + ", \"expect\": [" + expect.map(jsonString).joined(separator: ", ") + "]}"
    }

    /// Whether the value fits the batch CLI's plain-lines input: no line break and no NUL
    /// (the reader treats those as record separators or damage).
    public var fitsPlainLine: Bool {
        !value.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0 == "\0" }
    }
}

/// The corpora `validate corpus generate` can produce.
public enum CorpusKind: String, Sendable, CaseIterable {
    case displayNames = "display-names"
    case emails
    case passwords
    case rulesRequests = "rules-requests"
}

/// A generator of labelled field values.
public protocol FieldCorpus {
    /// The next record; the sequence depends only on the seed.
    mutating func next() -> CorpusRecord
}

extension FieldCorpus {
    /// The next `count` records.
    public mutating func records(_ count: Int) -> [CorpusRecord] {
        (0..<max(0, count)).map { _ in next() }
    }
}
