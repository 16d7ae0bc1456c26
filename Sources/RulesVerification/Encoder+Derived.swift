// Encoder+Derived: strings derived from another by `lower()`, `upper()` and `replace()` steps.
// Their tests against literals (`==`, `!=`, `in` a list of literals) are exact: the strings Swift's
// `==` finds equal to the literals are pushed back through the steps (``CharAutomaton``) to one
// regex membership of the original string. Every other use of a derived string sees what the
// step's own encoding gives (an uninterpreted function for `lower()`/`upper()`, an unconstrained
// string for `replace()`): a sound over-approximation.
import Diagnostics

/// A string made from the string `base` (an SMT term) by `steps`, in order.
struct StringDerivation {
    var base: String
    var steps: [StringStep]
}

extension Encoder {
    /// Records that the string `term` is the string `source` after `step`.
    func derive(_ term: String, from source: String, _ step: StringStep) {
        var derivation = derivations[source] ?? StringDerivation(base: source, steps: [])
        derivation.steps.append(step)
        derivations[term] = derivation
    }

    /// `replace(pattern, replacement)` as a step, when `pattern` is a literal (escaped
    /// punctuation allowed) or one character class (`[1i|]`, `[^a-z]`); nil for any other pattern.
    /// The replacement is taken literally, as the evaluator does.
    static func replaceStep(_ pattern: String, _ replacement: String) -> StringStep? {
        let with = replacement.unicodeScalars.map(\.value)
        let scalars = Array(pattern.unicodeScalars)
        if let literal = literalScalars(scalars) {
            switch literal.count {
            case 0: return nil
            case 1: return .replaceCharacters(set: [literal[0]...literal[0]], with: with)
            default: return .replaceLiteral(literal, with: with)
            }
        }
        guard scalars.first == "[", scalars.last == "]", scalars.count > 2 else { return nil }
        var parser = RegexTranslator.Parser(scalars)
        guard let regex = try? parser.characterClass(), parser.atEnd, let set = parser.lastClass else { return nil }
        _ = regex
        return .replaceCharacters(set: set.map { $0.0...$0.1 }, with: with)
    }

    /// The characters of a pattern without metacharacters (`\` + punctuation is that
    /// punctuation), or nil.
    private static func literalScalars(_ scalars: [Unicode.Scalar]) -> [UInt32]? {
        var out: [UInt32] = []
        var index = 0
        while index < scalars.count {
            let c = scalars[index]
            if c == "\\" {
                guard index + 1 < scalars.count else { return nil }
                let e = scalars[index + 1]
                guard e.value < 128, !e.properties.isAlphabetic, !("0"..."9").contains(e) else { return nil }
                out.append(e.value)
                index += 2
                continue
            }
            if "^$.|?*+()[]{}".unicodeScalars.contains(c) { return nil }
            out.append(c.value)
            index += 1
        }
        return out
    }

    /// Whether the derived string `term` is one of `literals`, compared as Swift's `==` compares
    /// strings, as one membership of the string it derives from; nil when `term` is not derived or
    /// the preimage has no regex (``CharAutomaton/canonicallyEqual(to:)``,
    /// ``CharAutomaton/minimalRegex()``).
    func derivedMembership(_ term: String, _ literals: [String]) -> String? {
        guard let derivation = derivations[term], !literals.isEmpty else { return nil }
        let key = "\(derivation.steps)\u{0}" + literals.joined(separator: "\u{0}")
        let preimage: (regex: String, automaton: CharAutomaton)?
        if let known = derivedPreimages[key] {
            preimage = known
        } else {
            var automaton = CharAutomaton.canonicallyEqual(to: literals)
            for step in derivation.steps.reversed() { automaton = automaton?.preimage(step) }
            preimage = automaton.flatMap { automaton in automaton.minimalRegex().map { ($0, automaton) } }
            derivedPreimages[key] = preimage
        }
        guard let preimage else { return nil }
        return lazyMembership(derivation.base, preimage.regex, preimage.automaton)
    }

    /// `subject ∈ regex` for a regex of a finite list (a preimage of literals). With
    /// ``Encoder/encodesForAgreement``, a Bool constant that ``lazyDefinitions()`` defines;
    /// until then it is unconstrained: a proof without the
    /// definition holds with it, and Z3 4.8 decides queries with large list regexes far faster
    /// when they are left out. Equal regexes share one constant.
    func lazyMembership(_ subject: String, _ regex: String, _ automaton: CharAutomaton) -> String {
        guard encodesForAgreement else { return membership(subject, regex) }
        let key = "lazy\u{0}" + subject + "\u{0}" + regex
        if let existing = membershipIndex[key] { return existing }
        let atom = fresh("list", "Bool")
        membershipIndex[key] = atom
        lazyMemberships.append((subject, regex, atom, automaton))
        return atom
    }

    /// Definitions of two ``lazyMembership(_:_:_:)`` constants of one subject that leave what
    /// their lists share undefined: `a = shared ∨ onlyA` and `b = shared ∨ onlyB`, with `onlyA`
    /// and `onlyB` exact memberships of the differences (short when two lists nearly agree) and
    /// `shared` a fresh constant that excludes both. Nil unless there are exactly two, of one
    /// subject, with finite differences.
    func splitLazyDefinitions() -> [String]? {
        guard lazyMemberships.count == 2, lazyMemberships[0].subject == lazyMemberships[1].subject else { return nil }
        let (a, b) = (lazyMemberships[0], lazyMemberships[1])
        guard let onlyA = CharAutomaton.difference(a.automaton, b.automaton).minimalRegex(),
              let onlyB = CharAutomaton.difference(b.automaton, a.automaton).minimalRegex() else { return nil }
        let shared = "|list.shared|"
        let inA = "(str.in_re \(a.subject) \(onlyA))", inB = "(str.in_re \(a.subject) \(onlyB))"
        return ["(declare-const \(shared) Bool)",
                "(assert (= \(a.atom) (or \(shared) \(inA))))",
                "(assert (= \(b.atom) (or \(shared) \(inB))))",
                "(assert (=> \(shared) (and (not \(inA)) (not \(inB)))))"]
    }

    /// The definitions of every ``lazyMembership(_:_:_:)`` constant.
    func lazyDefinitions() -> [String] {
        lazyMemberships.map { "(assert (= \($0.atom) (str.in_re \($0.subject) \($0.regex))))" }
    }

    /// `item in list` when `item` is a derived string and the list holds only literals, or nil.
    func derivedIn(_ item: SymValue, _ items: [SymValue]) -> SymValue? {
        guard item.alts.count == 1, case .string(let term) = item.alts[0].payload, derivations[term] != nil else { return nil }
        var literals: [String] = []
        for element in items {
            guard element.err == "false", element.alts.count == 1, element.alts[0].guard_ == "true",
                  case .string(let text) = element.alts[0].payload, let literal = SMT.concreteString(text) else { return nil }
            literals.append(literal)
        }
        guard let member = derivedMembership(term, literals) else { return nil }
        return plainBool(SMT.and([item.alts[0].guard_, member]), err: item.err)
    }
}
