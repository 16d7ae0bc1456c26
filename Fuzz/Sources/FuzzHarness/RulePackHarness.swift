import Diagnostics
import FieldValidation

/// The rule-pack loader (and, when a pack loads, the validator compiler) on arbitrary YAML text.
///
/// Checks: loading never traps; every problem is a `RP…` diagnostic located by a span inside the
/// text (only "rule pack is empty" may have none); a pack that loads either compiles into its
/// validator, which then validates a few values without trapping, or fails with located `RP…`
/// diagnostics too.
public enum RulePackHarness {
    static let samples = ["", "john.doe", "a@example.com", "correct horse battery staple", "ａ\u{0}\n"]

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        let text = String(decoding: input, as: UTF8.self)
        let pack: RulePack
        do {
            pack = try RulePackSet.parse(text, name: "fuzz.yaml")
        } catch {
            return check(error, textBytes: text.utf8.count, stage: "load")
        }
        let packs = RulePackSet().adding(pack)
        do {
            switch pack.field {
            case .displayName:
                let validator = try DisplayNameValidator(packs: packs, appName: "RulesKit")
                for sample in samples { _ = validator.validate(sample) }
            case .email:
                let validator = try EmailValidator(packs: packs)
                for sample in samples { _ = validator.validate(sample) }
            case .password:
                let validator = try PasswordValidator(packs: packs, appName: "RulesKit")
                for sample in samples { _ = validator.validate(sample, context: PasswordContext(username: "john")) }
            }
        } catch {
            return check(error, textBytes: text.utf8.count, stage: "compile")
        }
        return []
    }

    /// Findings for a load or compile error that is not a located `RP…` diagnostic.
    static func check(_ error: RulePackError, textBytes: Int, stage: String) -> [FuzzFinding] {
        if error.diagnostics.isEmpty { return [FuzzFinding("\(stage): an error without diagnostics")] }
        var findings: [FuzzFinding] = []
        for diagnostic in error.diagnostics {
            if !diagnostic.code.hasPrefix("RP") {
                findings.append(FuzzFinding("\(stage): unexpected code \(diagnostic.code): \(diagnostic.message)"))
            }
            guard let span = diagnostic.span else {
                if diagnostic.message != "rule pack is empty" {
                    findings.append(FuzzFinding("\(stage): \(diagnostic.code) has no position: \(diagnostic.message)"))
                }
                continue
            }
            if span.start < 0 || span.start > span.end || span.end > textBytes {
                findings.append(FuzzFinding("\(stage): \(diagnostic.code) span \(span.start)..<\(span.end) outside a \(textBytes)-byte text"))
            }
        }
        return findings
    }
}
