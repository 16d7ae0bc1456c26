import RulesLanguage
import RulesPatterns

/// The rules evaluator against a deliberately naive reference, on generated programs.
///
/// The fuzz bytes decode to a small random Firestore rules program (``RulesProgramGenerator``:
/// nested and sibling `match` blocks with literals, `{x}` and `{x=**}`, `allow` statements with
/// conditions of depth ≤ 4, sometimes a `function f(x)`) and a request (method, a path built from
/// the program's literal segments and other words, signed in or not, small data maps).
///
/// Checks: the program compiles (the generator only writes valid programs); evaluation, with and
/// without a coverage collector, decides what ``NaiveRulesEvaluator`` decides by walking the
/// generator's own tree — except when the engine stops at one of its documented limits (the
/// reference has none), where it must deny.
public enum RulesDifferentialHarness {
    static let regex = PCRE2RegexEngine()

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        var generator = RulesProgramGenerator(ByteReader(input))
        let program = generator.program()
        let request = NaiveRequest.generate(&generator.reader, for: program)
        return compare(program, request)
    }

    /// Compiles and evaluates `program` on `request` and compares with the reference.
    static func compare(_ program: GenProgram, _ request: NaiveRequest, flaw: NaiveRulesEvaluator.Flaw = .none) -> [FuzzFinding] {
        let text = program.text
        let compiled = RulesCompiler.compile(text, name: "generated.rules", regexEngine: regex)
        guard let engine = compiled.program else {
            let errors = compiled.diagnostics.filter { $0.severity == .error }.map { "\($0.code): \($0.message)" }
            return [FuzzFinding("a generated program does not compile (\(errors.joined(separator: "; "))):\n\(text)")]
        }
        let rulesRequest = request.rulesRequest
        let decision = engine.evaluate(rulesRequest, lookup: EmptyDatabase())
        let covered = engine.evaluate(rulesRequest, lookup: EmptyDatabase(), coverage: CoverageCollector(program: engine))
        var findings: [FuzzFinding] = []
        if let limit = decision.requestError, limit.isLimit {
            // The reference has no limits (RL3012 steps, RL3018 matching, …): a limit denies the
            // whole request (documented), so only that is checked. Nested `{x=**}` blocks give
            // many candidates, each evaluated in turn, and can reach the 1,000-step budget.
            if decision.allowed || covered.allowed {
                findings.append(FuzzFinding("allowed despite \(limit) for \(request)\n\(text)"))
            }
            return findings
        }
        let expected = NaiveRulesEvaluator(program: program, request: request, flaw: flaw).allows()
        if decision.allowed != expected {
            findings.append(FuzzFinding("reference says \(expected), engine says \(decision.allowed) for \(request)\n\(text)"
                + decision.explanation(in: engine.source)))
        }
        if covered.allowed != decision.allowed {
            findings.append(FuzzFinding("with coverage the engine says \(covered.allowed), without \(decision.allowed) for \(request)\n\(text)"))
        }
        return findings
    }
}

extension NaiveRequest {
    static let methods = ["get", "list", "create", "update", "delete"]
    static let words = ["alice", "bob", "users", "x", "(default)", "databases", ""]
    static let texts = ["alice", "bob", "", "é"]
    static let numbers: [Int64] = [0, 1, 5, -1, 9_223_372_036_854_775_807]

    /// Decodes a request for `program`: usually a path that follows one branch of its match tree
    /// (literals as written, wildcards filled with words), otherwise 0–4 segments drawn from its
    /// literals, other words, the empty segment and raw bytes.
    static func generate(_ reader: inout ByteReader, for program: GenProgram) -> NaiveRequest {
        let flags = reader.byte()
        let method = methods[reader.choose(methods.count)]
        let vocabulary = program.literals + words
        func word() -> String {
            reader.choose(8) == 7 ? reader.pick([], excluding: UInt8(ascii: "/")) : vocabulary[reader.choose(vocabulary.count)]
        }
        var segments: [String] = []
        if reader.choose(4) == 3 {
            segments = (0..<reader.choose(5)).map { _ in word() }
        } else {
            var blocks = program.blocks
            while !blocks.isEmpty {
                let block = blocks[reader.choose(blocks.count)]
                for segment in block.pattern {
                    switch segment {
                    case .literal(let text): segments.append(text)
                    case .capture: segments.append(word())
                    case .rest: segments += (0..<reader.choose(3)).map { _ in word() }
                    }
                }
                blocks = reader.choose(2) == 1 ? block.children : []
            }
        }
        var uid: String?
        if flags & 1 != 0 {
            uid = flags & 2 != 0 && !segments.isEmpty ? segments[reader.choose(segments.count)] : ["alice", "bob"][reader.choose(2)]
        }
        let resource = flags & 4 == 0 ? nil : map(&reader, uid: uid)
        let requestResource = flags & 8 == 0 ? nil : map(&reader, uid: uid)
        return NaiveRequest(method: method, segments: segments, uid: uid, resource: resource, requestResource: requestResource)
    }

    static func map(_ reader: inout ByteReader, uid: String?) -> [String: Field] {
        var map: [String: Field] = [:]
        for _ in 0..<reader.choose(4) {
            let key = RulesProgramGenerator.dataKeys[reader.choose(RulesProgramGenerator.dataKeys.count)]
            switch reader.choose(5) {
            case 0: map[key] = .number(numbers[reader.choose(numbers.count)])
            case 1: map[key] = .text(texts[reader.choose(texts.count)])
            case 2: map[key] = .text(uid ?? "alice")
            case 3: map[key] = .flag(reader.choose(2) == 1)
            default: map[key] = .null
            }
        }
        return map
    }

    /// The same request for the engine.
    var rulesRequest: RulesRequest {
        func value(_ fields: [String: Field]) -> RulesLanguage.Value {
            .map(fields.mapValues { field in
                switch field {
                case .text(let text): .string(text)
                case .number(let number): .int(number)
                case .flag(let flag): .bool(flag)
                case .null: .null
                }
            })
        }
        return RulesRequest(service: .firestore, path: path, method: RequestMethod(rawValue: method) ?? .get,
                            auth: uid.map { Auth(uid: $0) }, resource: resource.map(value), requestResource: requestResource.map(value))
    }
}

/// What the `FuzzRulesEval` target runs: the first byte picks the harness (even:
/// ``RulesEvalHarness`` on the app's rules; odd: ``RulesDifferentialHarness`` on generated
/// rules), the rest of the input goes to it.
public enum RulesEvalTarget {
    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let selector = input.first else { return RulesEvalHarness.run(input) }
        let rest = UnsafeRawBufferPointer(rebasing: input.dropFirst())
        return selector & 1 == 0 ? RulesEvalHarness.run(rest) : RulesDifferentialHarness.run(rest)
    }
}
