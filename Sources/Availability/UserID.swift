/// User ids as every claim store takes them: checked once, compared byte for byte.
///
/// A user id must be non-empty and hold no control character (Unicode general category `Cc`:
/// U+0000–U+001F and U+007F–U+009F); otherwise a claim, release or rename is refused with
/// `AV1008` before anything reaches storage. A NUL in particular must never get that far: a C
/// string ends at it, so `victim\0x` would act as `victim`.
///
/// Two user ids are the same user only when their UTF-8 bytes are equal. Swift's `==` on
/// `String` compares canonical equivalence (`jose\u{301}` == `josé`), while the databases compare
/// bytes; an owner check in Swift must agree with the database, so it uses ``same(_:_:)``.
public enum UserID {
    /// Why `user` cannot act on claims (`AV1008`), or nil when it can.
    public static func problem(_ user: String) -> ClaimProblem? {
        reason(user).map(ClaimProblem.invalidUser)
    }

    /// Why `user` cannot act on claims, as a clause (`it is empty`, `it contains the control
    /// character U+0000 at position 7`) that never repeats the id; nil when it can.
    public static func reason(_ user: String) -> String? {
        if user.isEmpty { return "it is empty" }
        for (offset, scalar) in user.unicodeScalars.enumerated() where scalar.properties.generalCategory == .control {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            return "it contains the control character \(code) at position \(offset + 1)"
        }
        return nil
    }

    /// True when `a` and `b` are the same user: the same UTF-8 bytes, as the databases compare.
    public static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }
}

/// A string as a dictionary key that is equal only to the same bytes (``UserID/same(_:_:)``),
/// unlike `String`, which hashes and compares canonical equivalents as equal.
struct ExactKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ string: String) { bytes = Array(string.utf8) }
}
