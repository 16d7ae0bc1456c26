import Foundation
import PasswordStrength

/// The strength estimator's dictionaries: list files under `rules/lists/`, found like the packs'
/// list files (the embedded copy of `rules/`, or a rules directory), parsed when first used.
///
/// The files are generated from zxcvbn 4.5.0 by `scripts/build-strength-dictionaries`, each
/// headed with its source and version. Their order is zxcvbn's: when two dictionaries explain a
/// part equally well, the earlier one is reported.
public enum StrengthDictionaries {
    /// Each dictionary: its name, how feedback speaks of it, and its file relative to `rules/`.
    public static let files: [(name: String, category: StrengthDictionary.Category, path: String)] = [
        ("passwords", .commonPasswords, "lists/strength-passwords.txt"),
        ("english", .words, "lists/strength-english.txt"),
        ("female-names", .names, "lists/strength-female-names.txt"),
        ("surnames", .names, "lists/strength-surnames.txt"),
        ("tv-and-film", .other, "lists/strength-tv-and-film.txt"),
        ("male-names", .names, "lists/strength-male-names.txt"),
    ]

    /// The shipped dictionaries, from the embedded copy of `rules/lists/`.
    public static func shipped() -> [StrengthDictionary] {
        files.map { StrengthDictionary(name: $0.name, category: $0.category, listText: EmbeddedRulePacks.files[$0.path] ?? "") }
    }

    /// The dictionaries for a rules directory: each file from `directory/lists/` when it is
    /// there, else the shipped one.
    ///
    /// - Throws: ``RulePackError`` `RP1007` when a file there cannot be read.
    public static func load(directory: String) throws(RulePackError) -> [StrengthDictionary] {
        var dictionaries: [StrengthDictionary] = []
        for file in files {
            let path = directory + "/" + file.path
            guard FileManager.default.fileExists(atPath: path) else {
                dictionaries.append(StrengthDictionary(name: file.name, category: file.category,
                                                       listText: EmbeddedRulePacks.files[file.path] ?? ""))
                continue
            }
            do {
                dictionaries.append(StrengthDictionary(name: file.name, category: file.category,
                                                       listText: try String(contentsOfFile: path, encoding: .utf8)))
            } catch {
                throw RulePackError(code: RulePackCodes.unreadableListFile.id, "cannot read list file `\(path)`: \(error.localizedDescription)", file: nil)
            }
        }
        return dictionaries
    }

    /// Whether `directory/lists/` holds any strength dictionary (then ``load(directory:)``
    /// differs from the shipped ones).
    public static func overridden(in directory: String) -> Bool {
        files.contains { FileManager.default.fileExists(atPath: directory + "/" + $0.path) }
    }

    /// The estimator over the shipped dictionaries, built once, when first used (about 0.1 s).
    public static let shippedEstimator = StrengthEstimator(dictionaries: shipped())
}

extension PasswordValidator {
    /// The words of `context` the estimate treats as a user dictionary, in rank order: the
    /// username, the email address, its local part with and without `+tag`, the app name (the
    /// context's or the validator's), then ``PasswordContext/userInputs``.
    public func strengthUserInputs(_ context: PasswordContext) -> [String] {
        Self.strengthUserInputs(context, appName: appName)
    }

    static func strengthUserInputs(_ context: PasswordContext, appName: String?) -> [String] {
        var words: [String] = []
        if let username = context.username { words.append(username) }
        if let email = context.email {
            words.append(email)
            if let at = email.lastIndex(of: "@") {
                let local = String(email[..<at])
                words.append(local)
                if let plus = local.firstIndex(of: "+") { words.append(String(local[..<plus])) }
            }
        }
        if let appName = context.appName ?? appName { words.append(appName) }
        return words + context.userInputs
    }

    /// Estimates how hard `password` is to guess (zxcvbn 4.5.0's estimate; only the first 72
    /// code points are scored), with `context` as the user dictionary
    /// (``strengthUserInputs(_:)``).
    ///
    /// - Parameters:
    ///   - password: the password as typed; never stored in the result.
    ///   - context: the account's words.
    /// - Returns: score 0-4, guesses, the matches that explain them and feedback codes (`PW2xx`).
    public func strength(_ password: String, context: PasswordContext = .none) -> PasswordStrength {
        strengthEstimator.estimate(password, userInputs: strengthUserInputs(context))
    }

    /// ``strength(_:context:)`` for a password given as UTF-8 bytes: only the bytes of its first
    /// 72 code points are read.
    public func strength(utf8 bytes: UnsafeRawBufferPointer, context: PasswordContext = .none) -> PasswordStrength {
        strengthEstimator.estimate(utf8: bytes, userInputs: strengthUserInputs(context))
    }
}
