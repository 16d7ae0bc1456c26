/// Dictionary matching: every word of every dictionary (the user's inputs last) at every
/// position, reversed, and with zxcvbn's l33t substitutions.
extension Analyzer {
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
    mutating func matchDictionaries(_ password: Text, _ lower: Text, walks: Walks, into matches: inout [Match]) {
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
    mutating func matchReversedDictionaries(_ password: Text, _ lower: Text, into matches: inout [Match]) {
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
    mutating func matchL33t(_ password: Text, _ lower: Text, walks: Walks, into matches: inout [Match]) {
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
}
