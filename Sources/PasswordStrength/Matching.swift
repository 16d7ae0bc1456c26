/// One analysis: every matcher over a password (or, for a repeat, over its repeated group),
/// then the search for the cheapest sequence. Counts its work in ``work``.
struct Analyzer {
    let estimator: StrengthEstimator
    let userWords: UserWords
    var work = StrengthWork()

    init(estimator: StrengthEstimator, userWords: UserWords) {
        self.estimator = estimator
        self.userWords = userWords
    }

    /// The fewest guesses for `password` and the sequence of matches that needs them.
    mutating func analyze(_ password: Text) -> (guesses: Double, sequence: [Match]) {
        work.analyses += 1
        guard !password.isEmpty else { return (1, []) }
        return search(password.count, candidates(password))
    }

    /// Every match of every matcher in `password`, in zxcvbn's order (before the search).
    mutating func candidates(_ password: Text) -> [Match] {
        let n = password.count
        guard n > 0 else { return [] }
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: n) { lowered in
            for k in 0..<n { lowered[k] = Characters.lowercased(password[k]) }
            let lower = Text(lowered)
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { reach in
              withUnsafeTemporaryAllocation(of: Int32.self, capacity: n * (n + 1)) { path in
                reach.initialize(repeating: 0)
                let walks = Walks(reach: reach, path: path, width: n + 1)
                // zxcvbn's order, which decides between equally good matches of one part.
                var matches: [Match] = []
                matches.reserveCapacity(4 * n)
                matchDictionaries(password, lower, walks: walks, into: &matches)
                matchReversedDictionaries(password, lower, into: &matches)
                matchL33t(password, lower, walks: walks, into: &matches)
                matchSpatial(password, into: &matches)
                matchRepeats(password, into: &matches)
                matchSequences(password, into: &matches)
                matchRecentYears(password, into: &matches)
                matchDates(password, into: &matches)
                work.matches += matches.count
                return matches
              }
            }
        }
    }

    // MARK: - Dictionaries

    private func dictionaryMatch(_ i: Int, _ j: Int, dictionary: Int, rank: Int, reversed: Bool,
                                 substitutions: SubstitutionTable = SubstitutionTable(),
                                 _ password: Text, _ lower: Text) -> Match {
        let guesses = Guesses.dictionary(rank: rank, token: password[i...j], lowercased: lower[i...j], reversed: reversed,
                                         substitutions: substitutions)
        return Match(i: i, j: j, guesses: max(guesses, Guesses.least(length: j - i + 1, total: password.count)),
                     detail: .dictionary(dictionary: dictionary, rank: rank, reversed: reversed, substitutions: substitutions))
    }

    /// The plain walks from each position, kept for the l33t matcher (which follows them up to a
    /// typed character): `reach[i]` code points from `i` on are a prefix of some word, and
    /// `path[i * width + d]` is the node after the first `d` of them.
    struct Walks {
        let reach: UnsafeMutableBufferPointer<Int>
        let path: UnsafeMutableBufferPointer<Int32>
        let width: Int
    }

    /// Every dictionary word at every position, the user inputs last.
    private mutating func matchDictionaries(_ password: Text, _ lower: Text, walks: Walks, into matches: inout [Match]) {
        let lexicon = estimator.lexicon
        let n = lower.count
        for i in 0..<n {
            var node = Lexicon.root
            walks.path[i * walks.width] = node
            var k = i
            while k < n {
                // The first two steps in one table look-up when both are ASCII.
                if k == i + 1 && lower[i] < 128 && lower[k] < 128 {
                    node = lexicon.node(lower[i], lower[k])
                } else {
                    node = lexicon.child(node, lower[k])
                }
                work.lexiconSteps += 1
                guard node >= 0 else { break }
                walks.path[i * walks.width + k - i + 1] = node
                for term in lexicon.terms(node) {
                    matches.append(dictionaryMatch(i, k, dictionary: Int(term.dictionary), rank: Int(term.rank), reversed: false,
                                                   password, lower))
                }
                k += 1
            }
            walks.reach[i] = k - i
        }
        let user = estimator.userInputsDictionary
        for i in 0..<n {
            for word in userWords.words where word.scalars.count <= n - i {
                var t = 0
                while t < word.scalars.count && lower[i + t] == word.scalars[t] { t += 1 }
                work.userInputComparisons += t + 1
                if t == word.scalars.count {
                    matches.append(dictionaryMatch(i, i + t - 1, dictionary: user, rank: word.rank, reversed: false, password, lower))
                }
            }
        }
    }

    /// Every dictionary word spelled backwards, found by walking the tree from each end position.
    private mutating func matchReversedDictionaries(_ password: Text, _ lower: Text, into matches: inout [Match]) {
        let lexicon = estimator.lexicon
        let n = lower.count
        for end in 0..<n {
            var node = Lexicon.root
            var k = end
            while k >= 0 {
                if k == end - 1 && lower[end] < 128 && lower[k] < 128 {
                    node = lexicon.node(lower[end], lower[k])
                } else {
                    node = lexicon.child(node, lower[k])
                }
                work.lexiconSteps += 1
                guard node >= 0 else { break }
                for term in lexicon.terms(node) {
                    matches.append(dictionaryMatch(k, end, dictionary: Int(term.dictionary), rank: Int(term.rank), reversed: true,
                                                   password, lower))
                }
                k -= 1
            }
        }
        let user = estimator.userInputsDictionary
        for end in 0..<n {
            for word in userWords.words where word.scalars.count <= end + 1 {
                var t = 0
                while t < word.scalars.count && lower[end - t] == word.scalars[t] { t += 1 }
                work.userInputComparisons += t + 1
                if t == word.scalars.count {
                    matches.append(dictionaryMatch(end - t + 1, end, dictionary: user, rank: word.rank, reversed: true, password, lower))
                }
            }
        }
    }

    // MARK: - l33t

    /// Words with l33t substitutions (`p@ssw0rd`), as zxcvbn finds them: it translates the whole
    /// password with each of its substitution tables and looks the result up. Here the tree is
    /// walked from each position, trying each typed character both as itself and as each letter it
    /// can stand for (the same way wherever it recurs in the word), and a word is kept when one of
    /// zxcvbn's tables makes exactly those choices (decided by a rule, without the tables).
    private mutating func matchL33t(_ password: Text, _ lower: Text, walks: Walks, into matches: inout [Match]) {
        var present: UInt32 = 0
        for character in password {
            let index = L33t.index(of: character)
            if index >= 0 { present |= 1 << index }
        }
        guard present != 0 else { return }
        var state = L33tState()
        // A word needs a substitution, so a walk that takes every typed character as itself finds
        // nothing the plain walk has not: from each start, follow the plain walk (typed characters
        // as themselves) and branch off at each typed character it reaches, into the letters that
        // character can stand for; later typed characters branch both ways.
        for start in 0..<lower.count {
            var k = start
            while k < lower.count && k - start <= walks.reach[start] {
                let index = L33t.index(of: lower[k])
                if index >= 0 && state.choice[index] == L33tState.undecided {
                    let node = walks.path[start * walks.width + k - start]
                    var letters = L33t.lettersMask[index]
                    while letters != 0 {
                        let letter = letters.trailingZeroBitCount
                        letters &= letters - 1
                        state.choice[index] = UInt8(letter)
                        state.taken = 1 << letter
                        state.decided |= 1 << index
                        state.mapped = 1
                        l33tStep(password, lower, start: start, at: k, node: node, along: L33t.letterCharacters[letter], state: &state,
                                 present: present, into: &matches)
                        state.decided &= ~(1 << index)
                    }
                    // From here on, the plain walk takes it as itself.
                    state.choice[index] = L33tState.literal
                    state.decided |= 1 << index
                    state.taken = 0
                    state.mapped = 0
                }
                k += 1
            }
            state.reset()
        }
        matchL33tUserWords(password, lower, present: present, into: &matches)
    }

    private mutating func l33tWalk(_ password: Text, _ lower: Text, start: Int, at k: Int, node: Int32,
                                   state: inout L33tState, present: UInt32, into matches: inout [Match]) {
        guard k < lower.count else { return }
        let character = lower[k]
        let index = L33t.index(of: character)
        guard index >= 0 else {
            l33tStep(password, lower, start: start, at: k, node: node, along: character, state: &state, present: present, into: &matches)
            return
        }
        switch state.choice[index] {
        case L33tState.undecided:
            state.choice[index] = L33tState.literal
            state.decided |= 1 << index
            l33tStep(password, lower, start: start, at: k, node: node, along: character, state: &state, present: present, into: &matches)
            var letters = L33t.lettersMask[index] & ~state.taken
            while letters != 0 {
                let letter = letters.trailingZeroBitCount
                letters &= letters - 1
                state.choice[index] = UInt8(letter)
                state.taken |= 1 << letter
                state.mapped += 1
                l33tStep(password, lower, start: start, at: k, node: node, along: L33t.letterCharacters[letter], state: &state,
                         present: present, into: &matches)
                state.mapped -= 1
                state.taken &= ~(1 << letter)
            }
            state.decided &= ~(1 << index)
            state.choice[index] = L33tState.undecided
        case L33tState.literal:
            l33tStep(password, lower, start: start, at: k, node: node, along: character, state: &state, present: present, into: &matches)
        case let letter:
            l33tStep(password, lower, start: start, at: k, node: node, along: L33t.letterCharacters[Int(letter)], state: &state,
                     present: present, into: &matches)
        }
    }

    private mutating func l33tStep(_ password: Text, _ lower: Text, start: Int, at k: Int, node: Int32,
                                   along character: UInt32, state: inout L33tState, present: UInt32, into matches: inout [Match]) {
        let child = estimator.lexicon.child(node, character)
        work.lexiconSteps += 1
        guard child >= 0 else { return }
        // zxcvbn keeps words with at least one substitution and of at least two characters.
        if state.mapped > 0 && k > start && estimator.lexicon.isTerminal(child) && isZxcvbnChoice(state, present) {
            let substitutions = state.substitutions
            for term in estimator.lexicon.terms(child) {
                matches.append(dictionaryMatch(start, k, dictionary: Int(term.dictionary), rank: Int(term.rank), reversed: false,
                                               substitutions: substitutions, password, lower))
            }
        }
        l33tWalk(password, lower, start: start, at: k + 1, node: child, state: &state, present: present, into: &matches)
    }

    /// Whether one of zxcvbn's substitution tables for a password holding the typed characters
    /// `present` makes every choice of `state` (``L33t/isTableChoice(_:present:)``).
    private mutating func isZxcvbnChoice(_ state: L33tState, _ present: UInt32) -> Bool {
        work.substitutionChecks += 1
        return L33t.isTableChoice(state, present: present)
    }

    /// User inputs with substitutions: each word fixes every choice, so no search is needed.
    private mutating func matchL33tUserWords(_ password: Text, _ lower: Text, present: UInt32,
                                             into matches: inout [Match]) {
        let n = lower.count
        let user = estimator.userInputsDictionary
        var state = L33tState()
        for i in 0..<n {
            for word in userWords.words where word.scalars.count >= 2 && word.scalars.count <= n - i {
                var fits = true
                for t in word.scalars.indices {
                    work.userInputComparisons += 1
                    let character = lower[i + t], wanted = word.scalars[t]
                    let index = L33t.index(of: character)
                    guard index >= 0 else {
                        if character != wanted { fits = false; break }
                        continue
                    }
                    var choice = L33tState.literal
                    if wanted != character {
                        guard let letter = L33t.lettersOf[index].first(where: { L33t.letterCharacters[$0] == wanted }) else {
                            fits = false
                            break
                        }
                        choice = UInt8(letter)
                    }
                    if state.choice[index] == L33tState.undecided {
                        if choice != L33tState.literal {
                            guard state.taken & 1 << choice == 0 else { fits = false; break }
                            state.taken |= 1 << choice
                            state.mapped += 1
                        }
                        state.choice[index] = choice
                        state.decided |= 1 << index
                    } else if state.choice[index] != choice {
                        fits = false
                        break
                    }
                }
                if fits && state.mapped > 0 && isZxcvbnChoice(state, present) {
                    let end = i + word.scalars.count - 1
                    matches.append(dictionaryMatch(i, end, dictionary: user, rank: word.rank, reversed: false,
                                                   substitutions: state.substitutions, password, lower))
                }
                state.reset()
            }
        }
    }

    // MARK: - Keyboard patterns

    /// Runs of three or more keys, each next to the one before, on each keyboard.
    private mutating func matchSpatial(_ password: Text, into matches: inout [Match]) {
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
    private mutating func matchRepeats(_ password: Text, into matches: inout [Match]) {
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
    private mutating func matchSequences(_ password: Text, into matches: inout [Match]) {
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

    // MARK: - Years and dates

    /// Python's `19\d\d|200\d|201\d`, left to right without overlaps.
    private mutating func matchRecentYears(_ password: Text, into matches: inout [Match]) {
        let n = password.count
        var s = 0
        while s + 4 <= n {
            let p = password
            let isYear = (p[s] == 0x31 && p[s + 1] == 0x39 && Characters.isDigit(p[s + 2]) && Characters.isDigit(p[s + 3]))
                || (p[s] == 0x32 && p[s + 1] == 0x30 && (p[s + 2] == 0x30 || p[s + 2] == 0x31) && Characters.isDigit(p[s + 3]))
            guard isYear else { s += 1; continue }
            let year = p[s..<s + 4].reduce(0) { $0 * 10 + Characters.digitValue($1) }
            matches.append(Match(i: s, j: s + 3, guesses: max(Guesses.recentYear(year), Guesses.least(length: 4, total: n)),
                                 detail: .recentYear(year)))
            s += 4
        }
    }

    /// zxcvbn's ways to split 4 to 8 digits into day, month and year, by length (from 4).
    static let dateSplits: [[(Int, Int)]] = [
        [(1, 2), (2, 3)],
        [(1, 3), (2, 3)],
        [(1, 2), (2, 4), (4, 5)],
        [(1, 3), (2, 3), (4, 5), (4, 6)],
        [(2, 4), (4, 6)],
    ]

    /// Dates of 4 to 8 digits (`1191`, `19911231`) or 6 to 10 characters with two equal
    /// separators (`1.1.91`, `1991-12-31`); a date inside a longer one is dropped.
    private mutating func matchDates(_ password: Text, into matches: inout [Match]) {
        let n = password.count
        // Every date holds at least three digits.
        var digitCount = 0
        for character in password where Characters.isDigit(character) { digitCount += 1 }
        guard digitCount >= 3 else { return }
        var found: [(i: Int, j: Int, date: CalendarDate, separator: Bool)] = []
        func number(_ range: Range<Int>) -> Int { password[range].reduce(0) { $0 * 10 + Characters.digitValue($1) } }
        if n >= 4 {
            for i in 0..<(n - 3) where password[i..<i + 3].allSatisfy(Characters.isDigit) {
                for j in (i + 3)..<min(i + 8, n) {
                    guard Characters.isDigit(password[j]) else { break }
                    var best: CalendarDate?
                    for (k, l) in Self.dateSplits[j - i + 1 - 4] {
                        guard let date = CalendarDate(Self.dayMonthYear(number(i..<i + k), number(i + k..<i + l), number(i + l..<j + 1)))
                        else { continue }
                        // The year closest to the reference year; the first on a tie.
                        if let current = best, abs(date.year - Guesses.referenceYear) >= abs(current.year - Guesses.referenceYear) {
                            continue
                        }
                        best = date
                    }
                    if let best { found.append((i, j, best, false)) }
                }
            }
        }
        // A separated date needs two separators.
        var separators = 0
        for character in password where Self.isDateSeparator(character) { separators += 1 }
        if n >= 6 && separators >= 2 {
            for i in 0..<(n - 5) {
                for j in (i + 5)..<(i + 10) where j < n {
                    if let date = separatedDate(password[i...j]) { found.append((i, j, date, true)) }
                }
            }
        }
        // Drop a date inside another (zxcvbn's noise filter: `2015_06_04` also holds `15_06_04`).
        // Dates are at most 10 long, so only dates starting at most 9 before one can hold it.
        found.sort { ($0.i, $0.j) < ($1.i, $1.j) }
        var kept: [(i: Int, j: Int, date: CalendarDate, separator: Bool)] = []
        for (index, date) in found.enumerated() {
            var inside = false
            var other = index
            while other > 0 && found[other - 1].i >= date.j - 9 { other -= 1 }
            while other < found.count && found[other].i <= date.i {
                if other != index && found[other].j >= date.j { inside = true; break }
                other += 1
            }
            if !inside { kept.append(date) }
        }
        for date in kept {
            let guesses = Guesses.date(year: date.date.year, separator: date.separator)
            matches.append(Match(i: date.i, j: date.j, guesses: max(guesses, Guesses.least(length: date.j - date.i + 1, total: n)),
                                 detail: .date(year: date.date.year, month: date.date.month, day: date.date.day, separator: date.separator)))
        }
    }

    struct CalendarDate {
        var year: Int, month: Int, day: Int
        init?(_ date: (year: Int, month: Int, day: Int)?) {
            guard let date else { return nil }
            (year, month, day) = date
        }
    }

    /// `^(\d{1,4})([\s/\\_.-])(\d{1,2})\2(\d{1,4})$` on `token`, mapped to a date.
    private func separatedDate(_ token: Token) -> CalendarDate? {
        var index = token.startIndex
        func digits(_ most: Int) -> Int? {
            var value = 0, count = 0
            while index < token.endIndex && Characters.isDigit(token[index]) {
                value = value * 10 + Characters.digitValue(token[index])
                count += 1
                index += 1
            }
            return count >= 1 && count <= most ? value : nil
        }
        guard let first = digits(4), index < token.endIndex else { return nil }
        let separator = token[index]
        guard Self.isDateSeparator(separator) else { return nil }
        index += 1
        guard let second = digits(2), index < token.endIndex, token[index] == separator else { return nil }
        index += 1
        guard let third = digits(4), index == token.endIndex else { return nil }
        return CalendarDate(Self.dayMonthYear(first, second, third))
    }

    /// `[\s/\\_.-]`: `/`, `\`, `_`, `.`, `-` or a space.
    @inline(__always)
    static func isDateSeparator(_ character: UInt32) -> Bool {
        character == 0x2F || character == 0x5C || character == 0x5F || character == 0x2E || character == 0x2D
            || Characters.isSpace(character)
    }

    static let minimumYear = 1000
    static let maximumYear = 2050

    /// zxcvbn's `map_ints_to_dmy`: three numbers as a day, month and year, or nil.
    static func dayMonthYear(_ a: Int, _ b: Int, _ c: Int) -> (year: Int, month: Int, day: Int)? {
        guard b <= 31 && b > 0 else { return nil }
        var over12 = 0, over31 = 0, under1 = 0
        func count(_ number: Int) -> Bool {
            if (number > 99 && number < minimumYear) || number > maximumYear { return false }
            if number > 31 { over31 += 1 }
            if number > 12 { over12 += 1 }
            if number <= 0 { under1 += 1 }
            return true
        }
        guard count(a), count(b), count(c) else { return nil }
        if over31 >= 2 || over12 == 3 || under1 >= 2 { return nil }
        // A four-digit year at either end; then the other two must be a day and a month.
        if c >= minimumYear && c <= maximumYear {
            guard let (day, month) = dayMonth(a, b) else { return nil }
            return (c, month, day)
        }
        if a >= minimumYear && a <= maximumYear {
            guard let (day, month) = dayMonth(b, c) else { return nil }
            return (a, month, day)
        }
        // Else a two-digit year at either end.
        if let (day, month) = dayMonth(a, b) { return (fourDigitYear(c), month, day) }
        if let (day, month) = dayMonth(b, c) { return (fourDigitYear(a), month, day) }
        return nil
    }

    private static func dayMonth(_ first: Int, _ second: Int) -> (day: Int, month: Int)? {
        if (1...31).contains(first) && (1...12).contains(second) { return (first, second) }
        if (1...31).contains(second) && (1...12).contains(first) { return (second, first) }
        return nil
    }

    private static func fourDigitYear(_ year: Int) -> Int {
        if year > 99 { return year }
        return year > 50 ? year + 1900 : year + 2000
    }
}

// MARK: - l33t tables

/// zxcvbn's l33t table and the state of one walk.
enum L33t {
    /// Letter → the characters typed for it, in zxcvbn's order.
    static let table: [(letter: UInt32, typed: [UInt32])] = ([
        ("a", "4@"), ("b", "8"), ("c", "({[<"), ("e", "3"), ("g", "69"), ("i", "1!|"),
        ("l", "1|7"), ("o", "0"), ("s", "$5"), ("t", "+7"), ("x", "%"), ("z", "2"),
    ] as [(String, String)]).map { letter, typed in
        (letter.unicodeScalars.first?.value ?? 0, typed.unicodeScalars.map(\.value))
    }

    /// Every typed character once, in order of first appearance.
    static let characters: [UInt32] = {
        var seen: [UInt32] = []
        for entry in table { for character in entry.typed where !seen.contains(character) { seen.append(character) } }
        return seen
    }()

    /// ASCII code point → index in ``characters``, or -1.
    private static let indexTable: [Int] = {
        var table = [Int](repeating: -1, count: 128)
        for (index, character) in characters.enumerated() { table[Int(character)] = index }
        return table
    }()

    @inline(__always)
    static func index(of character: UInt32) -> Int { character < 128 ? indexTable[Int(character)] : -1 }

    /// For each typed character, the letters (indices into ``table``) it can stand for.
    static let lettersOf: [[Int]] = characters.map { character in table.indices.filter { table[$0].typed.contains(character) } }

    /// For each letter, its typed characters as a bit set over ``characters``.
    static let charactersOf: [UInt32] = typedIndices.map { $0.reduce(0) { $0 | 1 << $1 } }

    /// For each typed character, the letters it can stand for as a bit set over ``table``.
    static let lettersMask: [UInt16] = lettersOf.map { $0.reduce(0) { $0 | 1 << $1 } }

    /// Each letter of ``table``.
    static let letterCharacters: [UInt32] = table.map(\.letter)

    /// Groups of letters that share a typed character, transitively (`i`, `l` and `t` through `1`,
    /// `|` and `7`): their letters and their characters, as bit sets. Every other letter is alone.
    static let sharingGroups: [(letters: UInt16, characters: UInt32)] = {
        var groups: [(letters: UInt16, characters: UInt32)] = table.indices.map { (1 << $0, charactersOf[$0]) }
        var index = 0
        while index < groups.count {
            if let other = groups.indices.first(where: { $0 > index && groups[$0].characters & groups[index].characters != 0 }) {
                groups[index].letters |= groups[other].letters
                groups[index].characters |= groups[other].characters
                groups.remove(at: other)
            } else {
                index += 1
            }
        }
        return groups.filter { $0.letters.nonzeroBitCount > 1 }
    }()

    /// The letters in no ``sharingGroups`` entry.
    static let aloneLetters: UInt16 = sharingGroups.reduce(UInt16(1 << table.count) - 1) { $0 & ~$1.letters }

    /// Whether one of ``substitutionTables(present:)`` agrees with every decided choice of
    /// `state`, without building the tables.
    ///
    /// The tables are exactly the maps from present typed characters to letters in which each
    /// letter has at most one character and every letter with a present character has one of its
    /// characters mapped (to it or to another letter): a letter whose characters are all free when
    /// its turn comes must take one, a character once taken stays taken, and any other such map
    /// can be reached (checked against the enumeration by the tests). So the choices are some
    /// table's when the characters not decided can be mapped, each to a distinct letter not taken
    /// by the choices, so that every such letter is covered.
    static func isTableChoice(_ state: L33tState, present: UInt32) -> Bool {
        let undecided = present & ~state.decided
        var mapped: UInt32 = 0
        var rest = state.decided
        while rest != 0 {
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            if state.choice[index] != L33tState.literal { mapped |= 1 << index }
        }
        var alone = aloneLetters
        while alone != 0 {
            let letter = alone.trailingZeroBitCount
            alone &= alone - 1
            let characters = charactersOf[letter] & present
            // A letter alone can only be covered by its own characters.
            if characters != 0 && characters & mapped == 0 && characters & undecided == 0 { return false }
        }
        for group in sharingGroups
        where !canCover(group.letters, group.characters & undecided, present: present, mapped: mapped, taken: state.taken) {
            return false
        }
        return true
    }

    /// Whether the characters `free` of a group of letters sharing characters can be mapped, each
    /// to a distinct letter of the group not in `taken`, so that every letter of the group with a
    /// present character has a mapped character. At most 3⁵ assignments (`1 ! | 7 +`).
    private static func canCover(_ letters: UInt16, _ free: UInt32, present: UInt32, mapped: UInt32, taken: UInt16) -> Bool {
        func covered(_ assigned: UInt32) -> Bool {
            var rest = letters
            while rest != 0 {
                let letter = rest.trailingZeroBitCount
                rest &= rest - 1
                let characters = charactersOf[letter] & present
                if characters != 0 && characters & (mapped | assigned) == 0 { return false }
            }
            return true
        }
        func search(_ candidates: UInt32, _ assigned: UInt32, _ used: UInt16) -> Bool {
            if covered(assigned) { return true }
            guard candidates != 0 else { return false }
            let character = candidates.trailingZeroBitCount
            let others = candidates & (candidates - 1)
            var options = lettersMask[character] & ~(taken | used)
            while options != 0 {
                let letter = options.trailingZeroBitCount
                options &= options - 1
                if search(others, assigned | 1 << character, used | 1 << letter) { return true }
            }
            return search(others, assigned, used)
        }
        return search(free, 0, 0)
    }

    /// zxcvbn's substitution tables for a password holding the typed characters `present`: each
    /// maps some typed characters to a letter (`table[c]`, or ``L33tState/literal`` for none).
    ///
    /// Built letter by letter in table order: each table takes one of the letter's present
    /// characters; a character another letter already took is either left there (the table is
    /// kept as it is) or moved to this letter. Equal tables are kept once. At most 736 (every
    /// typed character present).
    static func substitutionTables(present: UInt32) -> [SubstitutionTable] {
        var tables = [SubstitutionTable()]
        var next: [SubstitutionTable] = []
        var seen = Set<SubstitutionTable>()
        func keep(_ table: SubstitutionTable) {
            // Few tables as a rule: a linear search beats hashing, up to a point.
            if next.count < 16 {
                if !next.contains(table) { next.append(table) }
                return
            }
            if seen.isEmpty { seen.formUnion(next) }
            if seen.insert(table).inserted { next.append(table) }
        }
        for (letter, typed) in typedIndices.enumerated() {
            guard typed.contains(where: { present & 1 << $0 != 0 }) else { continue }
            next.removeAll(keepingCapacity: true)
            seen.removeAll(keepingCapacity: true)
            for character in typed where present & 1 << character != 0 {
                for table in tables {
                    if table[character] != SubstitutionTable.none { keep(table) }
                    var extended = table
                    extended[character] = UInt8(letter)
                    keep(extended)
                }
            }
            swap(&tables, &next)
        }
        return tables
    }

    /// For each letter of ``table``, its typed characters as indices into ``characters``.
    static let typedIndices: [[Int]] = table.map { $0.typed.map { index(of: $0) } }
}

/// For each of the 20 typed characters of ``L33t/characters``, the letter (an index into
/// ``L33t/table``) it stands for, or ``none``: 4 bits each, in two words.
struct SubstitutionTable: Hashable {
    static let none: UInt8 = 0xF
    var low: UInt64 = .max
    var high: UInt64 = .max

    /// Every character stands for none.
    init() {}

    init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// Every nibble `value`.
    init(repeating value: UInt8) {
        let word = UInt64(value & 0xF) &* 0x1111_1111_1111_1111
        low = word
        high = word
    }

    @inline(__always)
    subscript(index: Int) -> UInt8 {
        get { UInt8(truncatingIfNeeded: (index < 16 ? low >> (4 * index) : high >> (4 * (index - 16))) & 0xF) }
        set {
            let value = UInt64(newValue & 0xF)
            if index < 16 {
                low = low & ~(0xF << (4 * index)) | value << (4 * index)
            } else {
                high = high & ~(0xF << (4 * (index - 16))) | value << (4 * (index - 16))
            }
        }
    }

    /// True when no character stands for a letter.
    var isEmpty: Bool { low == .max && high == .max }

    /// The substitutions, in the order of ``L33t/characters``.
    var substitutions: [DictionaryMatch.Substitution] {
        L33t.characters.indices.compactMap { index in
            let letter = self[index]
            guard letter != Self.none, let typed = Unicode.Scalar(L33t.characters[index]),
                  let plain = Unicode.Scalar(L33t.table[Int(letter)].letter) else { return nil }
            return DictionaryMatch.Substitution(typed: typed, letter: plain)
        }
    }
}

/// The choices of one l33t walk: for each typed character, undecided, itself (``literal``), or a
/// letter; which letters are taken; which characters are decided.
struct L33tState {
    static let undecided: UInt8 = 0xE
    static let literal: UInt8 = SubstitutionTable.none

    var choice = SubstitutionTable(repeating: undecided)
    /// Bit `l`: letter `l` has a character standing for it.
    var taken: UInt16 = 0
    /// Bit `c`: typed character `c` is decided.
    var decided: UInt32 = 0
    /// How many decided characters stand for a letter.
    var mapped = 0

    /// The decided choices as a table (undecided and literal characters stand for none).
    var substitutions: SubstitutionTable {
        var table = SubstitutionTable()
        var rest = decided
        while rest != 0 {
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            if choice[index] != Self.literal { table[index] = choice[index] }
        }
        return table
    }

    /// The bits of ``SubstitutionTable`` that the decided characters occupy.
    var decidedMask: SubstitutionTable {
        var mask = SubstitutionTable(repeating: 0)
        var rest = decided
        while rest != 0 {
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            mask[index] = 0xF
        }
        return mask
    }

    mutating func reset() {
        self = L33tState()
    }
}
