// PathShape: the request paths one encoding stands for. A property path without `{x=**}` is one
// shape. With `{x=**}` (one or more segments), the rest is covered by shapes of 1…N explicit
// segments and one "long" shape: `head` explicit segments, a gap of one or more segments (one
// string term holding them joined by `/`), and `tail` explicit segments. N = head + tail, so
// together the shapes cover every length exactly once.
import RulesLanguage

/// The request paths of one encoding.
struct PathShape: Equatable {
    /// What follows the property's fixed segments.
    enum Rest: Equatable {
        /// Nothing: the property has no `{x=**}`.
        case none
        /// Exactly this many segments.
        case segments(Int)
        /// `head` segments, one or more segments in a gap, then `tail` segments.
        case long(head: Int, tail: Int)
    }

    /// The property's segments before `{x=**}`.
    var fixed: [PropertyPathSegment]
    /// The `{x=**}` variable's name.
    var restName: String?
    var rest: Rest

    /// The shapes that together cover every request path of `property` under `rules`.
    ///
    /// `head` is long enough that no rules pattern reaches the gap through literal or single
    /// segments from the front, and `tail` long enough for the segments after a rules `{y=**}`;
    /// where a pattern still reaches into the gap, the encoding over-approximates (and says so).
    static func shapes(for property: RulesProperty, rules: RulesFile) -> [PathShape] {
        shapes(fixed: property.path, restName: property.rest, rules: [rules], conditions: property.condition.map { [$0] } ?? [])
    }

    /// The shapes that together cover every path `fixed` then (with `restName`) one or more
    /// segments, measured against every file of `rules` (a diff measures both files) and the
    /// `conditions` read alongside them.
    ///
    /// A literal index into a path (`request.path[5]`, `name[2]` of a `{name=**}`) reads a
    /// spelled-out segment only when the segments before it are spelled out too, so `head` also
    /// covers the largest such index, counted from where the indexed path can start.
    static func shapes(fixed: [PropertyPathSegment], restName: String?, rules: [RulesFile], conditions: [Expr] = []) -> [PathShape] {
        guard let name = restName else { return [PathShape(fixed: fixed, restName: nil, rest: .none)] }
        var prefix = 0
        var suffix = 0
        var recursiveStart = 0
        for file in rules {
            for block in file.services.first?.matches ?? [] {
                measure(block, before: 0, after: nil, prefix: &prefix, suffix: &suffix, recursiveStart: &recursiveStart)
            }
        }
        // Segments from the root that literal indexes read: `request.path[k]` reads k + 1, `x[k]`
        // of a `{x=**}` starting s segments in reads s + k + 1; a path of unknown origin (a
        // parameter, a `let`) may be any binding, so it starts at most `recursiveStart` in.
        var indexes = LiteralIndexes(unknownStart: max(recursiveStart, fixed.count))
        for file in rules { indexes.collect(file) }
        for condition in conditions { indexes.collect(condition, starts: [name: fixed.count]) }
        let head = min(max(0, prefix - fixed.count, indexes.reach - fixed.count), maximumExplicit)
        let tail = min(max(1, suffix), maximumExplicit)
        return (1...(head + tail)).map { PathShape(fixed: fixed, restName: name, rest: .segments($0)) }
            + [PathShape(fixed: fixed, restName: name, rest: .long(head: head, tail: tail))]
    }

    /// More explicit segments than this on either side of the gap are not worth the queries.
    static let maximumExplicit = 6

    /// The largest number of literal/single segments before the first `{y=**}` (or in all of a
    /// chain without one), and after the last `{y=**}`, over every chain of nested blocks.
    /// `recursiveStart` is the most segments before a first `{y=**}`.
    private static func measure(_ block: MatchBlock, before: Int, after: Int?, prefix: inout Int, suffix: inout Int,
                                recursiveStart: inout Int) {
        var before = before
        var after = after
        for segment in block.pattern {
            if case .recursive = segment {
                if after == nil { recursiveStart = max(recursiveStart, before) }
                after = 0
            } else if let count = after {
                after = count + 1
            } else {
                before += 1
            }
        }
        prefix = max(prefix, before)
        suffix = max(suffix, after ?? 0)
        for nested in block.matches {
            measure(nested, before: before, after: after, prefix: &prefix, suffix: &suffix, recursiveStart: &recursiveStart)
        }
    }

    /// How many segments from the root literal indexes into paths read (`reach`).
    struct LiteralIndexes {
        /// Where a path of unknown origin may start.
        let unknownStart: Int
        private(set) var reach = 0

        init(unknownStart: Int) { self.unknownStart = unknownStart }

        /// Collects the rules' indexes, each with the `{x=**}` bindings its block sees.
        mutating func collect(_ file: RulesFile) {
            for function in file.functions { collect(function, starts: [:]) }
            for service in file.services {
                for function in service.functions { collect(function, starts: [:]) }
                for block in service.matches { collect(block, before: 0, starts: [:]) }
            }
        }

        /// `before`: segments before the block, nil after a `{y=**}`; `starts`: where each
        /// visible `{x=**}` binding starts, nil when it follows another one.
        private mutating func collect(_ block: MatchBlock, before: Int?, starts: [String: Int?]) {
            var before = before
            var starts = starts
            for segment in block.pattern {
                switch segment {
                case .recursive(let name): starts[name] = .some(before); before = nil
                case .single(let name): starts[name] = .some(nil); before = before.map { $0 + 1 }
                case .literal: before = before.map { $0 + 1 }
                }
            }
            for function in block.functions { collect(function, starts: starts) }
            for allow in block.allows { if let condition = allow.condition { collect(condition, starts: starts) } }
            for nested in block.matches { collect(nested, before: before, starts: starts) }
        }

        private mutating func collect(_ function: FunctionDecl, starts: [String: Int?]) {
            // Parameters and `let`s hide wildcards of the same name.
            var visible = starts
            for name in function.parameters + function.lets.map(\.name) { visible.removeValue(forKey: name) }
            for binding in function.lets { collect(binding.value, starts: visible) }
            collect(function.body, starts: visible)
        }

        mutating func collect(_ expr: Expr, starts: [String: Int?]) {
            if case .index(let base, let index) = expr.kind, case .int(let k) = index.kind, k >= 0 {
                // Only a few segments can be spelled out; keep the sums small.
                let k = Int(min(k, 1_000))
                switch base.kind {
                case .member(let inner, "path") where inner.kind == .identifier("request"):
                    reach = max(reach, k + 1)
                case .identifier(let name):
                    // A binding that follows another `{y=**}` (`.some(nil)`) starts at no fixed place.
                    switch starts[name] {
                    case .some(.some(let start)): reach = max(reach, start + k + 1)
                    case .some(.none): break
                    case .none: reach = max(reach, unknownStart + k + 1)
                    }
                default:
                    reach = max(reach, unknownStart + k + 1)
                }
            }
            for child in expr.children { collect(child, starts: starts) }
        }
    }


    /// A short description of the paths, for reasons.
    var description: String {
        switch rest {
        case .none: "the path"
        case .segments(let n): "`\(restName ?? "")` of \(n) segment\(n == 1 ? "" : "s")"
        case .long(let head, let tail): "`\(restName ?? "")` of more than \(head + tail) segments"
        }
    }
}
