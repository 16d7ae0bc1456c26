/// Builds alternatives for a taken display name.
public enum Suggestions {
    /// Candidate alternatives for `name`, in preference order: `name1`…`name9`, `name_`,
    /// `the.name`. Only candidates `policy` accepts are kept, one per canonical key, never the
    /// name's own key.
    ///
    /// - Parameters:
    ///   - name: The taken name as typed.
    ///   - policy: The display-name rules candidates must pass.
    /// - Returns: Claimable candidates (availability is for a store to say).
    public static func candidates(for name: String, policy: any DisplayNamePolicy) -> [String] {
        let forms = (1...9).map { "\(name)\($0)" } + ["\(name)_", "the.\(name)"]
        var seen: Set<String> = [policy.evaluate(name).key]
        return forms.filter { form in
            let evaluation = policy.evaluate(form)
            return evaluation.isClaimable && seen.insert(evaluation.key).inserted
        }
    }
}
