/// zxcvbn's search for the most guessable match sequence: among the sequences of
/// non-overlapping matches covering the password (gaps filled by brute force), the one that
/// minimizes `l! × Π guesses + 10000^(l-1)` for a sequence of `l` matches. Dynamic programming
/// over prefixes: for each end position and sequence length, the best sequence found so far.
extension Analyzer {
    /// The best sequence ending at one position with one length.
    private struct Entry {
        /// The minimized function, rounded (``Optimal/precise(_:)`` when two are equal).
        var g: Double
        /// The product of the sequence's guesses.
        var product: Double
        var length: Int32
        /// The last match: an index into the matches, or `-(i + 1)` for brute force from `i`.
        var match: Int32
        /// The next entry at the same position, in the order lengths first appeared.
        var next: Int32
        /// Whether a brute-force part after this sequence could ever win (see ``Optimal/update``).
        var extendable: Bool
        /// The position the sequence ends at.
        var position: Int32
    }

    /// For each end position, its entries as a list in one buffer (at most one per length, and a
    /// sequence ending at `k` has at most `k + 1` matches: `n(n + 1)/2` entries in all).
    private struct Optimal {
        let entries: UnsafeMutableBufferPointer<Entry>
        let head: UnsafeMutableBufferPointer<Int32>
        let tail: UnsafeMutableBufferPointer<Int32>
        /// The least rounded `g` of a one-match sequence at each position (+∞ when none): a
        /// longer sequence that does worse is turned down without walking the list.
        let bestSingle: UnsafeMutableBufferPointer<Double>
        var count = 0
        var updates = 0

        let factorials: UnsafeBufferPointer<Double>
        let penalties: UnsafeBufferPointer<Double>
        let powers: UnsafeBufferPointer<Double>

        /// Whether brute force after a sequence of `length` matches ending at `k` (not itself ending
        /// in brute force) can ever be kept: it costs at least `(length + 1)! × product × 10^(j-k)`
        /// for a part up to `j`, while brute force over `0...j` alone costs `10^(j+1) + 1` at most,
        /// so when `(length + 1)! × product ≥ 10^(k+1)` it never wins (the margin covers rounding).
        @inline(__always)
        func isExtendable(_ k: Int, _ length: Int32, _ product: Double, _ match: Int32) -> Bool {
            match >= 0 && factorials[Int(length) + 1] * product < powers[k + 1] * (1 + 1e-9)
        }

        /// `g` of a sequence of `length` matches whose guesses multiply to `product`, to about 32
        /// digits (needed only when the rounded values are equal).
        @inline(__always)
        func precise(_ length: Int32, _ product: Double) -> Wide {
            Wide(factorials[Int(length)], times: product, plus: penalties[Int(length)])
        }

        /// Considers a sequence of `length` matches ending at `k` with `match`, whose own guesses
        /// are `guesses`, after a sequence whose product is `previous` (1 for none).
        @inline(__always)
        mutating func update(_ k: Int, match: Int32, guesses: Double, previous: Double, length: Int32) {
            updates += 1
            let product = guesses * previous
            let g = factorials[Int(length)] * product + penalties[Int(length)]
            // Rounding keeps order: a smaller rounded value is smaller.
            if bestSingle[k] < g { return }
            var same: Int32 = -1
            var index = head[k]
            while index >= 0 {
                let competitor = entries[Int(index)]
                if competitor.length == length { same = index }
                // A sequence as short or shorter that does as well wins (the first one on a tie).
                if competitor.length <= length && competitor.g <= g
                    && (competitor.g < g || !(precise(length, product) < precise(competitor.length, competitor.product))) {
                    return
                }
                index = competitor.next
            }
            if length == 1 { bestSingle[k] = min(bestSingle[k], g) }
            let extendable = isExtendable(k, length, product, match)
            if same >= 0 {
                entries[Int(same)].g = g
                entries[Int(same)].product = product
                entries[Int(same)].match = match
                entries[Int(same)].extendable = extendable
                return
            }
            // INVARIANT: lengths at `k` are distinct and at most k + 1, so `count` stays in bounds.
            entries[count] = Entry(g: g, product: product, length: length, match: match, next: -1, extendable: extendable,
                                   position: Int32(k))
            let added = Int32(count)
            count += 1
            if tail[k] >= 0 { entries[Int(tail[k])].next = added } else { head[k] = added }
            tail[k] = added
        }

        func entry(_ k: Int, length: Int32) -> Entry? {
            var index = head[k]
            while index >= 0 {
                if entries[Int(index)].length == length { return entries[Int(index)] }
                index = entries[Int(index)].next
            }
            return nil
        }
    }

    /// The fewest guesses for a password of `n` code points given its candidate `matches`, and
    /// the sequence that needs them.
    mutating func search(_ n: Int, _ matches: [Match]) -> (guesses: Double, sequence: [Match]) {
        let capacity = n * (n + 1) / 2
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4 * (n + 1) + matches.count) { integers in
            withUnsafeTemporaryAllocation(of: Entry.self, capacity: capacity) { entries in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { bestSingle in
                bestSingle.initialize(repeating: .infinity)
                return Search.factorials.withUnsafeBufferPointer { factorials in
                    Search.lengthPenalties.withUnsafeBufferPointer { penalties in
                        Guesses.powersOfTen.withUnsafeBufferPointer { powers in
                            search(n, matches, integers: integers, entries: entries, bestSingle: bestSingle, factorials: factorials,
                                   penalties: penalties, powers: powers)
                        }
                    }
                }
            }
            }
        }
    }

    private mutating func search(_ n: Int, _ matches: [Match], integers: UnsafeMutableBufferPointer<Int32>,
                                 entries: UnsafeMutableBufferPointer<Entry>, bestSingle: UnsafeMutableBufferPointer<Double>,
                                 factorials: UnsafeBufferPointer<Double>,
                                 penalties: UnsafeBufferPointer<Double>, powers: UnsafeBufferPointer<Double>)
        -> (guesses: Double, sequence: [Match]) {
        /// Brute force over `i...j`: 10 per code point, at least 11 (one) or 51 (more), and at
        /// least the floor of a part.
        @inline(__always)
        func bruteForce(_ i: Int, _ j: Int) -> Double {
            let length = j - i + 1
            let least = length == 1 ? Guesses.minimumSubmatchGuessesSingleCharacter + 1 : Guesses.minimumSubmatchGuessesMultiCharacter + 1
            return max(powers[length], least)
        }
        integers.initialize(repeating: -1)
        // Matches by end position, then by start, keeping the matchers' order on ties.
        let starts = UnsafeMutableBufferPointer(rebasing: integers[0..<n + 1])
        let fill = UnsafeMutableBufferPointer(rebasing: integers[n + 1..<2 * n + 2])
        let order = UnsafeMutableBufferPointer(rebasing: integers[4 * n + 4..<4 * n + 4 + matches.count])
        var optimal = Optimal(entries: entries, head: UnsafeMutableBufferPointer(rebasing: integers[2 * n + 2..<3 * n + 3]),
                              tail: UnsafeMutableBufferPointer(rebasing: integers[3 * n + 3..<4 * n + 4]),
                              bestSingle: bestSingle, factorials: factorials, penalties: penalties, powers: powers)
        for k in 0...n { starts[k] = 0 }
        for match in matches { starts[match.j + 1] += 1 }
        for k in 0..<n { starts[k + 1] += starts[k] }
        for k in 0...n { fill[k] = starts[k] }
        for (index, match) in matches.enumerated() {
            // Insertion by start (stable: equal starts keep the matchers' order).
            var slot = Int(fill[match.j])
            fill[match.j] += 1
            while slot > Int(starts[match.j]) && matches[Int(order[slot - 1])].i > match.i {
                order[slot] = order[slot - 1]
                slot -= 1
            }
            order[slot] = Int32(index)
        }

        for k in 0..<n {
            // Entries are created position by position, each position's in the order its lengths
            // first appeared: those before `before` end before k, in zxcvbn's order.
            let before = optimal.count
            for slot in Int(starts[k])..<Int(starts[k + 1]) {
                let index = order[slot]
                let match = matches[Int(index)]
                if match.i > 0 {
                    var previous = optimal.head[match.i - 1]
                    while previous >= 0 {
                        let entry = optimal.entries[Int(previous)]
                        optimal.update(k, match: index, guesses: match.guesses, previous: entry.product, length: entry.length + 1)
                        previous = entry.next
                    }
                } else {
                    optimal.update(k, match: index, guesses: match.guesses, previous: 1, length: 1)
                }
            }
            // Brute force from the start, or after a sequence that does not end in brute force (two
            // brute-force parts in a row are never better than one).
            optimal.update(k, match: -1, guesses: bruteForce(0, k), previous: 1, length: 1)
            for index in 0..<before {
                let entry = optimal.entries[index]
                // Two brute-force parts in a row never win, nor does one after a sequence already
                // dearer than brute force.
                guard entry.extendable else { continue }
                let i = Int(entry.position) + 1
                optimal.update(k, match: Int32(-(i + 1)), guesses: bruteForce(i, k), previous: entry.product, length: entry.length + 1)
            }
        }
        work.searchUpdates += optimal.updates

        // The best length at the end, then back through the matches.
        var best: Entry?
        var index = optimal.head[n - 1]
        while index >= 0 {
            let entry = optimal.entries[Int(index)]
            if let current = best {
                if entry.g < current.g
                    || (entry.g == current.g && optimal.precise(entry.length, entry.product) < optimal.precise(current.length, current.product)) {
                    best = entry
                }
            } else {
                best = entry
            }
            index = entry.next
        }
        // INVARIANT: brute force over the whole password is always an entry at n - 1.
        guard let best else { return (bruteForce(0, n - 1), []) }
        var sequence: [Match] = []
        sequence.reserveCapacity(Int(best.length))
        var k = n - 1
        var length = best.length
        while k >= 0, let entry = optimal.entry(k, length: length) {
            let match: Match
            if entry.match >= 0 {
                match = matches[Int(entry.match)]
            } else {
                let i = -Int(entry.match) - 1
                match = Match(i: i, j: k, guesses: bruteForce(i, k), detail: .bruteForce)
            }
            sequence.append(match)
            k = match.i - 1
            length -= 1
        }
        sequence.reverse()
        return (optimal.precise(best.length, best.product).value, sequence)
    }
}

enum Search {
    /// `l!` for every sequence length (at most one match per code point).
    static let factorials: [Double] = {
        var values: [Double] = [1]
        for length in 1...(StrengthEstimator.maxScoredLength + 1) { values.append(values[length - 1] * Double(length)) }
        return values
    }()

    /// `10000^(l-1)`: an attacker tries shorter sequences first.
    static let lengthPenalties: [Double] = (0...(StrengthEstimator.maxScoredLength + 1)).map { length in
        length == 0 ? 0 : Double("1e\(4 * (length - 1))") ?? .infinity
    }
}

/// A sum kept to about 32 significant digits, as an unevaluated pair of doubles: zxcvbn compares
/// its sequences with 28-digit decimals, so `10²¹ + 1` must stay below `10²¹ + 10⁴` (one brute-force
/// part against a word and a brute-force part), which one double cannot hold.
struct Wide: Comparable {
    var high: Double
    var low: Double

    /// `a × b + c`, with the product's and the sum's rounding errors kept in ``low``.
    @inline(__always)
    init(_ a: Double, times b: Double, plus c: Double) {
        let product = a * b
        let productError = (-product).addingProduct(a, b)
        let sum = product + c
        let virtual = sum - product
        let sumError = (product - (sum - virtual)) + (c - virtual)
        let low = productError + sumError
        high = sum + low
        self.low = low - (high - sum)
    }

    /// The nearest double.
    var value: Double { high + low }

    static func < (lhs: Wide, rhs: Wide) -> Bool {
        lhs.high < rhs.high || (lhs.high == rhs.high && lhs.low < rhs.low)
    }
}
