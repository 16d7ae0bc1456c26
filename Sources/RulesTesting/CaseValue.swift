/// A value in a case file after `__type__` wrappers are decoded: what a document field, an auth
/// token claim or a query parameter holds before it becomes a rules value.
public indirect enum CaseValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case list([CaseValue])
    case map([String: CaseValue])
    /// `{"__type__": "timestamp", "value": "RFC 3339"}`
    case timestamp(CaseTimestamp)
    /// `{"__type__": "duration", "seconds": N, "nanos": N}`
    case duration(seconds: Int64, nanos: Int32)
    /// `{"__type__": "bytes", "base64": "…"}`
    case bytes([UInt8])
    /// `{"__type__": "latlng", "latitude": x, "longitude": y}`
    case latlng(latitude: Double, longitude: Double)
    /// `{"__type__": "path", "value": "/…"}`
    case path(String)
    /// `{"__type__": "request_time"}`: the case's `time`.
    case requestTime
}

/// An instant: whole seconds since 1970-01-01T00:00:00Z and nanoseconds (0 ..< 1e9).
public struct CaseTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since the Unix epoch (negative before 1970).
    public var seconds: Int64
    /// Nanoseconds within the second, 0 ..< 1,000,000,000.
    public var nanos: Int32

    /// Creates an instant.
    public init(seconds: Int64, nanos: Int32 = 0) {
        self.seconds = seconds
        self.nanos = nanos
    }

    public static func < (lhs: CaseTimestamp, rhs: CaseTimestamp) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }

    /// The default `request.time` of a case: 2026-01-01T00:00:00Z.
    public static let defaultRequestTime = CaseTimestamp(seconds: 1_767_225_600)

    /// RFC 3339 in UTC with as many fraction digits as needed (`2026-01-05T10:00:00.5Z`).
    public var description: String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = RFC3339.civil(fromDays: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if nanos > 0 {
            var fraction = pad(Int64(nanos), 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }
}

/// RFC 3339 `date-time` parsing (section 5.6), the form case files use for times.
public enum RFC3339 {
    /// Parses `2026-01-05T10:00:00Z`, `2026-01-05T12:00:00.123456789+02:00` and the like.
    ///
    /// Accepts `T`/`t`/space between date and time, `Z`/`z` or a `±HH:MM` offset, and up to nine
    /// fraction digits. Years 0001–9999 (the range Firestore timestamps allow); no leap seconds.
    /// - Returns: the instant, or nil when `text` is not a valid RFC 3339 date-time.
    public static func parse(_ text: String) -> CaseTimestamp? {
        let chars = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= chars.count else { return nil }
            var value: Int64 = 0
            for byte in chars[index..<index + width] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += width
            return value
        }
        func literal(_ options: String) -> Bool {
            guard index < chars.count, options.utf8.contains(chars[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), literal("-"), let month = number(2), literal("-"), let day = number(2),
              literal("Tt "), let hour = number(2), literal(":"), let minute = number(2), literal(":"),
              let second = number(2) else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        var nanos: Int64 = 0
        if literal(".") {
            var digits = 0
            while index < chars.count, chars[index] >= 0x30, chars[index] <= 0x39 {
                guard digits < 9 else { return nil }
                nanos = nanos * 10 + Int64(chars[index] - 0x30)
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<9 { nanos *= 10 }
        }
        var offset: Int64 = 0
        if literal("Zz") {
            offset = 0
        } else if index < chars.count, chars[index] == UInt8(ascii: "+") || chars[index] == UInt8(ascii: "-") {
            let sign: Int64 = chars[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2), literal(":"), let offsetMinutes = number(2),
                  offsetHours < 24, offsetMinutes < 60 else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == chars.count else { return nil }
        let seconds = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return CaseTimestamp(seconds: seconds, nanos: Int32(nanos))
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days-from-civil algorithm (proleptic Gregorian calendar).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
