import FieldValidation
import PatternAutomata
import Patterns

/// The pack compiler against PCRE2 on the fuzzer's patterns and subjects.
///
/// Input layout: the first byte picks a mode. Raw mode: the next byte splits the rest into
/// pattern text (decoded with replacement) and a raw subject; whatever PCRE2 compiles must
/// either compile to an automaton that agrees with PCRE2 or be refused, never trap. Pack mode:
/// the bytes choose one to four patterns from a small grammar and their kinds, build a
/// display-name pack of them, then subjects; the validator's violated rules must be exactly the
/// ones PCRE2 finds. Where PCRE2's JIT and interpreter disagree, the interpreter decides on valid
/// UTF-8 and the case is skipped on invalid UTF-8 (PCRE2 10.42 JIT defects, docs/RULE-PACKS.md);
/// `\b` next to invalid UTF-8 is skipped too.
public enum PackCompilerHarness {
    static let limits = MatchLimits(matchLimit: 20_000, depthLimit: 1_000, heapLimitKibibytes: 1_024)

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let mode = input.first else { return [] }
        return mode & 1 == 0 ? raw(UnsafeRawBufferPointer(rebasing: input[1...])) : pack(UnsafeRawBufferPointer(rebasing: input[1...]))
    }

    // MARK: - Raw pattern text

    private static func raw(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let first = input.first else { return [] }
        let split = 1 + Int(first) % input.count
        let source = String(decoding: input[1..<split], as: UTF8.self)
        let subject = UnsafeRawBufferPointer(rebasing: input[split...])
        var findings: [FuzzFinding] = []
        for use in [PatternUse.wholeSubject, .search] {
            guard let reference = Reference(source, use) else { continue }
            let set = PatternSet([(pattern: source, use: use)], maxStates: 2_000)
            if let finding = compare(set, 0, reference, subject, source: source) { findings.append(finding) }
        }
        return findings
    }

    // MARK: - Packs

    private static let atoms = ["a", "b", ".", "\\.", "_", "[a-c]", "[^.]", "[0-9]", "\\d", "\\w", "\\s", "é", "[^\\x{80}-\\x{10FFFF}]",
                                "\\x{1F600}", ".", "(?s:.)", "\\N", "\\p{Cc}", "[[:alpha:]]", "x"]
    private static let anchors = ["\\A", "\\z", "^", "$", "\\Z", "\\b", "\\B"]

    /// A pattern from the grammar: items with quantifiers, groups, alternations and anchors.
    private static func pattern(_ reader: inout ByteReader, depth: Int = 0) -> String {
        var text = ""
        for _ in 0..<(1 + reader.choose(4)) {
            var item: String
            switch reader.choose(depth < 2 ? 8 : 6) {
            case 0, 1, 2, 3: item = atoms[reader.choose(atoms.count)]
            case 4: item = anchors[reader.choose(anchors.count)]
            case 5: item = reader.choose(2) == 0 ? "(?=\(atoms[reader.choose(atoms.count)]))" : "(?!\(atoms[reader.choose(atoms.count)]))"
            case 6: item = "(?:" + pattern(&reader, depth: depth + 1) + "|" + pattern(&reader, depth: depth + 1) + ")"
            default: item = "(" + pattern(&reader, depth: depth + 1) + ")"
            }
            switch reader.choose(8) {
            case 0: item += "*"
            case 1: item += "+"
            case 2: item += "?"
            case 3: item += "{\(reader.choose(3)),\(2 + reader.choose(3))}"
            default: break
            }
            text += item
        }
        return text
    }

    private static func pack(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        var reader = ByteReader(input)
        var patterns: [(source: String, use: PatternUse)] = []
        for _ in 0..<(1 + reader.choose(4)) {
            patterns.append((pattern(&reader), reader.choose(2) == 0 ? .wholeSubject : .search))
        }
        let references = patterns.map { Reference($0.source, $0.use) }
        guard references.allSatisfy({ $0 != nil }) else { return [] }
        var yaml = "pack: fuzz\nfield: display-name\nrules:\n"
        for (index, pattern) in patterns.enumerated() {
            let kind = pattern.use == .wholeSubject ? "must-match" : "must-not-match"
            yaml += "  - {id: fuzz.r\(index), code: F\(index), kind: \(kind), message: m, pattern: '\(pattern.source.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''"))'}\n"
        }
        guard let pack = try? RulePackSet.parse(yaml, name: "fuzz.yaml"),
              let validator = try? DisplayNameValidator(packs: RulePackSet(packs: [pack])) else { return [] }
        var findings: [FuzzFinding] = []
        for _ in 0..<4 {
            var bytes: [UInt8] = []
            for _ in 0..<reader.choose(10) {
                bytes += Array(["a", "b", ".", "_", "é", "\n", "0", "x", " ", "😀", "\u{7}"][reader.choose(11)].utf8)
            }
            guard !bytes.isEmpty, let name = String(validating: bytes, as: UTF8.self) else { continue }
            var expected: [String] = []
            var decided = true
            for (index, reference) in references.enumerated() {
                guard let matches = bytes.withUnsafeBytes({ reference?.expected($0) }) ?? nil else {
                    decided = false
                    break
                }
                if matches != (patterns[index].use == .wholeSubject) { expected.append("fuzz.r\(index)") }
            }
            guard decided else { continue }
            let actual = validator.validate(name).violations.map(\.rule)
            if actual != expected {
                findings.append(FuzzFinding("pack \(patterns) on \(name.debugDescription): \(actual), PCRE2 \(expected)"))
            }
        }
        return findings
    }

    // MARK: - The reference

    /// PCRE2's answer for one pattern: the JIT's, or the interpreter's where they disagree on
    /// valid UTF-8; nil where they disagree on invalid UTF-8 or a match gave up.
    struct Reference {
        let source: String
        let jit: Pattern
        let interpreter: Pattern

        init?(_ source: String, _ use: PatternUse) {
            let anchoring: Pattern.Anchoring = use == .search ? .search : .wholeString
            guard let jit = try? Pattern(source, anchoring: anchoring, limits: PackCompilerHarness.limits),
                  let interpreter = try? Pattern(source, anchoring: anchoring, limits: PackCompilerHarness.limits, jit: false) else { return nil }
            (self.source, self.jit, self.interpreter) = (source, jit, interpreter)
        }

        func expected(_ subject: UnsafeRawBufferPointer) -> Bool? {
            let valid = isValidUTF8(subject)
            if !valid, source.contains("\\b") || source.contains("\\B") { return nil }
            guard let byJIT = try? jit.matches(utf8: subject), let byInterpreter = try? interpreter.matches(utf8: subject) else { return nil }
            guard byJIT != byInterpreter else { return byJIT }
            return valid ? byInterpreter : nil
        }
    }

    private static func compare(_ set: PatternSet, _ index: Int, _ reference: Reference, _ subject: UnsafeRawBufferPointer,
                                source: String) -> FuzzFinding? {
        guard let expected = reference.expected(subject) else { return nil }
        let actual = set.run(subject) & (1 << UInt64(index)) != 0
        switch set.strategies[index] {
        case .automaton where actual != expected:
            return FuzzFinding("automaton of `\(source)` says \(actual), PCRE2 \(expected), on \(Array(subject))")
        case .prefilter where expected && !actual:
            return FuzzFinding("prefilter of `\(source)` missed a match PCRE2 finds in \(Array(subject))")
        default:
            return nil
        }
    }
}
