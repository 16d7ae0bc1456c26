// CivilTime: proleptic Gregorian calendar arithmetic for timestamps (UTC), without Foundation.

/// Calendar conversions (H. Hinnant's `days_from_civil` / `civil_from_days`).
package enum CivilTime {
    /// Days since 1970-01-01 for a civil date (the verifier encodes `timestamp.date()` with it).
    package static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Seconds since midnight (UTC) of an epoch second count; never overflows.
    static func secondsIntoDay(_ seconds: Int64) -> Int64 {
        let r = seconds % 86_400
        return r < 0 ? r + 86_400 : r
    }

    /// Division rounding toward negative infinity (`b > 0`); never overflows.
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && a < 0) ? q - 1 : q
    }

    static func format(_ t: Timestamp) -> String {
        let day = floorDiv(t.seconds, 86_400)
        let secondOfDay = secondsIntoDay(t.seconds)
        let (y, m, d) = civil(days: day)
        var out = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
        out += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if t.nanos != 0 {
            var fraction = pad(Int64(t.nanos), 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            out += "." + fraction
        }
        return out + "Z"
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(abs(value))
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    static func parse(_ text: String) -> Timestamp? {
        let b = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var value: Int64 = 0
            for i in from..<(from + count) {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                value = value * 10 + Int64(b[i] - 0x30)
            }
            return value
        }
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        var nanos: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                if digits < 9 { nanos = nanos * 10 + Int64(b[i] - 0x30) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 9) { nanos *= 10 }
        }
        var offset: Int64 = 0
        guard i < b.count else { return nil }
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            guard let oh = number(i + 1, 2), i + 3 < b.count, b[i + 3] == UInt8(ascii: ":"), let om = number(i + 4, 2) else { return nil }
            offset = (oh * 3600 + om * 60) * (b[i] == UInt8(ascii: "+") ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset
        return Timestamp(seconds: seconds, nanos: Int32(nanos))
    }

    package static func isLeap(_ year: Int64) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    package static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
