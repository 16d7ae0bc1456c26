import BreachedPasswords
import PasswordStrength

/// A rule kind the compiler builds as a ``FieldRule`` of its own (``CompiledRule/Check/swift``),
/// so the fast paths, which decide pattern, length and list rules from their data, leave it to
/// the rule itself; the plan names how it decides.
protocol KindRule: FieldRule {
    /// How ``ValidatorPlan`` reports the rule.
    var strategy: ValidatorPlan.Strategy { get }
}

/// `kind: breached`: the subject's SHA-1 (of its UTF-8) is in the store, seen at least
/// `min-count` times. Reports no parameters: neither the count nor the hash reaches a message.
final class BreachedRule: KindRule, StringSubjectRule {
    let name: String
    let target: String
    let store: BreachedStore
    let minimumCount: UInt32

    init(name: String, target: String, store: BreachedStore, minimumCount: UInt32) {
        self.name = name
        self.target = target
        self.store = store
        self.minimumCount = minimumCount
    }

    var strategy: ValidatorPlan.Strategy { .list }
    var subject: String { target }

    func check(subject: String, asciiOnly: Bool) -> [String: String]? {
        guard let count = store.count(password: subject) else { return nil }
        return count >= minimumCount ? [:] : nil
    }
}

/// `kind: strength`: the password's strength score (its first 72 characters, with the account's
/// words and the app name as a user dictionary) is below `min-score`. Reports `score` and
/// `min-score`, never the password nor its matches.
struct StrengthRule: KindRule {
    let name: String
    let target: String
    let minimumScore: Int
    /// The validator's estimator; nil for the shipped dictionaries' (built when first used).
    let estimator: StrengthEstimator?
    let appName: String?

    var strategy: ValidatorPlan.Strategy { .swift }

    func check(_ input: FieldInput) -> [String: String]? {
        guard let subject = input.subject(target) else { return nil }
        let strength = (estimator ?? StrengthDictionaries.shippedEstimator)
            .estimate(subject, userInputs: PasswordValidator.strengthUserInputs(input.context, appName: appName))
        guard strength.score < minimumScore else { return nil }
        return ["score": String(strength.score), "min-score": String(minimumScore)]
    }
}

/// `kind: list` with `key: domain-suffix`, or any list with an `allow-file`: listed when the
/// subject's key is (for `domain-suffix`, when the domain or a parent domain is), unless the
/// allow list lists it the same way.
final class ListWithAllowRule: KindRule, StringSubjectRule {
    let name: String
    let target: String
    let list: KeyList
    let allow: KeyList?

    init(name: String, target: String, list: KeyList, allow: KeyList?) {
        self.name = name
        self.target = target
        self.list = list
        self.allow = allow
    }

    var strategy: ValidatorPlan.Strategy { .list }
    var subject: String { target }

    func check(subject: String, asciiOnly: Bool) -> [String: String]? {
        guard list.contains(subject) else { return nil }
        if let allow, allow.contains(subject) { return nil }
        return [:]
    }
}
