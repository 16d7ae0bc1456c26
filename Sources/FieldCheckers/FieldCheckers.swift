// FieldCheckers: connects the FieldValidation validators to the batch engine, one FieldChecker
// per kind of field, for the CLI and the HTTP service alike.
// Does not own: what makes a field valid (FieldValidation) or how records are read and written
// (BatchValidation).
import BatchValidation
import BreachedPasswords
import FieldValidation
import PasswordStrength

/// The kinds of field `validate` checks.
public enum FieldKind: String, Sendable, CaseIterable, CustomStringConvertible {
    case email
    case password
    case displayName = "display-name"

    /// The name on the command line and in URLs: `email`, `password`, `display-name`.
    public var description: String { rawValue }

    /// How records of this kind are written as JSONL: passwords are never shown, display names
    /// carry their uniqueness key (emails carry their mailbox key when the checker gives one:
    /// ``FieldCheckers/make(_:rulesDirectory:appName:strength:mailboxKeys:options:)``).
    public var jsonlWriter: WriterOptions {
        WriterOptions(format: .jsonl, isSecret: self == .password, includesKey: self == .displayName)
    }
}

/// A validator that cannot be set up (rule packs unreadable or invalid): exit status 2.
public struct CheckerSetupError: Error, CustomStringConvertible {
    /// The rendered rule-pack diagnostics.
    public var description: String
}

/// Sign-up protection the CLI and the service switch on for one run (rules shipped off).
public struct CheckerOptions: Sendable {
    /// `--breached STORE`: passwords found in the store get `PW109` (`password.breached`).
    public var breached: BreachedStore?
    /// `--reject-disposable`: addresses at disposable domains get `EM132` (`email.disposable-domain`).
    public var rejectDisposable: Bool
    /// `--allow-domains FILE`'s entries: domains `email.disposable-domain` never rejects.
    public var allowDomains: [String]

    /// Options; none by default.
    public init(breached: BreachedStore? = nil, rejectDisposable: Bool = false, allowDomains: [String] = []) {
        self.breached = breached
        self.rejectDisposable = rejectDisposable
        self.allowDomains = allowDomains
    }
}

/// Builds the checker for a kind of field.
public enum FieldCheckers {
    /// - Parameters:
    ///   - kind: which validator.
    ///   - rulesDirectory: `--rules DIR`, loaded on top of the shipped packs; its
    ///     `lists/strength-*.txt` replace the shipped strength dictionaries.
    ///   - appName: the app's name (reserved as a display name).
    ///   - strength: passwords only: estimate each password's strength (``FieldOutcome/strength``).
    ///   - mailboxKeys: emails only: give each valid address's mailbox key
    ///     (``FieldOutcome/mailboxKey``; JSONL rows and service answers show it).
    ///   - options: rules shipped off that this run switches on.
    /// - Throws: ``CheckerSetupError`` with the rendered rule-pack diagnostics.
    public static func make(_ kind: FieldKind, rulesDirectory: String?, appName: String? = nil,
                            strength: Bool = false, mailboxKeys: Bool = false,
                            options: CheckerOptions = CheckerOptions()) throws(CheckerSetupError) -> any FieldChecker {
        do throws(RulePackError) {
            let packs = try rulesDirectory.map { dir throws(RulePackError) in try RulePackSet.load(directory: dir) } ?? .shipped
            switch kind {
            case .displayName:
                return DisplayNameChecker(validator: try DisplayNameValidator(packs: packs, appName: appName))
            case .email:
                return EmailChecker(validator: try EmailValidator(packs: packs, rejectDisposable: options.rejectDisposable,
                                                                  allowDomains: options.allowDomains),
                                    givesMailboxKeys: mailboxKeys)
            case .password:
                var estimator: StrengthEstimator?
                if let rulesDirectory, StrengthDictionaries.overridden(in: rulesDirectory) {
                    estimator = StrengthEstimator(dictionaries: try StrengthDictionaries.load(directory: rulesDirectory))
                }
                return PasswordChecker(validator: try PasswordValidator(packs: packs, appName: appName, strengthEstimator: estimator,
                                                                        breached: options.breached),
                                       estimatesStrength: strength)
            }
        } catch {
            throw CheckerSetupError(description: error.description)
        }
    }
}

extension FieldCheckers {
    /// How the validator for `kind` decides each rule (`validate FIELD --explain-plan`).
    ///
    /// - Throws: ``CheckerSetupError`` as ``make(_:rulesDirectory:appName:)`` does.
    public static func plan(_ kind: FieldKind, rulesDirectory: String?, appName: String? = nil,
                            options: CheckerOptions = CheckerOptions()) throws(CheckerSetupError) -> ValidatorPlan {
        switch try make(kind, rulesDirectory: rulesDirectory, appName: appName, options: options) {
        case let checker as DisplayNameChecker: return checker.validator.plan
        case let checker as EmailChecker: return checker.validator.plan
        case let checker as PasswordChecker: return checker.validator.plan
        default: throw CheckerSetupError(description: "no plan for \(kind)")
        }
    }
}

/// Display names: the byte entry point decides valid ASCII names without allocating; the
/// normalized value and key are filled in only when the output shows them.
public struct DisplayNameChecker: FieldCheckerShortcuts {
    public let validator: DisplayNameValidator

    public func check(_ value: UnsafeRawBufferPointer, context: RecordContext, detail: OutcomeDetail) -> FieldOutcome {
        var outcome = FieldOutcome(violations: validator.violations(utf8: value))
        if detail == .full, outcome.isValid {
            let name = String(decoding: value, as: UTF8.self)
            outcome.normalized = name
            outcome.key = validator.canonicalKey(name)
        }
        return outcome
    }

    package func isValidAsIs(_ value: UnsafeRawBufferPointer) -> Bool {
        validator.isValidAsIs(utf8: value)
    }

    package var validAsIsArePlainASCII: Bool { validator.validAsIsArePlainASCII }

    package var indexedRules: [IndexedRule] { validator.indexedRules }

    package func violatedRules(_ value: UnsafeRawBufferPointer) -> UInt64? {
        validator.violatedRules(utf8: value)
    }

    package func scanLines(_ lines: UnsafeRawBufferPointer, skippingValid: Bool, _ visit: (Int, Range<Int>, LineVerdict) -> Bool) -> Int {
        validator.scanLines(lines, skippingValid: skippingValid, visit)
    }
}

/// Email addresses: `normalized` is the NFC local part and lowercased domain, built only when
/// the output shows it; the mailbox key only when asked for as well (JSONL output).
/// (It takes the engine's default shortcuts: conforming directly spares every record a call
/// through a wrapper. It must not offer `isValidAsIs`: a record valid as is is written with no
/// mailbox key.)
public struct EmailChecker: FieldCheckerShortcuts {
    public let validator: EmailValidator
    /// Whether each valid outcome carries the address's mailbox key (``FieldOutcome/mailboxKey``)
    /// where the detail is ``OutcomeDetail/full``.
    public let givesMailboxKeys: Bool

    /// A checker; `givesMailboxKeys` adds ``FieldOutcome/mailboxKey`` to every valid outcome.
    public init(validator: EmailValidator, givesMailboxKeys: Bool = false) {
        self.validator = validator
        self.givesMailboxKeys = givesMailboxKeys
    }

    public func check(_ value: UnsafeRawBufferPointer, context: RecordContext, detail: OutcomeDetail) -> FieldOutcome {
        guard detail == .full else { return FieldOutcome(violations: validator.violations(utf8: value)) }
        let result = validator.validate(utf8: value, mailboxKey: givesMailboxKeys)
        return FieldOutcome(violations: result.violations, normalized: result.normalized, mailboxKey: result.mailboxKey)
    }
}

/// Passwords: only violations and, when asked, the strength estimate leave this checker, never
/// the password or a normalized form.
public struct PasswordChecker: FieldCheckerShortcuts {
    public let validator: PasswordValidator
    /// Whether each outcome carries the password's strength (`validate password --strength`).
    public let estimatesStrength: Bool

    /// A checker; `estimatesStrength` adds ``FieldOutcome/strength`` to every outcome.
    public init(validator: PasswordValidator, estimatesStrength: Bool = false) {
        self.validator = validator
        self.estimatesStrength = estimatesStrength
    }

    public func check(_ value: UnsafeRawBufferPointer, context: RecordContext, detail: OutcomeDetail) -> FieldOutcome {
        let result = validator.validate(utf8: value, context: context)
        return FieldOutcome(violations: result.violations, strength: strength(value, context))
    }

    public func check(_ value: UnsafeRawBufferPointer, context: RecordContext, confirmation: String, detail: OutcomeDetail) -> FieldOutcome {
        let result = validator.validate(utf8: value, context: context, confirmation: confirmation)
        return FieldOutcome(violations: result.violations, strength: strength(value, context))
    }

    private func strength(_ value: UnsafeRawBufferPointer, _ context: RecordContext) -> StrengthReport? {
        guard estimatesStrength else { return nil }
        return Self.report(validator.strength(utf8: value, context: context))
    }

    /// A strength estimate as a record shows it.
    public static func report(_ strength: PasswordStrength) -> StrengthReport {
        func line(_ item: StrengthFeedbackItem) -> StrengthReport.Feedback { .init(code: item.code, message: item.message) }
        return StrengthReport(score: strength.score, guessesLog10: strength.guessesLog10, warning: strength.feedback.warning.map(line),
                              suggestions: strength.feedback.suggestions.map(line))
    }
}
