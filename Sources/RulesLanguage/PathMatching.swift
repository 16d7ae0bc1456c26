// PathMatching: which `match` blocks completely match a request path, with their wildcard
// bindings (part of the Evaluator; `{x=**}` may split several ways, everything else one way).

import Diagnostics

extension Evaluator {
    /// Finds every `allow` in a completely matching block whose methods cover the request.
    func collect(_ blocks: [CompiledBlock], _ segments: [String], from start: Int, into pending: inout [PendingCandidate]) {
        for block in blocks {
            let base = bindings.count
            if block.hasRecursiveSegment {
                matchPattern(block.pattern[...], segments, start) { end in visit(block, segments, end, &pending) }
            } else if let end = matchFixed(block.pattern, segments, start) {
                // Fast path: without `=**` a pattern matches at most one way.
                visit(block, segments, end, &pending)
            }
            // INVARIANT: every binding pushed while matching this block is popped here.
            if bindings.count > base { bindings.removeSubrange(base...) }
        }
    }

    /// Every block that completely matches the path, with the methods its rules grant (for
    /// explaining a denial where no `allow` covered the method).
    func completeMatches(_ segments: [String]) -> [CompleteMatch] {
        var found: [CompleteMatch] = []
        func walk(_ blocks: [CompiledBlock], _ start: Int) {
            for block in blocks {
                let base = bindings.count
                let onEnd: (Int) -> Void = { end in
                    if end == segments.count {
                        let methods = block.allows.flatMap(\.methods)
                        found.append(CompleteMatch(pattern: block.fullPattern, methods: methods.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }))
                    }
                    walk(block.children, end)
                }
                if block.hasRecursiveSegment {
                    matchPattern(block.pattern[...], segments, start, onEnd)
                } else if let end = matchFixed(block.pattern, segments, start) {
                    onEnd(end)
                }
                if bindings.count > base { bindings.removeSubrange(base...) }
            }
        }
        walk(program.roots, 0)
        return found
    }

    /// Records the block's applicable `allow`s on a complete match, then tries its children.
    func visit(_ block: CompiledBlock, _ segments: [String], _ end: Int, _ pending: inout [PendingCandidate]) {
        if end == segments.count {
            for allow in block.allows where allow.methods.contains(where: { $0.covers(request.method) }) {
                pending.append(PendingCandidate(allow: allow, block: block, bindings: bindings))
            }
        }
        if !block.children.isEmpty {
            collect(block.children, segments, from: end, into: &pending)
        }
    }

    /// Matches a pattern without `=**` at `start`, pushing its bindings; returns the end index.
    func matchFixed(_ pattern: [PatternSegment], _ segments: [String], _ start: Int) -> Int? {
        matchSteps += 1
        let end = start + pattern.count
        guard end <= segments.count, matchSteps <= Evaluator.matchStepLimit else { return nil }
        var index = start
        for segment in pattern {
            switch segment {
            case .literal(let text):
                guard segments[index] == text else { return nil }
            case .single(let name):
                bindings.append((name, .string(segments[index])))
            case .recursive:
                return nil
            }
            index += 1
        }
        return end
    }

    /// Calls `onMatch(end)` for every way `pattern` matches `segments[start..<end]`, with the
    /// wildcards bound in `bindings` during the call.
    func matchPattern(_ pattern: ArraySlice<PatternSegment>, _ segments: [String], _ start: Int, _ onMatch: (Int) -> Void) {
        matchSteps += 1
        guard matchSteps <= Evaluator.matchStepLimit else { return }
        guard let first = pattern.first else { return onMatch(start) }
        let rest = pattern.dropFirst()
        switch first {
        case .literal(let text):
            if start < segments.count && segments[start] == text { matchPattern(rest, segments, start + 1, onMatch) }
        case .single(let name):
            guard start < segments.count else { return }
            bindings.append((name, .string(segments[start])))
            matchPattern(rest, segments, start + 1, onMatch)
            bindings.removeLast()
        case .recursive(let name):
            let minimum = program.file.isVersion2 ? 0 : 1
            guard segments.count - start >= minimum else { return }
            for end in (start + minimum)...segments.count {
                bindings.append((name, .path(PathValue(segments: Array(segments[start..<end])))))
                matchPattern(rest, segments, end, onMatch)
                bindings.removeLast()
            }
        }
    }

}
