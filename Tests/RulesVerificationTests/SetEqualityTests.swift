import Foundation
import RulesLanguage
import RulesTesting
import Testing
@testable import RulesVerification

/// Equality of sets: a key set (`keys()`, a diff's key sets) and a set of literal strings.
@Suite("set equality")
struct SetEqualityTests {
    @Test("affectedKeys() == a literal set: exactly those keys are affected")
    func affectedEqualsLiteral() throws {
        let rules = DocUpdate.rules("\(DocUpdate.diff).affectedKeys() == ['title', 'body'].toSet()")
        let onlyIf = try verifyOne(rules, DocUpdate.property("only-if", "\(DocUpdate.diff).affectedKeys().hasOnly(['title', 'body']) && \(DocUpdate.diff).affectedKeys().size() == 2"))
        #expect(onlyIf.verdict == .holds, "\(onlyIf.reason ?? "")")
        let possible = try verifyOne(rules, DocUpdate.property("possible", nil))
        #expect(possible.verdict == .holds, "\(possible.reason ?? "")")
        #expect(possible.witness?.contains("\"title\"") == true)
    }

    @Test("keys() == a literal set, and literal sets compared with each other")
    func keysEqualsLiteral() throws {
        let rules = DocUpdate.rules("request.resource.data.keys() == ['a', 'b', 'a'].toSet() && ['x', 'y'].toSet() == ['y', 'x'].toSet()")
        let onlyIf = try verifyOne(rules, DocUpdate.property("only-if", "request.resource.data.size() == 2 && 'b' in request.resource.data"))
        #expect(onlyIf.verdict == .holds, "\(onlyIf.reason ?? "")")
        let never = try verifyOne(DocUpdate.rules("['x'].toSet() == ['y'].toSet()"), DocUpdate.property("never", nil))
        #expect(never.verdict == .holds, "\(never.reason ?? "")")
    }

    @Test("a literal set's size, membership and hasAll/hasOnly with a set argument")
    func literalSetMethods() throws {
        let rules = DocUpdate.rules("\(DocUpdate.diff).affectedKeys().hasOnly(['a', 'b'].toSet()) && ['a', 'b'].toSet().size() == 2 && 'a' in ['a'].toSet()")
        let onlyIf = try verifyOne(rules, DocUpdate.property("only-if", "!\(DocUpdate.diff).affectedKeys().hasAny(['c'])"))
        #expect(onlyIf.verdict == .holds, "\(onlyIf.reason ?? "")")
    }

    @Test("a set is never equal to a list")
    func setIsNotList() throws {
        let never = try verifyOne(DocUpdate.rules("\(DocUpdate.diff).affectedKeys() == ['a']"), DocUpdate.property("never", nil))
        #expect(never.verdict == .holds, "\(never.reason ?? "")")
    }

    @Test("two key sets of maps: not modelled, unknown with the construct and its location")
    func twoMapKeySets() throws {
        let result = try verifyOne(DocUpdate.rules("request.resource.data.keys() == resource.data.keys()"), DocUpdate.property("only-if", "request.resource.data.size() == resource.data.size()"))
        #expect(result.verdict == .unknown)
        #expect(result.reason?.contains("equality of two key sets of maps at test.rules:5:") == true, "\(result.reason ?? "")")
    }
}
