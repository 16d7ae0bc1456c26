// Suggestions: "did you mean" by edit distance.

/// Finds the candidate closest to a misspelled name.
enum Suggestions {
    /// The closest candidate within a distance of about a third of the name's length (at least 1),
    /// or nil when nothing is close.
    static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        let limit = max(1, name.count / 3)
        var best: (String, Int)?
        for candidate in candidates where candidate != name {
            let distance = editDistance(name, candidate, limit: limit)
            guard distance <= limit else { continue }
            if let current = best, distance > current.1 || (distance == current.1 && candidate >= current.0) { continue }
            best = (candidate, distance)
        }
        return best?.0
    }

    /// `help` text for a suggestion, or nil.
    static func help(for name: String, in candidates: some Sequence<String>) -> String? {
        closest(to: name, in: candidates).map { "did you mean `\($0)`?" }
    }

    /// Levenshtein distance (case-insensitive matches cost nothing extra), giving up above `limit`.
    static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let x = Array(a.lowercased().unicodeScalars)
        let y = Array(b.lowercased().unicodeScalars)
        if abs(x.count - y.count) > limit { return limit + 1 }
        var previous = Array(0...y.count)
        var current = Array(repeating: 0, count: y.count + 1)
        for i in 1...max(1, x.count) where !x.isEmpty {
            current[0] = i
            var rowMin = current[0]
            for j in 1...max(1, y.count) where !y.isEmpty {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMin = min(rowMin, current[j])
            }
            if rowMin > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return x.isEmpty ? y.count : (y.isEmpty ? x.count : previous[y.count])
    }
}
