// Witness: a solver model written as one case object of the case-file format
// (docs/RULES-TESTING.md), written with RulesCases' `CaseFileWriter`, so it replays with
// `validate rules test`.
import Diagnostics
import Foundation
import RulesCases
import RulesLanguage

/// A witness: the case object's JSON text, and its top-level fields (key, JSON value) in order.
struct Witness {
    var json: String
    var fields: [(String, String)] = []
}

/// Reads the request a model describes.
final class WitnessBuilder {
    let encoder: Encoder
    let model: Model
    let name: String
    let expect: String
    let method: RequestMethod
    let service: CaseService
    private(set) var problem = ""
    /// Key names used for a map's "other keys" that the rules never mention.
    private var restNames: [Int64: String] = [:]
    /// How deep ``map(_:fixed:)`` is nested.
    private var depth = 0

    /// - Parameters:
    ///   - name: the case's `name`.
    ///   - expect: the case's `expect`, the decision of the rules it is replayed against.
    init(encoder: Encoder, model: Model, name: String, expect: String = "allow", method: RequestMethod, service: CaseService) {
        self.encoder = encoder
        self.model = model
        self.name = name
        self.expect = expect
        self.method = method
        self.service = service
    }

    /// The case object, or nil (with ``problem`` set) when the model cannot be written as one.
    func build() -> Witness? {
        var segments: [String] = []
        for (index, term) in encoder.pathSegments.enumerated() {
            if let concrete = encoder.pathConcrete[index] { segments.append(concrete); continue }
            guard let value = model.string(term) else { problem = "no value for a path segment"; return nil }
            segments.append(value)
        }
        let requestPath = "/" + segments.joined(separator: "/")
        var fields: [(String, String)] = [
            ("name", jsonString(name)),
            ("path", jsonString(requestPath)),
            ("method", jsonString(method.rawValue)),
        ]
        if model.bool(encoder.authNull) ?? true {
            fields.append(("auth", "null"))
        } else {
            guard let uid = model.string(encoder.uid), let claims = encoder.token, let token = map(claims) else { problem = "no value for the user"; return nil }
            fields.append(("auth", CaseFileWriter.object([("uid", jsonString(uid)), ("token", token)])))
        }
        // A Storage object names itself: `name` is the path after `/o/`, `bucket` the bucket segment.
        let identity: [(String, String)] = service == .storage && segments.count > 3
            ? [("name", jsonString(segments[3...].joined(separator: "/"))), ("bucket", jsonString(segments[1]))] : []
        if model.bool(encoder.resourceExists) ?? false {
            guard let resourceData = encoder.resourceData else { problem = "no resource data"; return nil }
            guard let data = map(resourceData, fixed: identity) else { return nil }
            fields.append(("resource", data))
        } else {
            fields.append(("resource", "null"))
        }
        if let requestData = encoder.requestData {
            guard let data = map(requestData, fixed: identity) else { return nil }
            fields.append(("requestResource", data))
        }
        var before: [(String, String)] = []
        var after: [(String, String)] = []
        for (index, slot) in encoder.slots.enumerated() {
            // The request's own document (Firestore) is `resource`; other lookups of its path
            // are listed too, and agree with it.
            if index == 0 && service == .firestore { continue }
            var parts: [String] = []
            for term in slot.segments {
                if let text = SMT.concreteString(term) { parts.append(text); continue }
                guard let value = model.string(term) else { parts = []; break }
                parts.append(value)
            }
            // Only well-formed document paths reach the lookup.
            guard parts.count >= 5, parts[0] == "databases", parts[2] == "documents", parts.count % 2 == 1 else { continue }
            let key = "/" + parts.joined(separator: "/")
            let content: String
            if model.bool(slot.exists) ?? false {
                guard let data = map(slot.data) else { return nil }
                content = data
            } else {
                content = "null"
            }
            if slot.after {
                if !after.contains(where: { $0.0 == key }) { after.append((key, content)) }
            } else if !before.contains(where: { $0.0 == key }) {
                before.append((key, content))
            }
        }
        if service == .firestore || !before.isEmpty {
            fields.append(("existing", CaseFileWriter.object(before)))
            if !after.isEmpty {
                fields.append(("existingAfter", CaseFileWriter.object(after)))
            }
        }
        if let query = encoder.query, model.bool(encoder.queryPresent) ?? false {
            guard let data = map(query) else { return nil }
            fields.append(("query", data))
        }
        guard let nanos = model.values[encoder.time].flatMap({ Self.bigInteger($0) }) else {
            problem = "no value for request.time"
            return nil
        }
        fields.append(("time", jsonString(Self.timestamp(nanos).description)))
        fields.append(("expect", jsonString(expect)))
        return Witness(json: CaseFileWriter.object(fields), fields: fields)
    }

    /// `lower(x) = real` facts for the strings this model applies `lower`/`upper` to.
    func caseMappingFacts() -> [String] {
        encoder.caseMappings.compactMap { name, argument in
            guard let value = model.string(argument) else { return nil }
            guard let mapping = CaseMapping(method: name) else { return nil }
            let real = mapping.apply(value)
            return "(assert (= (|\(name)| \(SMT.string(value))) \(SMT.string(real))))"
        }
    }

    // MARK: - Values

    /// The map's JSON object; `fixed` entries replace whatever the model says for their keys.
    private func map(_ m: SymMap, fixed: [(String, String)] = []) -> String? {
        // A model may nest a map in itself through keys read at computed keys: no witness then.
        depth += 1
        defer { depth -= 1 }
        guard depth <= 64 else { problem = "a map nested more than 64 levels"; return nil }
        var entries = fixed
        for key in m.keys where !fixed.contains(where: { $0.0 == key }) {
            guard let entry = m.entries[key], model.bool(entry.present) ?? false else { continue }
            guard let value = leaf(entry.leaf) else { return nil }
            entries.append((key, value))
        }
        guard let count = model.int(m.restCount) else { problem = "no key count for a map"; return nil }
        if count > 0 {
            guard count <= 64 else { problem = "a map with \(count) unmentioned keys"; return nil }
            let id = model.int(m.restId) ?? 0
            // Other keys the rules read at a computed key are written with their values.
            let read = otherKeysRead(of: m).filter { key, _ in !m.keys.contains(key) && !fixed.contains(where: { $0.0 == key }) }
            for (key, value) in read {
                guard let text = leaf(value) else { return nil }
                entries.append((key, text))
            }
            // Other keys both maps of a diff have: changed ones (`true` here, `false` there) and
            // unchanged ones (`true` in both).
            var shared: [(String, String)] = []
            for (index, rest) in encoder.diffRests.enumerated() where rest.a === m || rest.b === m {
                guard model.int(rest.a.restId) != model.int(rest.b.restId) else { continue }
                let changed = Int(max(0, model.int(rest.changed) ?? 0)), unchanged = Int(max(0, model.int(rest.unchanged) ?? 0))
                guard changed + unchanged <= 64 else { problem = "a map diff with \(changed + unchanged) shared other keys"; return nil }
                for j in 0..<(changed + unchanged) {
                    var name = "both\(index)_\(j)"
                    while encoder.keysInUse.contains(name) || computedKeys.contains(name) { name += "_" }
                    shared.append((name, rest.a === m || j >= changed ? "true" : "false"))
                }
            }
            entries += shared
            for j in 0..<max(0, Int(count) - read.count - shared.count) {
                var name = "other\(id)_\(j)"
                while encoder.keysInUse.contains(name) || computedKeys.contains(name) { name += "_" }
                entries.append((name, "true"))
            }
        }
        return CaseFileWriter.object(entries)
    }

    /// The keys read at a computed key that are among the other keys of `m` or of a map the
    /// model makes equal to it, with their values.
    private func otherKeysRead(of start: SymMap) -> [(String, Leaf)] {
        var group: [SymMap] = [start]
        var index = 0
        while index < group.count {
            let m = group[index]
            for (a, b, equal) in encoder.relations where model.bool(equal) ?? false {
                if a === m, !group.contains(where: { $0 === b }) { group.append(b) }
                if b === m, !group.contains(where: { $0 === a }) { group.append(a) }
            }
            index += 1
        }
        var found: [(String, Leaf)] = []
        for m in group where !m.computed.isEmpty {
            for entry in m.computed where model.bool(entry.present) ?? false {
                guard let key = model.string(entry.key), !m.keys.contains(key), !found.contains(where: { $0.0 == key }) else { continue }
                found.append((key, entry.leaf))
            }
        }
        return found
    }

    /// Every key the model gives a computed read, so names made up for other keys avoid them.
    private var computedKeys: Set<String> {
        Set(encoder.maps.flatMap { m in m.computed.compactMap { model.string($0.key) } })
    }

    private func leaf(_ l: Leaf) -> String? {
        guard let tag = model.int(l.tag), tag >= 0, Int(tag) < Leaf.types.count else { problem = "no type for a field"; return nil }
        switch Leaf.types[Int(tag)] {
        case "null": return "null"
        case "bool": return (model.bool(l.b) ?? false) ? "true" : "false"
        case "int": return model.int(l.i).map(String.init) ?? "0"
        case "float":
            let value = model.real(l.f) ?? 0
            guard value.isFinite else { problem = "a float out of range"; return nil }
            return CaseFileWriter.float(value)
        case "string": return jsonString(model.string(l.s) ?? "")
        case "map": return map(l.map)
        case "list": return "[\(model.int(l.o) ?? 0)]"
        case "timestamp":
            guard let nanos = model.values[l.t].flatMap({ Self.bigInteger($0) }) else { return nil }
            return CaseFileWriter.timestamp(Self.timestamp(nanos))
        case "duration":
            guard let nanos = model.values[l.d].flatMap({ Self.bigInteger($0) }) else { return nil }
            let seconds = Int64(nanos / 1_000_000_000), rest = Int64(nanos % 1_000_000_000)
            return CaseFileWriter.duration(seconds: seconds, nanos: rest)
        default:
            let id = UInt64(max(0, model.int(l.o) ?? 0))
            var bytes: [UInt8] = []
            var n = id
            repeat { bytes.append(UInt8(n & 0xFF)); n >>= 8 } while n > 0
            return CaseFileWriter.bytes(bytes)
        }
    }

    static func bigInteger(_ expr: SExpr) -> Int128? {
        switch expr {
        case .atom(let a): return Int128(a)
        case .list(let items) where items.count == 2 && items[0] == .atom("-"): return bigInteger(items[1]).map { -$0 }
        default: return nil
        }
    }

    static func timestamp(_ nanos: Int128) -> Timestamp {
        var seconds = nanos / 1_000_000_000
        var rest = nanos % 1_000_000_000
        if rest < 0 { rest += 1_000_000_000; seconds -= 1 }
        return Timestamp(seconds: Int64(seconds), nanos: Int32(rest))
    }
}
