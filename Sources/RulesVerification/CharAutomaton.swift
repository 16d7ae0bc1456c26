// CharAutomaton: finite automata over code-point intervals. A test of a derived string (the
// result of `lower()` and `replace()` steps, or a rule pack's list key) against literals is
// pushed back through each step to a regular language of the original string: the preimage of a
// language under each step is built exactly, then written as one SMT-LIB regex.

import RulesLanguage

/// One step from a string to a derived string; every step is a total function on strings.
enum StringStep: Equatable, Sendable {
    /// ASCII capitals become small letters; every other character is kept (a rule pack's
    /// `canonical` key).
    case lowerASCII
    /// `lower()` or `upper()`: Unicode case mapping, one scalar at a time (``ScalarMap``).
    case caseMapping(CaseMapping)
    /// Each character in the set becomes `with` (`replace('[1i|]', 'l')`).
    case replaceCharacters(set: [ClosedRange<UInt32>], with: [UInt32])
    /// Each occurrence of the literal (2 or more characters), leftmost first and without
    /// overlaps, becomes `with` (`replace('rn', 'm')`).
    case replaceLiteral([UInt32], with: [UInt32])
}

/// A nondeterministic automaton without empty moves whose transitions read one character from a
/// set of code points.
struct CharAutomaton {
    typealias CharSet = RegexTranslator.CharSet

    /// Each state's transitions: (characters, target).
    var edges: [[(set: CharSet, to: Int)]]
    var finals: Set<Int>
    var start = 0

    /// Longest regex text ``regex()`` writes before giving up.
    static let maxRegexBytes = 4 << 20

    // MARK: - Building

    /// The automaton of the strings in `texts`. With `canonicalEquivalents`, also of the strings
    /// Swift's `==` finds equal to one of them (for ASCII texts: a scalar whose canonical
    /// decomposition is one ASCII character, such as U+212A KELVIN SIGN for `K`, in its place).
    static func literals(_ texts: [[UInt32]], canonicalEquivalents: Bool) -> CharAutomaton {
        var automaton = CharAutomaton(edges: [[]], finals: [])
        for text in texts {
            var state = 0
            for (index, character) in text.enumerated() {
                var set: CharSet = [(character, character)]
                if canonicalEquivalents { set += (CanonicalSingletons.equivalents[character] ?? []).map { ($0, $0) } }
                let next = automaton.edges.count
                automaton.edges.append([])
                automaton.edges[state].append((RegexTranslator.normalize(set), next))
                state = next
                if index == text.count - 1 { automaton.finals.insert(state) }
            }
            if text.isEmpty { automaton.finals.insert(0) }
        }
        return automaton
    }

    /// The automaton of the strings Swift's `==` finds equal to one of `texts` (canonical
    /// equivalence): the variants of each text's normal form whose combining marks canonical
    /// ordering sorts back, pushed back through canonical decomposition. Nil when a text has a
    /// scalar outside Z3's alphabet or a run of combining marks with more than
    /// ``CanonicalEquivalence/maxOrders`` orders.
    static func canonicallyEqual(to texts: [String]) -> CharAutomaton? {
        var automaton = CharAutomaton(edges: [[]], finals: [])
        for text in texts {
            let form = CanonicalEquivalence.normalForm(text)
            guard text.unicodeScalars.allSatisfy({ $0.value <= RegexTranslator.maxCharacter }),
                  form.allSatisfy({ $0 <= RegexTranslator.maxCharacter }) else { return nil }
            var state = 0
            for piece in CanonicalEquivalence.pieces(form) {
                guard let orders = piece.count == 1 ? [piece] : CanonicalEquivalence.orders(of: piece) else { return nil }
                let end = automaton.edges.count
                automaton.edges.append([])
                for order in orders {
                    var from = state
                    for (index, scalar) in order.enumerated() {
                        let to = index == order.count - 1 ? end : automaton.edges.count
                        if to != end { automaton.edges.append([]) }
                        automaton.edges[from].append(([(scalar, scalar)], to))
                        from = to
                    }
                }
                state = end
            }
            automaton.finals.insert(state)
        }
        return automaton.trimmed().preimage(ScalarMap.decomposition)
    }

    /// The states reached from `state` by reading `text`.
    func reading(_ state: Int, _ text: [UInt32]) -> Set<Int> {
        var current: Set<Int> = [state]
        for character in text {
            var next: Set<Int> = []
            for s in current {
                for edge in edges[s] where CharSets.contains(edge.set, character) { next.insert(edge.to) }
            }
            current = next
            if current.isEmpty { break }
        }
        return current
    }

    // MARK: - Preimages

    /// The automaton of the strings `step` maps into this automaton's language.
    func preimage(_ step: StringStep) -> CharAutomaton {
        switch step {
        case .lowerASCII:
            var result = self
            result.edges = edges.map { $0.map { (CharSets.lowerASCIIPreimage($0.set), $0.to) } }
            return result.trimmed()
        case .replaceCharacters(let ranges, let with):
            let replaced = RegexTranslator.normalize(ranges.map { ($0.lowerBound, $0.upperBound) })
            var result = CharAutomaton(edges: Array(repeating: [], count: edges.count), finals: finals, start: start)
            for state in edges.indices {
                for target in reading(state, with).sorted() { result.edges[state].append((replaced, target)) }
                for edge in edges[state] {
                    let kept = CharSets.subtract(edge.set, replaced)
                    if !kept.isEmpty { result.edges[state].append((kept, edge.to)) }
                }
            }
            return result.trimmed()
        case .replaceLiteral(let literal, let with):
            return preimage(literal: literal, with: with)
        case .caseMapping(let mapping):
            return preimage(ScalarMap.of(mapping))
        }
    }

    /// The automaton of the strings `map` maps into this automaton's language: from each state,
    /// a scalar `map` keeps follows this automaton's transitions, and a scalar it changes goes
    /// wherever reading its image leads.
    func preimage(_ map: ScalarMap) -> CharAutomaton {
        var result = CharAutomaton(edges: Array(repeating: [], count: edges.count), finals: finals, start: start)
        for state in edges.indices {
            var candidates: Set<UInt32> = []
            for edge in edges[state] {
                let kept = CharSets.subtract(edge.set, map.changed)
                if !kept.isEmpty { result.edges[state].append((kept, edge.to)) }
                candidates.formUnion(map.changedScalars(startingIn: edge.set))
            }
            // Changed scalars with the same targets share one transition per target.
            var byTarget: [Int: CharSet] = [:]
            for scalar in candidates {
                for target in reading(state, map.image(scalar)) { byTarget[target, default: []].append((scalar, scalar)) }
            }
            for (target, set) in byTarget.sorted(by: { $0.key < $1.key }) {
                result.edges[state].append((RegexTranslator.normalize(set), target))
            }
        }
        return result.trimmed()
    }

    /// The preimage under "replace each occurrence of `literal`": a product of this automaton
    /// with the transducer that keeps the longest prefix of `literal` read so far (as
    /// Knuth-Morris-Pratt does) and writes what can no longer start an occurrence.
    private func preimage(literal: [UInt32], with replacement: [UInt32]) -> CharAutomaton {
        let n = literal.count
        let letters = Array(Set(literal)).sorted()
        let others = RegexTranslator.complement(letters.map { ($0, $0) })
        /// After `q` characters of the literal, reading `c`: the new count and what is written.
        func step(_ q: Int, _ c: UInt32) -> (Int, [UInt32]) {
            if literal[q] == c { return q + 1 == n ? (0, replacement) : (q + 1, []) }
            let buffer = Array(literal[0..<q]) + [c]
            var k = q
            while k > 0 && Array(buffer.suffix(k)) != Array(literal.prefix(k)) { k -= 1 }
            return (k, Array(buffer.prefix(buffer.count - k)))
        }
        var index: [Int: Int] = [:]
        var pairs: [(state: Int, q: Int)] = []
        var result = CharAutomaton(edges: [], finals: [])
        func id(_ state: Int, _ q: Int) -> Int {
            let key = state * n + q
            if let known = index[key] { return known }
            index[key] = pairs.count
            pairs.append((state, q))
            result.edges.append([])
            return pairs.count - 1
        }
        result.start = id(start, 0)
        var next = 0
        while next < pairs.count {
            let (state, q) = pairs[next]
            let current = next
            next += 1
            let pending = Array(literal[0..<q])
            if !reading(state, pending).isDisjoint(with: finals) { result.finals.insert(current) }
            for letter in letters {
                let (count, written) = step(q, letter)
                for target in reading(state, written).sorted() {
                    result.edges[current].append(([(letter, letter)], id(target, count)))
                }
            }
            for middle in reading(state, pending).sorted() {
                for edge in edges[middle] {
                    let set = CharSets.intersect(edge.set, others)
                    if !set.isEmpty { result.edges[current].append((set, id(edge.to, 0))) }
                }
            }
        }
        return result.trimmed()
    }

    // MARK: - Cleaning and writing

    /// The same language, with only the states on a path from the start to a final state.
    func trimmed() -> CharAutomaton {
        var reachable: Set<Int> = [start]
        var stack = [start]
        while let s = stack.popLast() {
            for edge in edges[s] where reachable.insert(edge.to).inserted { stack.append(edge.to) }
        }
        var reverse = Array(repeating: [Int](), count: edges.count)
        for (s, list) in edges.enumerated() { for edge in list { reverse[edge.to].append(s) } }
        var live = finals.intersection(reachable)
        stack = Array(live)
        while let s = stack.popLast() {
            for p in reverse[s] where reachable.contains(p) && live.insert(p).inserted { stack.append(p) }
        }
        var renumber: [Int: Int] = [:]
        for s in live.union([start]).sorted() { renumber[s] = renumber.count }
        var result = CharAutomaton(edges: Array(repeating: [], count: renumber.count), finals: [], start: renumber[start] ?? 0)
        for (old, new) in renumber {
            if finals.contains(old) && live.contains(old) { result.finals.insert(new) }
            guard live.contains(old) else { continue }
            // Transitions to one target merge into one set.
            var byTarget: [Int: CharSet] = [:]
            for edge in edges[old] where live.contains(edge.to) {
                if let target = renumber[edge.to] { byTarget[target, default: []] += edge.set }
            }
            result.edges[new] = byTarget.sorted { $0.key < $1.key }.map { (RegexTranslator.normalize($0.value), $0.key) }
        }
        return result
    }

    /// The union of the automata's languages.
    static func union(_ automata: [CharAutomaton]) -> CharAutomaton {
        var result = CharAutomaton(edges: [[]], finals: [])
        for automaton in automata {
            let offset = result.edges.count
            result.edges += automaton.edges.map { $0.map { ($0.set, $0.to + offset) } }
            result.finals.formUnion(automaton.finals.map { $0 + offset })
            result.edges[0] += automaton.edges[automaton.start].map { ($0.set, $0.to + offset) }
            if automaton.finals.contains(automaton.start) { result.finals.insert(0) }
        }
        return result.trimmed()
    }

    /// The strings `a` accepts and `b` does not (a product of their deterministic automata).
    static func difference(_ a: CharAutomaton, _ b: CharAutomaton) -> CharAutomaton {
        let da = a.determinized(), db = b.determinized()
        let dead = db.edges.count
        var index: [Int: Int] = [:]
        var pairs: [(Int, Int)] = []
        var result = CharAutomaton(edges: [], finals: [])
        func id(_ sa: Int, _ sb: Int) -> Int {
            let key = sa * (dead + 1) + sb
            if let known = index[key] { return known }
            index[key] = pairs.count
            pairs.append((sa, sb))
            result.edges.append([])
            return pairs.count - 1
        }
        result.start = id(da.start, db.start)
        var next = 0
        while next < pairs.count {
            let (sa, sb) = pairs[next]
            let current = next
            next += 1
            if da.finals.contains(sa) && !db.finals.contains(sb) { result.finals.insert(current) }
            let aEdges = da.edges[sa], bEdges = sb == dead ? [] : db.edges[sb]
            for piece in CharSets.partition(aEdges.map(\.set) + bEdges.map(\.set)) {
                guard let ta = aEdges.first(where: { CharSets.contains($0.set, piece[0].0) })?.to else { continue }
                let tb = bEdges.first(where: { CharSets.contains($0.set, piece[0].0) })?.to ?? dead
                result.edges[current].append((piece, id(ta, tb)))
            }
        }
        return result.trimmed()
    }

    /// The deterministic automaton of the same language (subset construction; each state's
    /// transitions split the alphabet into disjoint sets).
    func determinized() -> CharAutomaton {
        var index: [Set<Int>: Int] = [:]
        var subsets: [Set<Int>] = []
        var result = CharAutomaton(edges: [], finals: [])
        func id(_ subset: Set<Int>) -> Int {
            if let known = index[subset] { return known }
            index[subset] = subsets.count
            subsets.append(subset)
            result.edges.append([])
            return subsets.count - 1
        }
        result.start = id([start])
        var next = 0
        while next < subsets.count {
            let subset = subsets[next]
            let current = next
            next += 1
            if !subset.isDisjoint(with: finals) { result.finals.insert(current) }
            let outgoing = subset.sorted().flatMap { edges[$0] }
            for piece in CharSets.partition(outgoing.map(\.set)) {
                let targets = Set(outgoing.filter { CharSets.contains($0.set, piece[0].0) }.map(\.to))
                result.edges[current].append((piece, id(targets)))
            }
        }
        return result
    }

    /// The language as an SMT-LIB regex written from its minimal deterministic automaton, so
    /// that equal finite languages are written as the same text; nil when the language is
    /// infinite or the text would be longer than ``maxRegexBytes``.
    func minimalRegex() -> String? {
        let dfa = determinized().trimmed()
        // Bottom-up, each state's right language gets a canonical text: states with the same
        // text are one state of the minimal automaton.
        var memo: [Int: String] = [:]
        var visiting: Set<Int> = []
        var size = 0
        func text(_ state: Int) -> String? {
            if let known = memo[state] { return known }
            guard visiting.insert(state).inserted else { return nil }
            defer { visiting.remove(state) }
            var byRest: [String: CharSet] = [:]
            for edge in dfa.edges[state] {
                guard let rest = text(edge.to) else { return nil }
                byRest[rest, default: []] += edge.set
            }
            var parts: [String] = dfa.finals.contains(state) ? ["(str.to_re \"\")"] : []
            for (rest, set) in byRest.sorted(by: { $0.key < $1.key }) {
                let head = RegexTranslator.regex(set)
                parts.append(rest == "(str.to_re \"\")" ? head : "(re.++ \(head) \(rest))")
            }
            let result = RegexTranslator.union(parts)
            size += result.utf8.count
            guard size <= Self.maxRegexBytes else { return nil }
            memo[state] = result
            return result
        }
        return text(dfa.start)
    }

    /// The language as an SMT-LIB regex; nil when it has a loop (only finite languages are
    /// written) or the text would be longer than ``maxRegexBytes``.
    func regex() -> String? {
        var memo: [Int: String] = [:]
        var visiting: Set<Int> = []
        var size = 0
        func from(_ state: Int) -> String? {
            if let known = memo[state] { return known }
            guard visiting.insert(state).inserted else { return nil }
            defer { visiting.remove(state) }
            var parts: [String] = finals.contains(state) ? ["(str.to_re \"\")"] : []
            for edge in edges[state] {
                guard let rest = from(edge.to) else { return nil }
                let head = RegexTranslator.regex(edge.set)
                parts.append(rest == "(str.to_re \"\")" ? head : "(re.++ \(head) \(rest))")
            }
            let text = RegexTranslator.union(parts)
            size += text.utf8.count
            guard size <= Self.maxRegexBytes else { return nil }
            memo[state] = text
            return text
        }
        return from(start)
    }
}

/// Operations on sorted, disjoint code-point intervals (``RegexTranslator/CharSet``).
enum CharSets {
    typealias CharSet = RegexTranslator.CharSet

    static func contains(_ set: CharSet, _ c: UInt32) -> Bool {
        set.contains { $0.0 <= c && c <= $0.1 }
    }

    static func intersect(_ a: CharSet, _ b: CharSet) -> CharSet {
        var out: CharSet = []
        for (l1, h1) in a {
            for (l2, h2) in b where max(l1, l2) <= min(h1, h2) { out.append((max(l1, l2), min(h1, h2))) }
        }
        return RegexTranslator.normalize(out)
    }

    /// Disjoint non-empty sets whose unions are exactly `sets`' (each piece lies wholly inside
    /// or wholly outside every set), in code-point order.
    static func partition(_ sets: [CharSet]) -> [CharSet] {
        var bounds: Set<UInt32> = []
        for set in sets { for (low, high) in set { bounds.insert(low); bounds.insert(high &+ 1) } }
        let cuts = bounds.sorted()
        var pieces: [String: CharSet] = [:]
        var order: [String] = []
        for (i, low) in cuts.enumerated() where i + 1 < cuts.count {
            let high = cuts[i + 1] - 1
            let members = sets.indices.filter { contains(sets[$0], low) }
            guard !members.isEmpty else { continue }
            // Intervals in the same sets form one piece.
            let key = members.map(String.init).joined(separator: ",")
            if pieces[key] == nil { order.append(key) }
            pieces[key, default: []].append((low, high))
        }
        return order.map { RegexTranslator.normalize(pieces[$0] ?? []) }
    }

    static func subtract(_ a: CharSet, _ b: CharSet) -> CharSet {
        intersect(a, RegexTranslator.complement(b))
    }

    /// The characters whose ASCII lowercase is in `set`: the set without `A`-`Z`, plus the
    /// capital of each small letter in it.
    static func lowerASCIIPreimage(_ set: CharSet) -> CharSet {
        let small = intersect(set, [(0x61, 0x7A)])
        return RegexTranslator.normalize(subtract(set, [(0x41, 0x5A)]) + small.map { ($0.0 - 0x20, $0.1 - 0x20) })
    }
}

/// Scalars Swift's `==` finds equal to one ASCII character: their canonical decomposition is that
/// character (U+212A KELVIN SIGN is `K`, U+037E GREEK QUESTION MARK is `;`).
enum CanonicalSingletons {
    /// ASCII character → the other scalars equal to it.
    static let equivalents: [UInt32: [UInt32]] = {
        var found: [UInt32: [UInt32]] = [:]
        for value in UInt32(0x80)...UInt32(0x2FFFF) {
            // A singleton decomposition is always excluded from composition.
            guard let scalar = Unicode.Scalar(value), scalar.properties.isFullCompositionExclusion else { continue }
            let text = String(scalar)
            for ascii in UInt32(0)..<0x80 where text == String(Unicode.Scalar(UInt8(ascii))) {
                found[ascii, default: []].append(value)
            }
        }
        return found
    }()
}
