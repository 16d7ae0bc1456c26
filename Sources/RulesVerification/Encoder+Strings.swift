// Encoder+Strings: string methods, `lower()`/`upper()` as uninterpreted functions, and regex
// memberships (`matches()`), defined per subject in ``Encoder/finish()``.
import Diagnostics

extension Encoder {
    // MARK: - Strings

    func stringMethod(_ s: String, _ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        switch (name, args.count) {
        case ("size", 0): return SymValue(.int("(str.len \(s))"))
        case ("lower", 0), ("upper", 0):
            return SymValue(.string(caseMapping(name, s, span)))
        case ("matches", 1):
            return map(args[0]) { p in
                guard case .string(let pattern) = p else { return .error }
                guard let concrete = SMT.concreteString(pattern) else { return anyValue("matches() with a computed pattern", span) }
                switch RegexTranslator.translateMembership(concrete) {
                case .success(let translation):
                    return SymValue(.bool(membership(s, translation.combined)))
                case .failure(let problem): return anyValue("matches('\(concrete)'): \(problem.message)", span)
                }
            }
        case ("replace", 2):
            // For `rules agree`, a literal or one-class pattern with a literal replacement: a
            // derived string, exact in tests against literals (Encoder+Derived.swift).
            if encodesForAgreement, let pattern = Self.literalArgument(args[0]), let replacement = Self.literalArgument(args[1]),
               let step = Self.replaceStep(pattern, replacement) {
                let result = fresh("replace", "String")
                derive(result, from: s, step)
                abstract("`replace()` used other than in `==`, `!=` or `in` against literals", span)
                return SymValue(.string(result))
            }
            return anyValue("string.replace()", span)
        case ("split", 1), ("trim", 0), ("toUtf8", 0):
            return anyValue("string.\(name)()", span)
        default:
            return .error
        }
    }

    /// The text of an argument that is a string literal, or nil.
    static func literalArgument(_ value: SymValue) -> String? {
        guard value.err == "false", value.alts.count == 1, value.alts[0].guard_ == "true",
              case .string(let term) = value.alts[0].payload else { return nil }
        return SMT.concreteString(term)
    }

    /// `lower()`/`upper()`: an uninterpreted function, exact on the strings it is applied to in a
    /// witness (the witness is replayed), with axioms true of Unicode case mapping on ASCII.
    private func caseMapping(_ name: String, _ s: String, _ span: SourceSpan) -> String {
        if let concrete = SMT.concreteString(s) {
            return SMT.string(name == "lower" ? concrete.lowercased() : concrete.uppercased())
        }
        if !functions.contains(name) {
            functions.insert(name)
            declarations.append("(declare-fun |\(name)| (String) String)")
        }
        abstract("\(name)() beyond ASCII", span)
        let argument = fresh("\(name).arg", "String")
        assert(SMT.eq(argument, s))
        caseMappings.append((name, argument))
        let result = "(|\(name)| \(s))"
        let unchanged = name == "lower"
            ? "(re.* (re.union (re.range \"\\u{0}\" \"\\u{40}\") (re.range \"\\u{5b}\" \"\\u{7f}\")))"
            : "(re.* (re.union (re.range \"\\u{0}\" \"\\u{60}\") (re.range \"\\u{7b}\" \"\\u{7f}\")))"
        // ASCII without letters of the other case is unchanged; ASCII maps to ASCII of the same
        // length with no letters of the other case.
        // ASCII without letters of the other case is unchanged. (More axioms, such as "ASCII maps
        // to ASCII of the same length", made Z3 4.8 an order of magnitude slower; models are
        // refined with the real values instead.)
        // (`rules agree` leaves it out: its derived strings are exact without it, and one more
        // membership of the compared string slows Z3 down there.)
        if !encodesForAgreement { assert("(=> \(membership(s, unchanged)) (= \(result) \(s)))") }
        if name == "lower" { derive(result, from: s, .lowerASCII) }
        return result
    }


    /// `subject ∈ regex` as a Bool constant, defined in ``finish()`` together with every other
    /// membership of the same subject: Z3 4.8 decides one membership of an intersection quickly but
    /// not several memberships of one string.
    func membership(_ subject: String, _ regex: String) -> String {
        let key = subject + "\u{0}" + regex
        if let existing = membershipIndex[key] { return existing }
        let atom = fresh("re", "Bool")
        membershipIndex[key] = atom
        memberships.append((subject, regex, atom))
        return atom
    }

    /// Defines the membership atoms (``RegexMemberships/definitions(_:)``).
    func defineMemberships() {
        for term in RegexMemberships.definitions(memberships) { assert(term) }
    }
}

/// Regular-expression memberships defined together per subject, shared by the encoders.
enum RegexMemberships {
    /// The assertions that define the membership atoms: for each subject, one implication per
    /// combination of its atoms' truth values, each a single membership of an intersection
    /// (Z3 4.8 decides one membership of an intersection quickly but not several memberships of
    /// one string); a subject with one atom, or more than five, gets one equivalence per atom.
    static func definitions(_ memberships: [(subject: String, regex: String, atom: String)]) -> [String] {
        var out: [String] = []
        var order: [String] = []
        var groups: [String: [(regex: String, atom: String)]] = [:]
        for m in memberships {
            if groups[m.subject] == nil { order.append(m.subject) }
            groups[m.subject, default: []].append((m.regex, m.atom))
        }
        for subject in order {
            let group = groups[subject] ?? []
            guard group.count > 1, group.count <= 5 else {
                for (regex, atom) in group { out.append(SMT.eq(atom, "(str.in_re \(subject) \(regex))")) }
                continue
            }
            for combination in 0..<(1 << group.count) {
                var guards: [String] = []
                var parts: [String] = []
                for (index, (regex, atom)) in group.enumerated() {
                    let on = combination & (1 << index) != 0
                    guards.append(on ? atom : SMT.not(atom))
                    parts.append(on ? regex : "(re.comp \(regex))")
                }
                out.append("(=> \(SMT.and(guards)) (str.in_re \(subject) (re.inter \(parts.joined(separator: " ")))))")
            }
        }
        return out
    }
}
