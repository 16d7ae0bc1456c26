@testable import FuzzHarness
import PropertyBased
import Testing

/// The generated-rules differential (issue 6): the engine agrees with the naive reference on
/// generated programs, and the comparison can fail. A property failure prints the input bytes and
/// the seed (`.fixedSeed("…")` replays it).
@Suite struct RulesDifferentialTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16) }.joined(separator: " ") }

    @Test func engineAgreesWithTheNaiveReferenceOnGeneratedPrograms() async {
        await propertyCheck(count: 3000, input: Gen.uint8().array(of: 0...160)) { bytes in
            let findings = bytes.withUnsafeBytes { RulesDifferentialHarness.run($0) }
            #expect(findings.isEmpty, "bytes [\(Self.hex(bytes))]: \(findings)")
        }
    }

    /// Fuzz bytes decode to programs that use the whole generator (nesting, `=**`, functions) and
    /// to requests that are granted as well as denied.
    @Test func generatorReachesEveryConstruct() async {
        var texts: [String] = []
        var grants = 0
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...160)) { bytes in
            bytes.withUnsafeBytes { buffer in
                var generator = RulesProgramGenerator(ByteReader(buffer))
                let program = generator.program()
                texts.append(program.text)
                let request = NaiveRequest.generate(&generator.reader, for: program)
                if NaiveRulesEvaluator(program: program, request: request).allows() { grants += 1 }
            }
        }
        // Both decisions are common, so agreeing means something.
        #expect(grants >= 40 && grants <= 460, "\(grants) of 500 generated requests granted")
        for construct in ["=**}", "function f(x)", "f(", " in [", ".size()", " is ", " ? ", "&&", "||", "!(", "request.auth.uid",
                          "resource.data.", "request.resource.data.", "      match /", "    function f(x)"] {
            #expect(texts.contains { $0.contains(construct) }, "no generated program contains `\(construct)`")
        }
    }

    // MARK: - The comparison can fail

    static func program(_ pattern: [GenSegment], _ allow: GenAllow) -> GenProgram {
        GenProgram(function: nil, blocks: [GenBlock(pattern: pattern, allows: [allow], children: [])])
    }

    static let users: [GenSegment] = [.literal("users"), .capture("userId")]

    @Test func aReferenceWhereReadMissesListIsCaught() {
        let program = Self.program(Self.users, GenAllow(methods: ["read"], condition: .bool(true)))
        let request = NaiveRequest(method: "list", segments: ["users", "alice"], uid: nil)
        #expect(RulesDifferentialHarness.compare(program, request).isEmpty)
        #expect(RulesDifferentialHarness.compare(program, request, flaw: .readDoesNotCoverList).count == 1)
    }

    @Test func aReferenceThatTurnsErrorsIntoFalseIsCaught() {
        // `!(error || false)` is an error (denied); a reference that absorbs the error as false allows.
        let missing = GenExpr.binary(.equal, .data(afterWrite: false, key: "name"), .string("a"))
        let program = Self.program(Self.users, GenAllow(methods: ["get"], condition: .not(.binary(.or, missing, .bool(false)))))
        let request = NaiveRequest(method: "get", segments: ["users", "alice"], uid: "alice")
        #expect(RulesDifferentialHarness.compare(program, request).isEmpty)
        #expect(RulesDifferentialHarness.compare(program, request, flaw: .errorAbsorbedAsFalse).count == 1)
    }

    // MARK: - Known answers

    /// Conditions on `get /users/alice` signed in as `alice` with no document, and whether they grant.
    static let known: [(String, GenExpr, Bool)] = [
        ("error || true grants", .binary(.or, .binary(.divide, .int(1), .int(0)), .bool(true)), true),
        ("true || error grants", .binary(.or, .bool(true), .data(afterWrite: false, key: "name")), true),
        ("!(error && false) grants", .not(.binary(.and, .data(afterWrite: true, key: "age"), .bool(false))), true),
        ("error && true denies", .binary(.and, .authIsNull(false), .binary(.less, .int(1), .string("a"))), false),
        ("overflow denies", .binary(.greater, .binary(.add, .int(.max), .int(1)), .int(0)), false),
        ("size counts scalars", .binary(.equal, .size(.string("é")), .int(1)), true),
        ("wildcard equals uid", .binary(.equal, .variable("userId"), .authUid), true),
        ("1 + 'a' denies", .binary(.notEqual, .binary(.add, .int(1), .string("a")), .int(0)), false),
        ("null field denies", .not(.binary(.equal, .data(afterWrite: false, key: "name"), .null)), false),
        ("int is number", .isType(.int(2), "number"), true),
        ("non-bool condition denies", .string("true"), false),
        ("ternary on a non-bool denies", .ternary(.int(1), .bool(true), .bool(true)), false),
    ]

    @Test(arguments: known.indices)
    func referenceAndEngineGiveTheKnownAnswer(_ index: Int) {
        let (name, condition, expected) = Self.known[index]
        let program = Self.program(Self.users, GenAllow(methods: ["read"], condition: condition))
        let request = NaiveRequest(method: "get", segments: ["users", "alice"], uid: "alice")
        #expect(NaiveRulesEvaluator(program: program, request: request).allows() == expected, "\(name)")
        #expect(RulesDifferentialHarness.compare(program, request).isEmpty, "\(name)")
    }
}

extension RulesDifferentialTests {
    /// A function declared at service scope reads the global `resource`, even when called from a
    /// block whose wildcard is named `resource` (lexical resolution, docs/RULES-LANGUAGE.md).
    @Test func aFunctionSeesTheGlobalResourceNotACallersWildcard() {
        let body = GenExpr.binary(.equal, .data(afterWrite: false, key: "name"), .string("a"))
        let program = GenProgram(function: body, blocks: [
            GenBlock(pattern: [.literal("users"), .capture("resource")], allows: [GenAllow(methods: ["get"], condition: .call(.int(1)))], children: []),
        ])
        let request = NaiveRequest(method: "get", segments: ["users", "alice"], uid: nil, resource: ["name": .text("a")])
        #expect(NaiveRulesEvaluator(program: program, request: request).allows())
        #expect(RulesDifferentialHarness.compare(program, request).isEmpty, "\(RulesDifferentialHarness.compare(program, request))")
    }

    /// A function declared in the root block sees its `database`, not a deeper wildcard of that name.
    @Test func aFunctionInTheRootBlockSeesItsOwnDatabaseWildcard() {
        let body = GenExpr.binary(.equal, .variable("database"), .string("(default)"))
        let program = GenProgram(function: body, blocks: [
            GenBlock(pattern: [.literal("users"), .capture("database")], allows: [GenAllow(methods: ["get"], condition: .call(.int(1)))], children: []),
        ], functionInRoot: true)
        let request = NaiveRequest(method: "get", segments: ["users", "alice"], uid: nil)
        #expect(NaiveRulesEvaluator(program: program, request: request).allows())
        #expect(RulesDifferentialHarness.compare(program, request).isEmpty, "\(RulesDifferentialHarness.compare(program, request))")
    }
}
