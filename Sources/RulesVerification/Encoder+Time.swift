// Encoder+Time: timestamp methods, and `timestamp.date()`/`duration.value()` of literal arguments
// (others are abstracted); timestamps and durations are nanosecond Int terms.
import Diagnostics
import RulesLanguage

extension Encoder {
    // MARK: - Time

    func timestampMethod(_ t: String, _ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        switch (name, args.count) {
        case ("toMillis", 0): return SymValue(.int("(div \(t) 1000000)"))
        case ("nanos", 0): return SymValue(.int("(mod \(t) 1000000000)"))
        case ("seconds", 0): return SymValue(.int("(div (mod \(t) 60000000000) 1000000000)"))
        case ("minutes", 0): return SymValue(.int("(div (mod \(t) 3600000000000) 60000000000)"))
        case ("hours", 0): return SymValue(.int("(div (mod \(t) 86400000000000) 3600000000000)"))
        case ("date", 0): return SymValue(.timestamp("(* (div \(t) 86400000000000) 86400000000000)"))
        case ("time", 0): return SymValue(.duration("(mod \(t) 86400000000000)"))
        case ("year", 0), ("month", 0), ("day", 0), ("dayOfWeek", 0), ("dayOfYear", 0): return anyValue("timestamp.\(name)()", span)
        default: return .error
        }
    }

    func timestampFunction(_ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        if name == "date", args.count == 3,
           let y = concreteInt(args[0]), let m = concreteInt(args[1]), let d = concreteInt(args[2]) {
            // As the evaluator: a date that does not exist (2023-02-30) is an error.
            guard (1...9999).contains(y), (1...12).contains(m), d >= 1, d <= CivilTime.daysIn(month: m, year: y) else { return .error }
            let days = CivilTime.days(year: y, month: m, day: d)
            return SymValue(.timestamp(SMT.int(days * 86_400 * 1_000_000_000)))
        }
        return anyValue("timestamp.\(name)() with computed arguments", span)
    }

    func durationFunction(_ name: String, _ args: [SymValue], _ span: SourceSpan) -> SymValue {
        if name == "value", args.count == 2, let n = concreteInt(args[0]), args[1].alts.count == 1,
           case .string(let unitTerm) = args[1].alts[0].payload, let unit = SMT.concreteString(unitTerm) {
            let scale: [String: Int64] = ["w": 604_800_000_000_000, "d": 86_400_000_000_000, "h": 3_600_000_000_000,
                                          "m": 60_000_000_000, "s": 1_000_000_000, "ms": 1_000_000, "ns": 1]
            if let factor = scale[unit] {
                let (product, overflow) = n.multipliedReportingOverflow(by: factor)
                if !overflow { return SymValue(.duration(SMT.int(product))) }
            }
        }
        return anyValue("duration.\(name)() with computed arguments", span)
    }

    private func concreteInt(_ v: SymValue) -> Int64? {
        guard v.err == "false", v.alts.count == 1, case .int(let term) = v.alts[0].payload else { return nil }
        if let n = Int64(term) { return n }
        return SExpr.parse(term).first?.integer
    }
}
