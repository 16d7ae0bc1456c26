import Dispatch
import Foundation
import Patterns
import PropertyBased
import RulesTestSupport
import Testing

@Suite struct PatternMatchingTests {
    static let displayName = #"(?!\.)(?!.*\.\.)(?!.*\.$)[A-Za-z0-9._]{3,30}"#

    @Test func wholeStringMatchIsNotFooledByTrailingNewline() throws {
        let pattern = try Pattern(#"[a-z]+$"#)
        #expect(try pattern.matches("bob"))
        #expect(try !pattern.matches("bob\n"))
        #expect(try !pattern.matches("bob\r\n"))
        #expect(try !pattern.matches("bob\nx"))
    }

    @Test func unbalancedSourceCannotEscapeAnchoring() throws {
        // Wrapping text as `\A(?:…)\z` would let `a)|(b` escape; compile options cannot be escaped.
        #expect(throws: PatternError.self) { try Pattern("a)|(b") }
        let alternation = try Pattern("a|b")
        #expect(try alternation.matches("a"))
        #expect(try !alternation.matches("ab"))
    }

    @Test func searchFindsMatchesAnywhere() throws {
        let pattern = try Pattern(#"\.\."#, anchoring: .search)
        #expect(try pattern.matches("john..doe"))
        #expect(try !pattern.matches("john.doe"))
        #expect(try pattern.firstMatch(in: "ab..c") == 2..<4)
        #expect(try pattern.allMatches(in: "a..b....c").count == 3)
    }

    @Test func emptyMatchesAdvanceByWholeCodePoints() throws {
        let pattern = try Pattern("x*", anchoring: .search)
        // "é" is two bytes; an empty match must not split it.
        let ranges = try pattern.allMatches(in: "éx")
        #expect(ranges == [0..<0, 2..<3, 3..<3])
    }

    @Test func utfModeCountsCodePoints() throws {
        let threeChars = try Pattern(".{3}")
        #expect(try threeChars.matches("ééé"))
        #expect(try !threeChars.matches("éé"))
    }

    @Test func kelvinSignIsNotAnAsciiLetter() throws {
        let letters = try Pattern("[A-Za-z]+")
        #expect(try !letters.matches("\u{212A}elvin"))
        #expect(try letters.matches("Kelvin"))
    }

    @Test func emptySubjectMatchesOnlyPatternsThatAllowIt() throws {
        #expect(try Pattern("a*").matches(""))
        #expect(try !Pattern("a+").matches(""))
    }

    @Test func displayNamePatternAgreesWithExpectations() throws {
        let pattern = try Pattern(Self.displayName)
        for valid in ["abc", "john.doe", "a_b", String(repeating: "x", count: 30)] {
            #expect(try pattern.matches(valid), "\(valid)")
        }
        for invalid in ["ab", ".abc", "abc.", "a..b", String(repeating: "x", count: 31), "ab c", "abc\n"] {
            #expect(try !pattern.matches(invalid), "\(invalid.debugDescription)")
        }
    }
}

@Suite struct PatternErrorTests {
    @Test func compileErrorsCarryMessageAndOffset() {
        #expect {
            try Pattern("abc(def")
        } throws: { error in
            guard case let .compile(message, offset) = error as? PatternError else { return false }
            return message.contains("missing closing parenthesis") && offset == 7
        }
        #expect {
            try Pattern("ab[")
        } throws: { error in
            guard case let .compile(_, offset) = error as? PatternError else { return false }
            return offset == 3
        }
    }

    @Test(arguments: [true, false])
    func catastrophicBacktrackingHitsTheMatchLimit(jit: Bool) throws {
        let pattern = try Pattern("^(a+)+$", jit: jit)
        let subject = String(repeating: "a", count: 35) + "!"
        #expect(throws: PatternError.matchLimitExceeded) { try pattern.matches(subject) }
        #expect(try !pattern.matches("b"))
    }

    @Test func interpreterDepthLimitIsEnforced() throws {
        let limits = MatchLimits(matchLimit: 10_000_000, depthLimit: 20)
        let pattern = try Pattern("^(a+)+$", limits: limits, jit: false)
        #expect(throws: PatternError.depthLimitExceeded) {
            try pattern.matches(String(repeating: "a", count: 35) + "!")
        }
    }

    @Test func limitErrorsAreClassified() {
        #expect(PatternError.matchLimitExceeded.isLimitExceeded)
        #expect(!PatternError.compile(message: "x", offset: 0).isLimitExceeded)
    }
}

@Suite struct PatternByteInputTests {
    @Test(arguments: [true, false])
    func invalidUTF8NeverMatchesAndNeverCrashes(jit: Bool) throws {
        let anything = try Pattern(".*", jit: jit)
        let bytes: [UInt8] = [0x61, 0x62, 0xC3, 0x28, 0x63]
        let matched = try bytes.withUnsafeBytes { try anything.matches(utf8: $0) }
        #expect(!matched)
        let prefix = try Pattern("ab", jit: jit)
        let prefixMatched = try bytes.withUnsafeBytes { try prefix.matches(utf8: $0) }
        #expect(!prefixMatched, "a valid prefix before invalid bytes is not the whole string")
        let search = try Pattern("c", anchoring: .search, jit: jit)
        let found = try bytes.withUnsafeBytes { try search.firstMatch(utf8: $0) }
        #expect(found == 4..<5, "a search still finds matches after invalid bytes")
    }

    @Test func validBytesMatchLikeStrings() throws {
        let pattern = try Pattern("[a-z]+")
        let matched = try Array("hello".utf8).withUnsafeBytes { try pattern.matches(utf8: $0) }
        #expect(matched)
    }

    /// Generated subjects, valid and invalid UTF-8: the pattern never traps, only valid UTF-8
    /// can match, and both outcomes come up often enough to mean something.
    @Test func arbitraryBytesNeverTrap() throws {
        let pattern = try Pattern(PatternMatchingTests.displayName)
        var random = SplitMix(seed: 3)
        var matched = 0, invalid = 0, unmatchedValid = 0
        let hints = ["john", "doe", "jane.doe", "a_b", "x9"]
        for _ in 0..<20_000 {
            let bytes = SubjectGenerator.subject(using: &random, hints: hints)
            let result: Bool? = bytes.withUnsafeBytes { raw in try? pattern.matches(utf8: raw) }
            let valid = String(validating: bytes, as: UTF8.self) != nil
            #expect(result != nil, "\(bytes)")
            if result == true {
                matched += 1
                #expect(valid, "only valid UTF-8 can match: \(bytes)")
            } else if valid {
                unmatchedValid += 1
            } else {
                invalid += 1
            }
        }
        #expect(matched >= 1_000, "\(matched) subjects matched")
        #expect(unmatchedValid >= 1_000 && invalid >= 1_000, "\(unmatchedValid) valid and \(invalid) invalid subjects unmatched")
    }
}

@Suite struct PatternConcurrencyTests {
    @Test func sharedPatternGivesTheSameAnswersOnEveryThread() throws {
        let pattern = try Pattern(PatternMatchingTests.displayName)
        let inputs = (0..<20_000).map { i in i % 3 == 0 ? "user.\(i)" : (i % 3 == 1 ? "..\(i)" : "u\(i)_x") }
        let expected = try inputs.filter { try pattern.matches($0) }.count
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: 8)
        defer { counts.deallocate() }
        counts.initialize(repeating: -1)
        nonisolated(unsafe) let shared = counts
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            shared[worker] = inputs.reduce(0) { $0 + ((try? pattern.matches($1)) == true ? 1 : 0) }
        }
        #expect(expected == inputs.count / 3 * 2 + (inputs.count % 3 == 2 ? 1 : 0))
        #expect(Array(counts) == Array(repeating: expected, count: 8))
    }
}

@Suite struct PCRE2RuntimeTests {
    @Test func reportsVersionAndJIT() {
        #expect(PCRE2Runtime.version.hasPrefix("10."))
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        // Debian's and Ubuntu's libpcre2 ship the JIT on these CPUs (scripts/bootstrap installs it).
        #expect(PCRE2Runtime.hasJIT, "libpcre2 without a JIT: matching runs interpreted, 3-6 times slower")
        #endif
    }

    @Test func jitFlagAgreesWithTheRuntime() throws {
        // A pattern is JIT-compiled exactly when the runtime has a JIT and the caller asked for it.
        #expect(try Pattern("[a-z]+").isJITCompiled == PCRE2Runtime.hasJIT)
        #expect(try !Pattern("[a-z]+", jit: false).isJITCompiled)
    }
}

@Suite struct DollarEndOnlyTests {
    @Test func dollarMatchesOnlyAtTheEndWhenAsked() throws {
        #expect(try Pattern("a$\n").matches("a\n"))
        #expect(try !Pattern("a$\n", dollarEndOnly: true).matches("a\n"))
        #expect(try Pattern("a$", anchoring: .search, dollarEndOnly: true).firstMatch(in: "a\n") == nil)
        #expect(try Pattern("a$", anchoring: .search).firstMatch(in: "a\n") == 0..<1)
    }
}
