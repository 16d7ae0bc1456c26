// Encoder+Rules: which rules apply to the symbolic request (match blocks against its path) and
// the condition under which they allow it; property conditions and path variables.
import Diagnostics
import RulesLanguage

extension Encoder {
    // MARK: - Rules

    /// The condition under which `other` (rules of the same service) allows the same symbolic
    /// request, lookups and all: one database, one request, two rule sets. The encoder keeps
    /// encoding `other` afterwards.
    func allowed(by other: Program) -> String {
        select(other)
        return allowed()
    }

    /// When the request path matches `pattern`, a full match pattern of `other`'s rules (Bool
    /// term). Where the pattern reaches into the gap of a long shape, the answer is "maybe"
    /// (a fresh Bool): the region may be larger, never smaller.
    func pathMatches(_ pattern: [PatternSegment], in other: Program) -> String {
        select(other)
        var hits: [String] = []
        matchPattern(pattern[...], 0, "true", []) { end, g, _ in
            if end == pathSegments.count { hits.append(g) }
        } onGap: { g, _ in
            hits.append(SMT.and([g, fresh("gap.region", "Bool")]))
        }
        return SMT.or(hits)
    }

    /// The condition under which the rules allow the request (Bool term).
    func allowed() -> String {
        source = program.source
        var grants: [String] = []
        match(program.file.services.first?.matches ?? [], from: 0, guard_: "true", bindings: [], scope: serviceScope, grants: &grants)
        return SMT.or(grants)
    }

    private func match(_ blocks: [MatchBlock], from start: Int, guard_: String, bindings: [(String, SymValue)],
                       scope: FunctionScope, grants: inout [String]) {
        for block in blocks {
            let blockScope = scope.child(block.functions, wildcards: bindings.count + block.pattern.filter { $0.variable != nil }.count)
            matchPattern(block.pattern[...], start, guard_, bindings) { end, g, b in
                if end == pathSegments.count {
                    for allow in block.allows where allow.methods.contains(where: { $0.covers(method) }) {
                        guard let condition = allow.condition else { grants.append(g); continue }
                        self.bindings = b
                        self.frame = []
                        self.scope = blockScope
                        self.source = program.source
                        let value = encode(condition)
                        grants.append(SMT.and([g, truth(value).isTrue]))
                    }
                }
                if !block.matches.isEmpty {
                    match(block.matches, from: end, guard_: g, bindings: b, scope: blockScope, grants: &grants)
                }
            } onGap: { g, remaining in
                // Whether and how the pattern matches depends on segments inside the gap, which
                // the encoding does not spell out: any allow in or below the block may grant,
                // unless no chain from here can consume what is left of the path.
                guard grantsAny(block), mayConsumeRestOfLongPath(remaining, block.matches) else { return }
                abstract("a match pattern that reaches into the segments of `{\(shape.restName ?? "")=**}`", block.patternSpan)
                grants.append(SMT.and([g, fresh("gap.match", "Bool")]))
            }
        }
    }

    /// Whether the block or a nested one has an allow for the method.
    private func grantsAny(_ block: MatchBlock) -> Bool {
        block.allows.contains { $0.methods.contains { $0.covers(method) } } || block.matches.contains(where: grantsAny)
    }

    /// Whether `pattern`, then a chain of nested blocks, can consume the rest of a long path from
    /// the gap on (at least one gap segment and the tail): always with a `{y=**}`, otherwise when
    /// its literal and `{y}` segments are enough.
    private func mayConsumeRestOfLongPath(_ pattern: ArraySlice<PatternSegment>, _ nested: [MatchBlock]) -> Bool {
        guard case .long(_, let tail) = shape.rest else { return true }
        func longest(_ pattern: ArraySlice<PatternSegment>, _ nested: [MatchBlock]) -> Int {
            if pattern.contains(where: { if case .recursive = $0 { true } else { false } }) { return Int.max }
            let below = nested.map { longest($0.pattern[...], $0.matches) }.max() ?? 0
            return below == Int.max ? Int.max : pattern.count + below
        }
        return longest(pattern, nested) >= 1 + tail
    }

    /// A match position between two segments of the gap of a long shape.
    private static let insideGap = -1

    private func matchPattern(_ pattern: ArraySlice<PatternSegment>, _ start: Int, _ g: String, _ b: [(String, SymValue)],
                              _ onMatch: (Int, String, [(String, SymValue)]) -> Void,
                              onGap: (String, ArraySlice<PatternSegment>) -> Void) {
        guard let first = pattern.first else { return onMatch(start, g, b) }
        let rest = pattern.dropFirst()
        // A segment pattern at the gap, or anything after a `{y=**}` that ended inside it.
        if start == Self.insideGap { return onGap(g, pattern) }
        if start == gapIndex { if case .recursive = first {} else { return onGap(g, pattern) } }
        switch first {
        case .literal(let text):
            guard start < pathSegments.count else { return }
            if let concrete = pathConcrete[start] {
                if concrete == text { matchPattern(rest, start + 1, g, b, onMatch, onGap: onGap) }
            } else {
                matchPattern(rest, start + 1, SMT.and([g, SMT.eq(pathSegments[start], SMT.string(text))]), b, onMatch, onGap: onGap)
            }
        case .single(let name):
            guard start < pathSegments.count else { return }
            matchPattern(rest, start + 1, g, b + [(name, SymValue(.string(pathSegments[start])))], onMatch, onGap: onGap)
        case .recursive(let name):
            let minimum = program.file.isVersion2 ? 0 : 1
            guard pathSegments.count - start >= minimum else { return }
            for end in (start + minimum)...pathSegments.count {
                matchPattern(rest, end, g, b + [(name, SymValue(.path(Array(pathSegments[start..<end]))))], onMatch, onGap: onGap)
            }
            // It can also end between two segments of the gap (no allow applies there, only
            // what follows, which reaches into the gap).
            if let gapIndex, start <= gapIndex {
                matchPattern(rest, Self.insideGap, g, b + [(name, .error)], onMatch, onGap: onGap)
            }
        }
    }

    /// Encodes a property condition with the path variables bound.
    func encodeCondition(_ expr: Expr, source: SourceFile, variables: [(String, SymValue)]) -> SymValue {
        self.bindings = variables
        self.frame = []
        // Conditions see no rules functions: they are replayed as standalone expressions.
        self.scope = FunctionScope()
        self.source = source
        return encode(expr)
    }

    /// The path variables of a property path: `{x}` a string, `{x=**}` a path.
    func pathVariables() -> [(String, SymValue)] {
        var variables: [(String, SymValue)] = shape.fixed.enumerated().compactMap { index, segment in
            if case .variable(let name) = segment { return (name, SymValue(.string(pathSegments[index]))) }
            return nil
        }
        if let name = shape.restName { variables.append((name, SymValue(.path(Array(pathSegments[shape.fixed.count...]))))) }
        return variables
    }
}
