/// Keyboard patterns, repeated groups and sequences of code points.
extension Analyzer {
    // MARK: - Keyboard patterns

    /// Runs of three or more keys, each next to the one before, on each keyboard.
    mutating func matchSpatial(_ password: Text, into matches: inout [Match]) {
        let n = password.count
        KeyboardGraph.steps.withUnsafeBufferPointer { steps in
            for (graphIndex, graph) in KeyboardGraph.all.enumerated() {
                let shift = UInt32(8 * graphIndex)
                var i = 0
                while i < n - 1 {
                    var j = i + 1
                    var lastDirection: UInt32 = 0
                    var turns = 0
                    var shifted = graph.countsShiftedStart && password[i] < 128 && KeyboardGraph.isShifted[Int(password[i])] ? 1 : 0
                    while j < n && password[j - 1] < 128 && password[j] < 128 {
                        // The direction + 1 (0: not a neighbour), plus 0x80 when shifted.
                        let step = steps[Int(password[j - 1] &<< 7 | password[j])] >> shift & 0xFF
                        guard step != 0 else { break }
                        if step & 0x80 != 0 { shifted += 1 }
                        if lastDirection != step & 0x7F {
                            turns += 1
                            lastDirection = step & 0x7F
                        }
                        j += 1
                    }
                    if j - i > 2 {
                        let guesses = Guesses.spatial(graph: graph, length: j - i, turns: turns, shifted: shifted)
                        matches.append(Match(i: i, j: j - 1, guesses: max(guesses, Guesses.least(length: j - i, total: n)),
                                             detail: .spatial(graph: graphIndex, turns: turns, shifted: shifted)))
                    }
                    i = j
                }
            }
        }
    }

    // MARK: - Repeats

    /// Groups typed two or more times in a row (`aaa`, `abcabc`), as Python's `(.+)\1+` and
    /// `(.+?)\1+` find them from left to right; each group is analyzed on its own.
    mutating func matchRepeats(_ password: Text, into matches: inout [Match]) {
        let n = password.count
        guard n >= 2 else { return }
        // extent[a * width + b] (a < b): how many code points from a equal those from b, none of
        // them a line feed (Python's `.` does not match one).
        // A repeat needs some code point twice.
        var seen: (UInt64, UInt64) = (0, 0)
        var repeated = false
        for character in password {
            guard character < 128 else { repeated = true; break }
            let bit: UInt64 = 1 << (character & 63)
            if character < 64 {
                if seen.0 & bit != 0 { repeated = true; break }
                seen.0 |= bit
            } else {
                if seen.1 & bit != 0 { repeated = true; break }
                seen.1 |= bit
            }
        }
        guard repeated else { return }
        let width = n + 1
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: width * width) { extent in
        extent.initialize(repeating: 0)
        for a in stride(from: n - 2, through: 0, by: -1) where password[a] != Characters.newline {
            for b in (a + 1)..<n where password[a] == password[b] {
                extent[a * width + b] = extent[(a + 1) * width + b + 1] + 1
            }
        }
        func copies(_ start: Int, _ period: Int) -> Int { 1 + Int(extent[start * width + start + period]) / period }

        var from = 0
        while from < n {
            // The leftmost start at which some group repeats, with its shortest and longest group.
            var found: (start: Int, shortest: Int, longest: Int)?
            search: for start in from..<n where (n - start) / 2 >= 1 {
                var shortest = 0, longest = 0
                for period in 1...((n - start) / 2) where Int(extent[start * width + start + period]) >= period {
                    if shortest == 0 { shortest = period }
                    longest = period
                }
                if shortest > 0 {
                    found = (start, shortest, longest)
                    break search
                }
            }
            guard let (start, shortest, longest) = found else { break }
            let greedyLength = copies(start, longest) * longest
            let lazyLength = copies(start, shortest) * shortest
            let length: Int
            var base: Int
            if greedyLength > lazyLength {
                length = greedyLength
                // The shortest group the greedy match is made of (`^(.+?)\1+$`).
                base = longest
                for period in 1..<longest where length % period == 0 && Int(extent[start * width + start + period]) >= length - period {
                    base = period
                    break
                }
            } else {
                length = lazyLength
                base = shortest
            }
            let analysis = analyze(Text(rebasing: password[start..<start + base]))
            let count = length / base
            let guesses = analysis.guesses * Double(count)
            matches.append(Match(i: start, j: start + length - 1, guesses: max(guesses, Guesses.least(length: length, total: n)),
                                 detail: .repeated(count: count, baseLength: base, baseGuesses: analysis.guesses)))
            from = start + length
        }
        }
    }

    // MARK: - Sequences

    static let maximumSequenceStep = 5

    /// Runs with a constant step of 1 to 5 code points up or down (`abc`, `9753`, `ZYX`).
    mutating func matchSequences(_ password: Text, into matches: inout [Match]) {
        let n = password.count
        guard n > 1 else { return }
        func add(_ i: Int, _ j: Int, _ delta: Int) {
            guard j - i > 1 || abs(delta) == 1, abs(delta) > 0 && abs(delta) <= Self.maximumSequenceStep else { return }
            let token = password[i...j]
            let kind: SequenceKind
            if token.allSatisfy(Characters.isASCIILower) {
                kind = .lowercase
            } else if token.allSatisfy(Characters.isASCIIUpper) {
                kind = .uppercase
            } else if token.allSatisfy(Characters.isDigit) {
                kind = .digits
            } else {
                kind = .unicode
            }
            let guesses = Guesses.sequence(first: password[i], length: j - i + 1, ascending: delta > 0)
            matches.append(Match(i: i, j: j, guesses: max(guesses, Guesses.least(length: j - i + 1, total: n)),
                                 detail: .sequence(kind, ascending: delta > 0)))
        }
        var i = 0
        var lastDelta = Int(password[1]) - Int(password[0])
        for k in 1..<n {
            let delta = Int(password[k]) - Int(password[k - 1])
            if delta == lastDelta { continue }
            add(i, k - 1, lastDelta)
            i = k - 1
            lastDelta = delta
        }
        add(i, n - 1, lastDelta)
    }
}
