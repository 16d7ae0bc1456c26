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
        shapes(fixed: property.path, restName: property.rest, rules: [rules])
    }

    /// The shapes that together cover every path `fixed` then (with `restName`) one or more
    /// segments, measured against every file of `rules` (a diff measures both files).
    static func shapes(fixed: [PropertyPathSegment], restName: String?, rules: [RulesFile]) -> [PathShape] {
        guard let name = restName else { return [PathShape(fixed: fixed, restName: nil, rest: .none)] }
        var prefix = 0
        var suffix = 0
        for file in rules {
            for block in file.services.first?.matches ?? [] {
                measure(block, before: 0, after: nil, prefix: &prefix, suffix: &suffix)
            }
        }
        let head = min(max(0, prefix - fixed.count), maximumExplicit)
        let tail = min(max(1, suffix), maximumExplicit)
        return (1...(head + tail)).map { PathShape(fixed: fixed, restName: name, rest: .segments($0)) }
            + [PathShape(fixed: fixed, restName: name, rest: .long(head: head, tail: tail))]
    }

    /// More explicit segments than this on either side of the gap are not worth the queries.
    static let maximumExplicit = 6

    /// The largest number of literal/single segments before the first `{y=**}` (or in all of a
    /// chain without one), and after the last `{y=**}`, over every chain of nested blocks.
    private static func measure(_ block: MatchBlock, before: Int, after: Int?, prefix: inout Int, suffix: inout Int) {
        var before = before
        var after = after
        for segment in block.pattern {
            if case .recursive = segment {
                after = 0
            } else if let count = after {
                after = count + 1
            } else {
                before += 1
            }
        }
        prefix = max(prefix, before)
        suffix = max(suffix, after ?? 0)
        for nested in block.matches { measure(nested, before: before, after: after, prefix: &prefix, suffix: &suffix) }
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
