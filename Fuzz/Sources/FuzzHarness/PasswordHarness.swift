import FieldValidation
import Foundation

/// `PasswordValidator` on arbitrary bytes, with and without a context.
///
/// Input layout: the first byte picks the context (bit 0: username `alice`, bit 1: email
/// `bob+x@example.com`, bit 2: app name `RulesKit`); the rest is the password.
///
/// Checks: no message or parameter echoes the password: every message equals its rule's template
/// with the parameters filled in, and no parameter contains the password when it has 4 or more
/// characters; `normalized` and `key` are always nil; results are deterministic; the `String`
/// and `validate(utf8:)` entry points agree; and validating the NFKC form gives the same codes
/// (normalization is idempotent) unless the raw input holds control characters, which are
/// checked before normalization.
///
/// Findings never include the password itself.
public enum PasswordHarness {
    static let validator: PasswordValidator? = try? PasswordValidator()
    /// Rule id → message template, from the shipped packs.
    static let templates: [String: String] = {
        let rules = (try? RulePackSet.shipped.rules(for: .password)) ?? []
        return Dictionary(rules.compactMap { rule in rule.message.map { (rule.id, $0) } }, uniquingKeysWith: { $1 })
    }()

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let validator, !templates.isEmpty else { return [FuzzFinding("the shipped password packs do not compile")] }
        guard let flags = input.first else { return [] }
        let body = UnsafeRawBufferPointer(rebasing: input[1...])
        let password = String(decoding: body, as: UTF8.self)
        let context = PasswordContext(
            username: flags & 1 != 0 ? "alice" : nil, email: flags & 2 != 0 ? "bob+x@example.com" : nil,
            appName: flags & 4 != 0 ? "RulesKit" : nil)
        let result = validator.validate(password, context: context)
        var findings: [FuzzFinding] = []

        for violation in result.violations {
            if let template = templates[violation.rule] {
                let expected = violation.parameters.reduce(template) { $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value) }
                if violation.message != expected {
                    findings.append(FuzzFinding("\(violation.code): message differs from its template (possible echo)"))
                }
            } else {
                findings.append(FuzzFinding("\(violation.code): rule `\(violation.rule)` has no template in the shipped packs"))
            }
            if password.count >= 4, violation.parameters.values.contains(where: { containsBytes($0, password) }) {
                findings.append(FuzzFinding("\(violation.code): a parameter contains the password"))
            }
        }
        if result.normalized != nil || result.key != nil || result.asciiForm != nil {
            findings.append(FuzzFinding("a password result exposes a normalized value or key"))
        }
        if validator.validate(password, context: context) != result { findings.append(FuzzFinding("two validations differ")) }
        if DisplayNameHarness.isCleanUTF8(body), validator.validate(utf8: body, context: context) != result {
            findings.append(FuzzFinding("validate(utf8:) and validate(String) differ"))
        }
        let hasControl = password.unicodeScalars.contains { $0.properties.generalCategory == .control }
        if !hasControl {
            let nfkc = password.precomposedStringWithCompatibilityMapping
            let again = validator.validate(nfkc, context: context)
            if again.codes != result.codes {
                findings.append(FuzzFinding("the NFKC form gives \(again.codes), the input gave \(result.codes)"))
            }
        }
        if !result.isValid, result.codes.isEmpty { findings.append(FuzzFinding("invalid without a code")) }
        return findings
    }

    /// Whether `text` contains `part`, byte for byte. (Foundation's `contains` stops at a NUL in
    /// `part`, so `"3"` would "contain" `"3\0\0\0"`.)
    static func containsBytes(_ text: String, _ part: String) -> Bool {
        let haystack = Array(text.utf8), needle = Array(part.utf8)
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
