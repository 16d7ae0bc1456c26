// Encoder+Strings: string methods, `lower()`/`upper()` (derived strings, and an uninterpreted
// function for every other use), and regex
// memberships (`matches()`), defined per subject in ``Encoder/finish()``.
import Diagnostics
import RulesLanguage

extension Encoder {
    // MARK: - Strings

    func stringMethod(_ s: String, _ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        switch (name, args.count) {
        case ("size", 0): return SymValue(.int("(str.len \(s))"))
        case ("lower", 0):
            return SymValue(.string(caseMapping(.lower, s, span)))
        case ("upper", 0):
            return SymValue(.string(caseMapping(.upper, s, span)))
        case ("matches", 1):
            return map(args[0]) { p in
                guard case .string(let pattern) = p else { return .error }
                guard let concrete = SMT.concreteString(pattern) else {
                    return anyResult("matches() with a computed pattern", span, of: "string.matches", [SymValue(.string(s)), SymValue(p)])
                }
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
            return anyResult("string.replace()", span, of: "string.replace", [SymValue(.string(s))] + args)
        case ("split", 1), ("trim", 0), ("toUtf8", 0):
            return anyResult("string.\(name)()", span, of: "string.\(name)", [SymValue(.string(s))] + args)
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

    /// `lower()`/`upper()`: a literal is mapped; a computed string gives a derived string
    /// (Encoder+Derived.swift), exact in `==`, `!=` and `in` against literals. Any other use sees
    /// an uninterpreted function, exact on the strings it is applied to in a witness (the witness
    /// is replayed, and refuted models pin it to the real values), with an axiom true of Unicode
    /// case mapping on ASCII.
    private func caseMapping(_ mapping: CaseMapping, _ s: String, _ span: SourceSpan) -> String {
        let name = mapping.rawValue
        if let concrete = SMT.concreteString(s) { return SMT.string(mapping.apply(concrete)) }
        if !functions.contains(name) {
            functions.insert(name)
            declarations.append("(declare-fun |\(name)| (String) String)")
        }
        let result = "(|\(name)| \(s))"
        let argument = fresh("\(name).arg", "String")
        assert(SMT.eq(argument, s))
        let location = source.location(of: span.start)
        // ASCII without letters of the other case is unchanged. (More axioms, such as "ASCII maps
        // to ASCII of the same length", made Z3 4.8 an order of magnitude slower; models are
        // refined with the real values instead.) `rules agree` leaves it out: one more
        // membership of the compared string slows Z3 down there.
        let unchanged = encodesForAgreement ? nil : membership(s, mapping == .lower
            ? "(re.* (re.union (re.range \"\\u{0}\" \"\\u{40}\") (re.range \"\\u{5b}\" \"\\u{7f}\")))"
            : "(re.* (re.union (re.range \"\\u{0}\" \"\\u{60}\") (re.range \"\\u{7b}\" \"\\u{7f}\")))")
        pendingCaseMappings.append((mapping, s, result, argument, "\(source.name):\(location.line):\(location.column)",
                                    assertions.count, unchanged))
        derive(result, from: s, .caseMapping(mapping))
        return result
    }

    /// For each `lower()`/`upper()` whose uninterpreted result the encoding uses so far (a test
    /// against literals goes through its argument instead), the fact that ASCII without letters
    /// of the other case is unchanged, placed where the call was encoded. Call once, before the
    /// memberships are defined.
    func caseMappingAxioms() {
        for pending in pendingCaseMappings.reversed() where uses(pending.result) {
            guard let unchanged = pending.unchanged else { continue }
            assert("(=> \(unchanged) (= \(pending.result) \(pending.subject)))", at: pending.position)
        }
    }

    /// Records each `lower()`/`upper()` whose uninterpreted result the finished encoding uses: an
    /// abstraction at its location, and an application whose real value refutes a model (see
    /// ``caseMappings``). Call once, when encoding is finished.
    func recordCaseMappingUses() {
        for pending in pendingCaseMappings where uses(pending.result) {
            abstractions.append(Abstraction(construct: "`\(pending.mapping.rawValue)()` of a computed string used other than in `==`, `!=` or `in` against literals",
                                            location: pending.location))
            caseMappings.append((pending.mapping.rawValue, pending.argument))
        }
        pendingCaseMappings = []
    }

    /// Whether a declaration, an assertion or a membership (defined or not yet) mentions `term`.
    private func uses(_ term: String) -> Bool {
        declarations.contains { $0.contains(term) } || assertions.contains { $0.contains(term) }
            || memberships.contains { $0.subject.contains(term) } || lazyMemberships.contains { $0.subject.contains(term) }
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
