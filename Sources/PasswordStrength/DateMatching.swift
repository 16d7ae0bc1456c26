/// Recent years and dates, with or without separators.
extension Analyzer {
    // MARK: - Years and dates

    /// Python's `19\d\d|200\d|201\d`, left to right without overlaps.
    mutating func matchRecentYears(_ password: Text, into matches: inout [Match]) {
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
    mutating func matchDates(_ password: Text, into matches: inout [Match]) {
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
