import DatabaseRules
import Diagnostics
import Foundation
import RulesPatterns

/// The database rules reader, parser and checker on arbitrary bytes.
///
/// Checks: compiling never traps and never reports an internal error (`RD9001`); every
/// diagnostic has an `RD` code and a span inside the source; rules that compile print to text
/// that compiles to the same tree, and printing is a fixed point after one round.
public enum DatabaseParserHarness {
    static let regex = PCRE2DatabaseRegexEngine()

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        let source = SourceFile(name: "fuzz.json", text: String(decoding: input, as: UTF8.self))
        let result = DatabaseRulesCompiler.compile(source, regexEngine: regex)
        var findings: [FuzzFinding] = []
        for diagnostic in result.diagnostics {
            if diagnostic.code == DatabaseCode.internalError || !diagnostic.code.hasPrefix("RD") {
                findings.append(FuzzFinding("diagnostic \(diagnostic.code): \(diagnostic.message)"))
            }
            if let span = diagnostic.span, span.start < 0 || span.start > span.end || span.end > source.bytes.count {
                findings.append(FuzzFinding("\(diagnostic.code) span \(span.start)..<\(span.end) outside a \(source.bytes.count)-byte source"))
            }
        }
        guard let program = result.program else {
            if !result.hasErrors { findings.append(FuzzFinding("no program and no error")) }
            return findings
        }
        let printed = DatabaseRulesPrinter.print(program.root)
        let again = DatabaseRulesCompiler.compile(SourceFile(name: "printed.json", text: printed), regexEngine: regex)
        if let reparsed = again.program {
            if !reparsed.root.sameRules(as: program.root) {
                findings.append(FuzzFinding("printed rules compile to a different tree:\n\(printed)"))
            } else if DatabaseRulesPrinter.print(reparsed.root) != printed {
                findings.append(FuzzFinding("printing is not stable after one round:\n\(printed)"))
            }
        } else {
            findings.append(FuzzFinding("printed rules do not compile: \(again.diagnostics.map(\.message))\n\(printed)"))
        }
        return findings
    }
}

/// Evaluates the app's `rules/database.rules.json` on requests derived from the fuzz bytes
/// (read, set or update; paths under and beside `/userPresence`; signed out, owner or another
/// user; small presence records with valid and invalid fields; stored data).
///
/// Checks: evaluation never traps; a refused request never allows; an allow has a grant for
/// every write location and no failed `.validate`; evaluating again with coverage, and deciding
/// with ``DatabaseProgram/isAllowed(_:data:)``, give the same verdict; and a full-record `set` or a read at `/userPresence/{uid}` is decided as
/// ``PresenceReference`` (the presence policy written out by hand) decides it.
public enum DatabaseEvalHarness {
    static let program: DatabaseProgram? = {
        guard let text = try? String(contentsOf: repositoryRoot.appendingPathComponent("rules/database.rules.json"), encoding: .utf8) else { return nil }
        return DatabaseRulesCompiler.compile(SourceFile(name: "database.rules.json", text: text), regexEngine: PCRE2DatabaseRegexEngine()).program
    }()

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let program else { return [FuzzFinding("the app's database rules do not compile")] }
        var reader = ByteReader(input)
        let now = 1_767_225_600_000.0
        let uid = reader.pick(["alice", "bob", "a.b", ""])
        let auth: JSONValue? = [nil, .object(["uid": .string("alice")]), .object(["uid": .string("bob")])][reader.choose(3)]
        let status: JSONValue = [.string("online"), .string("offline"), .string("away"), .string(reader.pick(["busy"])), .number(1)][reader.choose(5)]
        let lastSeen: JSONValue = [.object([".sv": .string("timestamp")]), .number(now), .number(now - 1), .string("x")][reader.choose(4)]
        var record: [String: JSONValue] = [:]
        if reader.choose(5) > 0 { record["status"] = status }
        if reader.choose(5) > 0 { record["lastSeen"] = lastSeen }
        if reader.choose(2) == 0 { record["displayName"] = .string(reader.pick(["alice_1", "a.b.c", ".x", "ab"])) }
        if reader.choose(6) == 0 { record[reader.pick(["mood", "x"])] = .bool(true) }
        let stored: DataNode? = reader.choose(2) == 0 ? nil
            : .branch(["userPresence": .branch(["alice": .branch(["status": .leaf(.string("online"), priority: nil),
                                                                  "lastSeen": .leaf(.number(now - 5), priority: nil)], priority: nil)], priority: nil)], priority: nil)
        let suffix = reader.pick(["", "/status", "/lastSeen", "/displayName", "/other"])
        let path = reader.choose(6) == 0 ? "/" + reader.pick(["userPresence", "users/alice", ""]) : "/userPresence/\(uid)\(suffix)"
        let operation: DatabaseRequest.Operation
        switch reader.choose(3) {
        case 0: operation = .read(DatabaseQuery())
        case 1: operation = .set(suffix.isEmpty ? (reader.choose(6) == 0 ? .null : .object(record)) : (record.first?.value ?? .null))
        default: operation = .update(record.isEmpty ? ["status": .null] : record)
        }
        let request = DatabaseRequest(path: path, operation: operation, auth: auth, now: now)
        let decision = program.evaluate(request, data: stored)
        var findings: [FuzzFinding] = []
        if decision.allowed {
            if decision.refusal != nil { findings.append(FuzzFinding("allowed despite a refused request")) }
            if !decision.failedValidations.isEmpty || !decision.deniedLocations.isEmpty || decision.grants.isEmpty {
                findings.append(FuzzFinding("allowed with a failed validation or an ungranted location"))
            }
        }
        let coverage = DatabaseCoverage(program: program)
        if program.evaluate(request, data: stored, explain: false, coverage: coverage).allowed != decision.allowed {
            findings.append(FuzzFinding("coverage or explanation changed the decision for \(path)"))
        }
        if program.isAllowed(request, data: stored) != decision.allowed {
            findings.append(FuzzFinding("the verdict-only path decided \(path) differently"))
        }
        if suffix.isEmpty, path == "/userPresence/\(uid)", !uid.isEmpty, !uid.contains("/"), decision.refusal == nil {
            var expected: Bool?
            switch operation {
            case .read: expected = PresenceReference.canRead(auth: auth)
            // `{}` deletes, like null (reference §6.3).
            case .set(.object(let fields)) where fields.isEmpty: expected = PresenceReference.canDelete(uid: uid, auth: auth)
            case .set(.object(let fields)): expected = PresenceReference.canSet(uid: uid, auth: auth, record: fields, now: now)
            case .set(.null): expected = PresenceReference.canDelete(uid: uid, auth: auth)
            default: expected = nil
            }
            if let expected, expected != decision.allowed {
                findings.append(FuzzFinding("presence rules decided \(decision.allowed) but the reference decided \(expected) for \(path) \(operation)"))
            }
        }
        return findings
    }
}

/// The presence policy of `rules/database.rules.json` written by hand in plain Swift (also the
/// baseline of the rules benchmark).
public enum PresenceReference {
    /// Reads: signed-in users.
    public static func canRead(auth: JSONValue?) -> Bool {
        if case .object? = auth { return true }
        return false
    }

    /// Deleting the whole record: its owner.
    public static func canDelete(uid: String, auth: JSONValue?) -> Bool { isOwner(uid, auth) }

    static func isOwner(_ uid: String, _ auth: JSONValue?) -> Bool {
        guard case .object(let fields)? = auth, case .string(let authUid)? = fields["uid"] else { return false }
        return authUid == uid
    }

    /// Setting the whole record `/userPresence/{uid}` at time `now`.
    public static func canSet(uid: String, auth: JSONValue?, record: [String: JSONValue], now: Double) -> Bool {
        guard isOwner(uid, auth), record["status"] != nil, record["lastSeen"] != nil else { return false }
        for (key, value) in record {
            switch (key, value) {
            case ("status", .string(let s)) where s == "online" || s == "offline" || s == "away": continue
            case ("lastSeen", .number(let n)) where n == now: continue
            case ("lastSeen", .object(let sv)) where sv == [".sv": .string("timestamp")]: continue
            case ("displayName", .string(let name)) where isDisplayName(name): continue
            default: return false
            }
        }
        return true
    }

    /// 3–30 UTF-16 units of ASCII letters, digits and `_`, with single inner periods.
    public static func isDisplayName(_ name: String) -> Bool {
        let units = Array(name.utf16)
        guard units.count >= 3, units.count <= 30, units.first != 0x2E, units.last != 0x2E else { return false }
        var previousPeriod = false
        for u in units {
            let word = (u >= 0x30 && u <= 0x39) || (u >= 0x41 && u <= 0x5A) || (u >= 0x61 && u <= 0x7A) || u == 0x5F
            if u == 0x2E {
                if previousPeriod { return false }
                previousPeriod = true
            } else if word {
                previousPeriod = false
            } else {
                return false
            }
        }
        return true
    }
}
