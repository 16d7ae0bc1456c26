/// A Swift rule that reads nothing of its input but one subject (and whether the field is
/// ASCII-only), so an engine may run it on that subject's bytes alone: the email engine runs it
/// per address, or once per domain when the subject is derived from the domain alone.
/// A class, so that calling one through `any SubjectRule` copies one reference.
protocol SubjectRule: FieldRule, AnyObject {
    /// The subject it reads (`address`, `domain`, …).
    var subject: String { get }

    /// Checks the subject, given as UTF-8: nil when it passes, else the message parameters.
    func check(subject bytes: UnsafeBufferPointer<UInt8>, asciiOnly: Bool) -> [String: String]?

    /// A pattern (PCRE2 syntax, UTF mode, searched anywhere in the subject) that matches every
    /// subject the rule rejects, or nil: an engine compiles it into the subject's automata and
    /// runs ``check(subject:asciiOnly:)`` only where it matches (`SubjectRulePrefilterTests`
    /// checks each against its rule).
    var prefilter: String? { get }
}

extension SubjectRule {
    var prefilter: String? { nil }

    func check(_ input: FieldInput) -> [String: String]? {
        guard var value = input.subject(subject) else { return nil }
        return value.withUTF8 { check(subject: $0, asciiOnly: input.asciiOnly) }
    }
}

/// A ``SubjectRule`` whose check needs the subject as a string (list lookups, IDNA).
protocol StringSubjectRule: SubjectRule {
    /// Checks the subject: nil when it passes, else the message parameters.
    func check(subject: String, asciiOnly: Bool) -> [String: String]?
}

extension StringSubjectRule {
    func check(subject bytes: UnsafeBufferPointer<UInt8>, asciiOnly: Bool) -> [String: String]? {
        check(subject: String(decoding: bytes, as: UTF8.self), asciiOnly: asciiOnly)
    }

    func check(_ input: FieldInput) -> [String: String]? {
        input.subject(subject).flatMap { check(subject: $0, asciiOnly: input.asciiOnly) }
    }
}
