import FieldValidation

/// `EmailValidator` (default and ASCII-only) on arbitrary bytes.
///
/// Checks: the `String`, `validate(utf8:)` and `violations(utf8:)` entry points agree (for clean
/// UTF-8, their precondition); results are deterministic; a valid address's `normalized` form validates again
/// to itself (idempotent); `asciiForm`, when present, is ASCII; an invalid result carries a code.
/// Differential: a custom pack that only adds a rule no input here breaks (so it runs on the
/// email engine, not the shipped fast path) gives exactly the shipped pack's result.
public enum EmailHarness {
    static let validators: [EmailValidator] = [try? EmailValidator(), try? EmailValidator(asciiOnly: true)].compactMap { $0 }
    /// The shipped rules plus a length limit no fuzz input reaches: the same answers, on the engine.
    static let engineValidators: [EmailValidator] = [false, true].compactMap { asciiOnly in
        let pack = "pack: never\nfield: email\nrules:\n  - {id: never.huge, code: X1, kind: length, on: address, unit: utf8-octets, max: 100000000, message: m}\n"
        return (try? RulePackSet.parse(pack, name: "never.yaml")).flatMap { try? EmailValidator(packs: RulePackSet.shipped.adding($0), asciiOnly: asciiOnly) }
    }

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard validators.count == 2, engineValidators.count == 2 else { return [FuzzFinding("the email packs do not compile")] }
        let address = String(decoding: input, as: UTF8.self)
        var findings: [FuzzFinding] = []
        for (index, validator) in validators.enumerated() {
            let mode = index == 0 ? "default" : "ascii-only"
            let result = validator.validate(address)
            if validator.validate(address) != result { findings.append(FuzzFinding("\(mode): two validations differ")) }
            if DisplayNameHarness.isCleanUTF8(input) {
                if validator.validate(utf8: input) != result {
                    findings.append(FuzzFinding("\(mode): validate(utf8:) and validate(String) differ"))
                }
                if validator.violations(utf8: input) != result.violations {
                    findings.append(FuzzFinding("\(mode): violations(utf8:) and validate(String) differ"))
                }
            }
            if validator.validate(address) != engineValidators[index].validate(address) {
                findings.append(FuzzFinding("\(mode): the email engine and the shipped fast path differ"))
            }
            if !result.isValid, result.codes.isEmpty { findings.append(FuzzFinding("\(mode): invalid without a code")) }
            if result.isValid != (result.normalized != nil) {
                findings.append(FuzzFinding("\(mode): valid is \(result.isValid) but normalized is \(result.normalized == nil ? "nil" : "set")"))
            }
            if let ascii = result.asciiForm, !ascii.utf8.allSatisfy({ $0 < 0x80 }) {
                findings.append(FuzzFinding("\(mode): asciiForm is not ASCII"))
            }
            if let normalized = result.normalized {
                let again = validator.validate(normalized)
                if again.normalized != normalized {
                    findings.append(FuzzFinding("\(mode): normalization is not idempotent: \(again.codes), `\(again.normalized ?? "nil")`"))
                }
            }
        }
        return findings
    }
}
