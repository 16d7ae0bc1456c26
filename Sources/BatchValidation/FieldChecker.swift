#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FieldValidation

/// Context a password check needs: who the account is and which app it is for (the
/// validators' own ``PasswordContext``, so checkers pass it on as it is).
public typealias RecordContext = PasswordContext

extension RecordContext {
    /// This context with every missing part taken from `fallback`.
    func filled(from fallback: RecordContext) -> RecordContext {
        RecordContext(username: username ?? fallback.username, email: email ?? fallback.email,
                      appName: appName ?? fallback.appName, userInputs: userInputs.isEmpty ? fallback.userInputs : userInputs)
    }
}

/// One rule a field broke: the validators' own ``Violation``, so checkers hand their results
/// to the engine without copying them.
public typealias FieldViolation = Violation

/// A rule as ``FieldCheckerShortcuts/violatedRules(_:)`` names it by index: the validators' own type.
package typealias IndexedRule = FieldValidation.IndexedRule

/// What ``FieldCheckerShortcuts/scanLines(_:skippingValid:_:)`` says about a line: the
/// validators' own type.
package typealias LineVerdict = FieldValidation.LineVerdict

/// What a ``FieldChecker`` says about one field.
public struct FieldOutcome: Sendable, Hashable {
    /// Every rule the field broke; empty when valid.
    public var violations: [FieldViolation]
    /// The value to store, when the checker has one to show (never for passwords).
    public var normalized: String?
    /// The canonical uniqueness key (display names), if any.
    public var key: String?
    /// The password's strength, when the checker estimates it (`validate password --strength`).
    public var strength: StrengthReport? {
        get { extras?.strength }
        set { extras = Extras.of(strength: newValue, mailboxKey: mailboxKey) }
    }
    /// Emails: the valid address's mailbox key (`ValidationResult.mailboxKey`: one key per
    /// mailbox, `Jane.Doe+promo@gmail.com` and `janedoe@googlemail.com` share
    /// `janedoe@gmail.com`), when the checker was asked for it (JSONL output); ``normalized``
    /// stays as typed.
    public var mailboxKey: String? {
        get { extras?.mailboxKey }
        set { extras = Extras.of(strength: strength, mailboxKey: newValue) }
    }
    /// Boxed: the outcome of every record is copied a few times, and most have neither a
    /// strength estimate nor a mailbox key (one reference instead of 8 + 16 bytes inline).
    private var extras: Extras?

    /// True when no rule was broken.
    public var isValid: Bool { violations.isEmpty }

    /// Creates an outcome.
    public init(violations: [FieldViolation] = [], normalized: String? = nil, key: String? = nil, strength: StrengthReport? = nil,
                mailboxKey: String? = nil) {
        self.violations = violations
        self.normalized = normalized
        self.key = key
        self.extras = Extras.of(strength: strength, mailboxKey: mailboxKey)
    }
}

/// The rarer parts of an outcome behind one immutable reference (``FieldOutcome/strength``,
/// ``FieldOutcome/mailboxKey``).
private final class Extras: Sendable, Hashable {
    let strength: StrengthReport?
    let mailboxKey: String?

    private init(strength: StrengthReport?, mailboxKey: String?) {
        self.strength = strength
        self.mailboxKey = mailboxKey
    }

    /// Nil, with nothing allocated, when both are nil.
    static func of(strength: StrengthReport?, mailboxKey: String?) -> Extras? {
        strength == nil && mailboxKey == nil ? nil : Extras(strength: strength, mailboxKey: mailboxKey)
    }

    static func == (lhs: Extras, rhs: Extras) -> Bool { lhs.strength == rhs.strength && lhs.mailboxKey == rhs.mailboxKey }

    func hash(into hasher: inout Hasher) {
        hasher.combine(strength)
        hasher.combine(mailboxKey)
    }
}

/// A password's strength as a record shows it: `"strength": {"score", "guessesLog10",
/// "warning": {"code", "message"} | null, "suggestions": [{"code", "message"}]}`. Holds no part of
/// the password.
public struct StrengthReport: Sendable, Hashable {
    /// One feedback line: a stable `PW2xx` code and its message.
    public struct Feedback: Sendable, Hashable {
        public var code: String
        public var message: String

        /// Creates a feedback line.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// 0 (too guessable) to 4 (very unguessable).
    public var score: Int
    /// `log10` of the estimated guesses.
    public var guessesLog10: Double
    /// Why the password is weak, or nil.
    public var warning: Feedback?
    /// What to do instead.
    public var suggestions: [Feedback]

    /// Creates a report.
    public init(score: Int, guessesLog10: Double, warning: Feedback?, suggestions: [Feedback]) {
        self.score = score
        self.guessesLog10 = guessesLog10
        self.warning = warning
        self.suggestions = suggestions
    }
}

extension FieldOutcome {
    /// The outcome of a value ``FieldChecker/isValidAsIs(_:)`` accepted: valid, normalized to
    /// itself, with its ASCII letters lowercased as the key.
    init(validAsIs value: UnsafeRawBufferPointer) {
        self.init(normalized: String(decoding: value, as: UTF8.self),
                  key: String(decoding: value.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }, as: UTF8.self))
    }
}

/// How much of a ``FieldOutcome`` the output needs.
public enum OutcomeDetail: Sendable, Hashable {
    /// Violations plus `normalized` and `key` (record-by-record output).
    case full
    /// Violations only (summaries): checkers may skip computing `normalized` and `key`.
    case violationsOnly
}

/// The validation plugged into the engine: takes one field, returns its outcome.
///
/// Called concurrently from several threads, so implementations must be thread-safe.
public protocol FieldChecker: Sendable {
    /// Checks one field value.
    ///
    /// - Parameters:
    ///   - value: the field's bytes; the engine guarantees they are non-empty, well-formed
    ///     UTF-8 and free of NUL bytes.
    ///   - context: per-record context (password checks), already merged with fixed values.
    ///   - detail: what the output needs; ``OutcomeDetail/violationsOnly`` allows shortcuts.
    /// - Returns: every violation, and the normalized value and key where ``OutcomeDetail/full``.
    func check(_ value: UnsafeRawBufferPointer, context: RecordContext, detail: OutcomeDetail) -> FieldOutcome

    /// Checks one field value against the record's confirmation of it (`--confirm-field`: a
    /// password typed twice). Called instead of ``check(_:context:detail:)`` when a
    /// confirmation field is selected. The default ignores the confirmation; the password
    /// checker reports a mismatch. Neither value may appear in the outcome.
    func check(_ value: UnsafeRawBufferPointer, context: RecordContext, confirmation: String, detail: OutcomeDetail) -> FieldOutcome

}

extension FieldChecker {
    public func check(_ value: UnsafeRawBufferPointer, context: RecordContext, confirmation: String, detail: OutcomeDetail) -> FieldOutcome {
        check(value, context: context, detail: detail)
    }
}

/// Shortcuts a checker may offer the engine for the commonest records (the package's own
/// validators do); each has a default that leaves the record to ``FieldChecker/check(_:context:detail:)``.
package protocol FieldCheckerShortcuts: FieldChecker {
    /// True only when `value` is valid whatever the record's context, its `normalized` value is `value`
    /// itself and its key (where the output has keys) is `value` with ASCII letters lowercased.
    /// Lets the engine count or write the commonest record without building an outcome; false
    /// means "call ``check(_:context:detail:)``". The default is always false.
    func isValidAsIs(_ value: UnsafeRawBufferPointer) -> Bool

    /// True when every value ``isValidAsIs(_:)`` accepts is printable ASCII other than `"` and
    /// `\`, so it is written into JSON as it is, with no escape check. The default is false.
    var validAsIsArePlainASCII: Bool { get }

    /// The rules ``violatedRules(_:)`` refers to by index (at most 64); read once per input.
    /// The default is none.
    var indexedRules: [IndexedRule] { get }

    /// A shortcut for summaries and invalid records: the violations of `value` (as for
    /// ``check(_:context:detail:)``) as a bit set over ``indexedRules`` — bit `i` for one
    /// violation with code `indexedRules[i].code`, 0 when valid — or nil, meaning "call
    /// ``check(_:context:detail:)``". Must not depend on the record's context. An invalid value
    /// may then be written from the bits alone, with each rule's fixed violation, so its
    /// outcome must carry no normalized value or key. The default is always nil.
    func violatedRules(_ value: UnsafeRawBufferPointer) -> UInt64?

    /// Splits `lines` — valid UTF-8 without NUL — at LF (the last line may lack one) and calls
    /// `visit` with each line's 0-based index, its range without the LF, and its verdict:
    /// `.validAsIs` exactly when ``isValidAsIs(_:)`` holds for the range, `.violated` with what
    /// ``violatedRules(_:)`` returns for it, or `.undecided`. An empty line or one ending in CR
    /// must get `.undecided` (the engine reports the first and drops the CR of the second before
    /// checking the rest). With `skippingValid`, lines valid as is are only counted, not
    /// visited. `visit` returns false to stop. Returns how many lines were skipped. A checker
    /// that can find a line's end in the same pass that checks it implements this; the default
    /// frames with `memchr` and asks ``isValidAsIs(_:)``.
    func scanLines(_ lines: UnsafeRawBufferPointer, skippingValid: Bool, _ visit: (Int, Range<Int>, LineVerdict) -> Bool) -> Int
}

extension FieldCheckerShortcuts {
    package func isValidAsIs(_ value: UnsafeRawBufferPointer) -> Bool { false }

    package var validAsIsArePlainASCII: Bool { false }

    package var indexedRules: [IndexedRule] { [] }

    package func violatedRules(_ value: UnsafeRawBufferPointer) -> UInt64? { nil }

    package func scanLines(_ lines: UnsafeRawBufferPointer, skippingValid: Bool, _ visit: (Int, Range<Int>, LineVerdict) -> Bool) -> Int {
        var index = 0, skipped = 0
        frameLines(lines) { range in
            defer { index += 1 }
            let valid = !range.isEmpty && lines[range.upperBound - 1] != UInt8(ascii: "\r")
                && isValidAsIs(UnsafeRawBufferPointer(rebasing: lines[range]))
            if valid && skippingValid {
                skipped += 1
                return true
            }
            return visit(index, range, valid ? .validAsIs : .undecided)
        }
        return skipped
    }
}

/// A checker with no shortcuts of its own, seen through the defaults: every record is checked.
struct NoShortcuts: FieldCheckerShortcuts {
    let base: any FieldChecker

    func check(_ value: UnsafeRawBufferPointer, context: RecordContext, detail: OutcomeDetail) -> FieldOutcome {
        base.check(value, context: context, detail: detail)
    }

    func check(_ value: UnsafeRawBufferPointer, context: RecordContext, confirmation: String, detail: OutcomeDetail) -> FieldOutcome {
        base.check(value, context: context, confirmation: confirmation, detail: detail)
    }
}

extension FieldChecker {
    /// This checker's shortcuts, or the defaults when it offers none.
    var shortcuts: any FieldCheckerShortcuts { self as? any FieldCheckerShortcuts ?? NoShortcuts(base: self) }
}

/// Splits `lines` at LF (the last line may lack one) and calls `visit` with each line's range,
/// without the LF, until it returns false.
func frameLines(_ lines: UnsafeRawBufferPointer, _ visit: (Range<Int>) -> Bool) {
    guard let base = lines.baseAddress else { return }
    var start = 0
    while start < lines.count {
        let end = memchr(base + start, 0x0A, lines.count - start).map { UnsafeRawPointer($0) - base } ?? lines.count
        if !visit(start..<end) { return }
        start = end + 1
    }
}

/// A ``FieldChecker`` made from a closure over the field as a `String` (tests, small tools).
public struct ClosureChecker: FieldChecker {
    private let body: @Sendable (String, RecordContext) -> FieldOutcome

    /// Wraps `body`, which receives the field decoded as a `String`.
    public init(_ body: @escaping @Sendable (String, RecordContext) -> FieldOutcome) {
        self.body = body
    }

    public func check(_ value: UnsafeRawBufferPointer, context: RecordContext, detail: OutcomeDetail) -> FieldOutcome {
        body(String(decoding: value, as: UTF8.self), context)
    }
}
