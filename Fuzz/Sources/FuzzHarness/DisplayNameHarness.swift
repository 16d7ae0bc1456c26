import FieldValidation

/// `DisplayNameValidator` on arbitrary bytes, plus a differential against ``ReferenceDisplayName``.
///
/// Checks: the `String` and `validate(utf8:)` entry points agree on the codes (the byte entry
/// point only for valid UTF-8 without NUL, its documented precondition); a valid name's
/// `normalized` is the input and its `key` the canonical key; validating `normalized` again gives
/// the same result (idempotent); and validity equals the reference scanner's except where the
/// validator reports a reserved name (`DN107`, `DN108`), which the scanner does not model.
public enum DisplayNameHarness {
    static let validator: DisplayNameValidator? = try? DisplayNameValidator()
    static let reservedCodes: Set<String> = ["DN107", "DN108"]

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let validator else { return [FuzzFinding("the shipped display-name packs do not compile")] }
        let name = String(decoding: input, as: UTF8.self)
        let result = validator.validate(name)
        var findings: [FuzzFinding] = []

        if isCleanUTF8(input) {
            let bytes = validator.validate(utf8: input)
            if bytes.codes != result.codes {
                findings.append(FuzzFinding("validate(utf8:) gave \(bytes.codes), validate(String) gave \(result.codes)"))
            }
        }
        if result.isValid {
            if result.normalized != name { findings.append(FuzzFinding("valid name but normalized differs from the input")) }
            if result.key != validator.canonicalKey(name) { findings.append(FuzzFinding("valid name but key is not the canonical key")) }
        }
        if let normalized = result.normalized {
            let again = validator.validate(normalized)
            if again != result { findings.append(FuzzFinding("validating the normalized name changed the result")) }
        }
        let reference = ReferenceDisplayName.isValid(Array(name.utf8))
        let reserved = result.codes.contains { reservedCodes.contains($0) }
        if reference != result.isValid && !(reference && reserved) {
            findings.append(FuzzFinding("reference scanner says \(reference ? "valid" : "invalid"), validator gave \(result.codes)"))
        }
        if result.isValid == false, result.codes.isEmpty {
            findings.append(FuzzFinding("invalid result without a code"))
        }
        return findings
    }

    /// Valid UTF-8 with no NUL byte: the precondition of the `validate(utf8:)` entry points.
    static func isCleanUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        !bytes.contains(0) && String(validating: bytes, as: UTF8.self) != nil
    }
}

/// The app's display-name rule written out by hand, for differential fuzzing: 3 to 30
/// characters, each an ASCII letter, digit, `.` or `_`; no leading or trailing period and no two
/// periods in a row. Reserved names are not modelled.
///
/// Deliberately plain (no patterns, no tables), so it shares no code with the validator.
public enum ReferenceDisplayName {
    /// Whether `bytes` (UTF-8) is a valid display name, ignoring the reserved-name lists.
    public static func isValid(_ bytes: [UInt8]) -> Bool {
        // Every allowed character is one ASCII byte, so bytes count characters here.
        if bytes.count < 3 || bytes.count > 30 { return false }
        for byte in bytes {
            let isLetter = (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            let isDigit = byte >= 48 && byte <= 57
            if !(isLetter || isDigit || byte == 46 || byte == 95) { return false }
        }
        if bytes.first == 46 || bytes.last == 46 { return false }
        for index in 1..<bytes.count where bytes[index] == 46 && bytes[index - 1] == 46 { return false }
        return true
    }
}
