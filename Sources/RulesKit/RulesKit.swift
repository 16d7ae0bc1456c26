// RulesKit: the public facade a server or client imports. `import RulesKit` brings the field
// validators, the rule packs, breached-password stores, the security rules language (with PCRE2
// `matches()`), and the availability checker and claim stores protocol; the SQLite and
// PostgreSQL stores are their own products (`SQLiteClaims`, `PostgresClaims`) so an app links
// only the database it uses. Owns the validated `Codable` values (`DisplayName`, `EmailAddress`,
// `Password`) and their errors. A package depending on this product alone compiles no
// server-side package (scripts/downstream-check).
@_exported import Availability
@_exported import BreachedPasswords
@_exported import Diagnostics
@_exported import FieldValidation
@_exported import Patterns
@_exported import RulesLanguage
@_exported import RulesPatterns

extension RulesCompiler {
    /// Parses and checks security rules with the PCRE2-backed regex library (RE2 syntax for
    /// `matches()`, `replace()` and `split()`), the way production rules run.
    ///
    /// - Parameters:
    ///   - text: the `.rules` source.
    ///   - name: the file name shown in diagnostics.
    /// - Returns: the program (nil when there are errors) and every diagnostic.
    public static func compileWithPCRE2(_ text: String, name: String = "rules") -> CompileResult {
        compile(text, name: name, regexEngine: PCRE2RegexEngine())
    }
}
