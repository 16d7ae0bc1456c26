import Foundation
import RulesLanguage
import RulesTesting
import Testing
@testable import RulesVerification

/// `lower()`/`upper()` of computed strings, compared with literals beyond ASCII: the strings
/// Swift's `==` finds equal to the literals are pushed back through the real case mapping to one
/// regex of the original string, so the verifier decides (a proof, or a witness that replays).
@Suite("lower() and upper() beyond ASCII")
struct CaseMappingTests {
    static func rules(_ condition: String) -> String {
        """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /names/{id} {
              allow get: if \(condition);
            }
          }
        }
        """
    }

    static func property(_ kind: String, _ condition: String? = nil) -> String {
        let tail = condition.map { ", \"condition\": \"\($0)\"" } ?? ""
        return "{\"name\": \"p\", \"path\": \"/databases/{database}/documents/names/{id}\", \"methods\": [\"get\"], \"kind\": \"\(kind)\"\(tail)}"
    }

    /// The document id of a witness's path.
    static func witnessID(_ witness: String) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(witness.utf8)) as? [String: Any])
        let path = try #require(object["path"] as? String, "\(witness)")
        return try #require(path.split(separator: "/").last.map(String.init))
    }

    @Test("possible: a name whose lower()/upper() is a non-ASCII literal has a witness that replays", arguments: [
        ("id.lower() == 'élise'", CaseMapping.lower, ["élise"], nil as Int?),
        ("id.upper() == 'ÉLISE'", .upper, ["ÉLISE"], nil),
        ("id.lower() == 'straße' && id.size() == 6", .lower, ["straße"], 6),
        ("id.upper() == 'STRASSE' && id.size() == 6", .upper, ["STRASSE"], 6),
        ("id.lower() in ['zoë', 'ægir', 'σοφία']", .lower, ["zoë", "ægir", "σοφία"], nil),
        ("id.upper() == 'ΣΟΦΊΑ' && id.lower() == 'σοφία'", .lower, ["σοφία"], nil),
        ("id.lower() == 'i̇stanbul'", .lower, ["i̇stanbul"], nil),
        ("id.lower() == 'дом'", .lower, ["дом"], nil),
    ])
    func possible(condition: String, mapping: CaseMapping, literals: [String], size: Int?) throws {
        let result = try verifyOne(Self.rules(condition), Self.property("possible"))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        let witness = try #require(result.witness, "\(result.reason ?? "")")
        let id = try Self.witnessID(witness)
        #expect(literals.contains(mapping.apply(id)), "id \(id) of \(witness)")
        if let size { #expect(id.unicodeScalars.count == size, "id \(id)") }
    }

    @Test("possible but impossible: no string lowercases to a capital or uppercases to ß, and lower() decides upper() here (a proof)", arguments: [
        "id.lower() == 'É'", "id.upper() == 'straße'", "id.lower() == 'ÉLISE'", "id.lower() == 'élise' && id.size() > 6",
        "id.upper() == 'SS' && id.size() > 2", "id.upper() != 'ΣΟΦΊΑ' && id.lower() == 'σοφία'",
    ])
    func impossible(condition: String) throws {
        let result = try verifyOne(Self.rules(condition), Self.property("possible"))
        #expect(result.verdict == .violated, "\(result.reason ?? "")")
        #expect(result.witness == nil)
    }

    @Test("only-if that holds: every name with lower() 'élise' (or upper() 'SS') is at most 6 (2) scalars", arguments: [
        ("id.lower() == 'élise'", "id.size() <= 6"),
        ("id.upper() == 'SS'", "id.size() <= 2"),
        ("id.lower() in ['élise', 'zoë']", "id.lower() != 'ÉLISE'"),
    ])
    func onlyIfHolds(rule: String, condition: String) throws {
        let result = try verifyOne(Self.rules(rule), Self.property("only-if", condition))
        #expect(result.verdict == .holds, "\(result.reason ?? "")")
        #expect(result.witness == nil)
    }

    @Test("only-if that breaks: a name whose lower() is 'élise' is allowed, with a witness that replays")
    func onlyIfViolated() throws {
        let result = try verifyOne(Self.rules("true"), Self.property("only-if", "!(id.lower() == 'élise')"))
        #expect(result.verdict == .violated, "\(result.reason ?? "")")
        let witness = try #require(result.witness, "\(result.reason ?? "")")
        #expect(CaseMapping.lower.apply(try Self.witnessID(witness)) == "élise", "\(witness)")
    }

    @Test("only uses other than tests against literals are recorded as not modelled exactly, at their location")
    func otherUsesRecorded() throws {
        let program = try compile(Self.rules("id.lower() == 'élise' || id.upper().size() == 7"))
        let file = try properties(propertyFile([Self.property("possible", "id.lower() != 'zoë'")]))
        let property = try #require(file.properties.first)
        let shape = try #require(PathShape.shapes(for: property, rules: program.file).first)
        let encoder = Encoder(program: program, method: .get)
        encoder.setUpRequest(shape: shape)
        let allowed = encoder.allowed()
        let condition = encoder.encodeCondition(try #require(property.condition), source: property.conditionSource,
                                                variables: encoder.pathVariables())
        encoder.assert(SMT.and([allowed, encoder.truth(condition).isTrue]))
        encoder.finish()
        #expect(encoder.abstractions.map(\.construct) == ["`upper()` of a computed string used other than in `==`, `!=` or `in` against literals"])
        #expect(encoder.abstractions.map(\.location) == ["test.rules:5:46"])
        #expect(encoder.caseMappings.map(\.0) == ["upper"])
        let script = (encoder.declarations + encoder.assertions).joined(separator: "\n")
        #expect(!script.contains("(|lower| "))
        #expect(script.contains("(|upper| "))
    }

    @Test("diff: lower() against a literal and `in` a one-literal list are equivalent; a narrower spelling is found")
    func diff() throws {
        let body = { (condition: String) in firestoreRules("    match /names/{id} { allow get: if \(condition); }") }
        let same = try diffRules(body("id.lower() == 'élise'"), body("id.lower() in ['élise']"))
        #expect(same.verdict == .equivalent, "\(same.summary)")
        let narrower = try diffRules(body("id.lower() == 'élise'"), body("id == 'élise' || id == 'Élise'"))
        #expect(narrower.verdict == .narrower, "\(narrower.summary)")
        let change = try #require(narrower.change("/names/{id}", .get), "\(narrower.summary)")
        let witness = try #require(change.newlyDenied)
        let id = try Self.witnessID(witness)
        #expect(CaseMapping.lower.apply(id) == "élise" && id != "élise" && id != "Élise", "\(witness)")
    }
}

// MARK: - The preimage against brute force

extension CharAutomaton {
    func accepts(_ text: String) -> Bool {
        !reading(start, text.unicodeScalars.map(\.value)).isDisjoint(with: finals)
    }
}

@Suite("case-mapping preimages agree with Swift")
struct CaseMappingPreimageTests {
    /// Letters and marks whose case mapping or canonical decomposition is unusual: Latin-1,
    /// Latin Extended, Greek (final sigma, accented capitals), Cyrillic, dotted and dotless i,
    /// sharp s, ligatures, compatibility signs and combining marks.
    static let pool: [String] = [
        "a", "A", "e", "E", "i", "I", "k", "K", "s", "S", "n", "N", "f", "t",
        "é", "É", "e\u{301}", "E\u{301}", "ë", "Ë", "æ", "Æ", "ø", "ÿ", "Ÿ", "ß", "ẞ",
        "Ł", "ł", "ǅ", "ǆ", "Ǆ", "ſ", "ŉ", "İ", "ı", "i\u{307}",
        "Σ", "σ", "ς", "Ά", "ά", "ΐ", "Ω", "\u{2126}", "\u{212A}", "\u{212B}", "Å",
        "Д", "д", "Ё", "ё", "ﬁ", "ﬀ", "ﬆ",
        "\u{301}", "\u{307}", "\u{323}", "\u{308}",
    ]

    @Test("lower()/upper() as tables equal Swift's functions on whole strings (no context: final Σ is σ)")
    func tablesAreTheFunctions() {
        var generator = SeededGenerator(state: 7)
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 1...6, using: &generator)).map { _ in Self.pool.randomElement(using: &generator) ?? "" }.joined()
            let scalars = text.unicodeScalars.map(\.value)
            #expect(ScalarMap.lowercase.image(of: scalars) == CaseMapping.lower.apply(text).unicodeScalars.map(\.value), "\(text)")
            #expect(ScalarMap.uppercase.image(of: scalars) == CaseMapping.upper.apply(text).unicodeScalars.map(\.value), "\(text)")
        }
    }

    @Test("the preimage of a literal under lower()/upper() is exactly the strings whose mapping == the literal")
    func preimagesAgreeWithBruteForce() throws {
        var generator = SeededGenerator(state: 2026)
        // Candidates: every pool item, and random strings of two to five.
        var candidates = Self.pool
        for _ in 0..<1200 {
            candidates.append((Self.pool.randomElement(using: &generator) ?? "") + (Self.pool.randomElement(using: &generator) ?? ""))
        }
        for _ in 0..<400 {
            candidates.append((0..<Int.random(in: 3...5, using: &generator)).map { _ in Self.pool.randomElement(using: &generator) ?? "" }.joined())
        }
        // Literals: mapped candidates (so preimages are not empty), their other normal forms, and
        // random strings.
        var literals: Set<String> = []
        for mapping in CaseMapping.allCases {
            for _ in 0..<40 {
                let text = candidates.randomElement(using: &generator) ?? ""
                let mapped = mapping.apply(text)
                literals.insert(mapped)
                literals.insert(String(String.UnicodeScalarView(mapped.decomposedStringWithCanonicalMapping.unicodeScalars)))
            }
        }
        for _ in 0..<20 { literals.insert(candidates.randomElement(using: &generator) ?? "") }
        // Images of several scalars (İ, ß, ŉ, ΐ, ﬁ, ﬀ, ﬆ) next to other letters.
        for mapping in CaseMapping.allCases {
            for a in Self.pool where mapping.apply(a).unicodeScalars.count > a.unicodeScalars.count {
                for _ in 0..<4 {
                    let b = Self.pool.randomElement(using: &generator) ?? ""
                    literals.insert(mapping.apply(a + b))
                    literals.insert(mapping.apply(b + a))
                }
            }
        }
        var accepted = 0, multiScalar = 0, decomposed = 0
        for literal in literals.sorted() {
            let equal = try #require(CharAutomaton.canonicallyEqual(to: [literal]))
            for mapping in CaseMapping.allCases {
                let preimage = equal.preimage(.caseMapping(mapping))
                let map = ScalarMap.of(mapping)
                for candidate in candidates {
                    let expected = mapping.apply(candidate) == literal
                    #expect(preimage.accepts(candidate) == expected, "\(mapping)(\(candidate.debugDescription)) == \(literal.debugDescription)")
                    guard expected else { continue }
                    accepted += 1
                    if candidate.unicodeScalars.contains(where: { map.image($0.value).count > 1 }) { multiScalar += 1 }
                    if mapping.apply(candidate).unicodeScalars.elementsEqual(literal.unicodeScalars) == false { decomposed += 1 }
                }
            }
        }
        // The sample reaches the branches that matter: images of several scalars (İ, ß, ﬁ, ŉ, ΐ)
        // and matches only canonical equivalence explains (é against e + U+0301).
        #expect(accepted >= 180, "\(accepted) accepted")
        #expect(multiScalar >= 55, "\(multiScalar) with a multi-scalar image")
        #expect(decomposed >= 20, "\(decomposed) equal only canonically")
    }

    @Test("the strings == finds equal to a literal: reordered combining marks, decomposed and composed forms")
    func canonicalClass() throws {
        let literal = "e\u{323}\u{302}"  // ệ in normal form: dot below (220) before circumflex (230)
        let equal = try #require(CharAutomaton.canonicallyEqual(to: [literal]))
        for candidate in ["ệ", "e\u{323}\u{302}", "e\u{302}\u{323}", "ẹ\u{302}", "ê\u{323}", "ệ\u{0}", "e\u{302}", "ê"] {
            #expect(equal.accepts(candidate) == (candidate == literal), "\(candidate.debugDescription)")
        }
    }
}
