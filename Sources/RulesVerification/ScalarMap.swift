// ScalarMap: functions on strings that map each scalar to a string of scalars on its own —
// `lower()` and `upper()` (RulesLanguage's ``CaseMapping``) and canonical decomposition (what
// Swift's `==` compares) — as tables made once, lazily, by running the Swift functions over every
// scalar of Z3's alphabet. ``CharAutomaton/preimage(_:)-(ScalarMap)`` pushes a language back
// through one of them; ``CharAutomaton/canonicallyEqual(to:)`` builds the strings `==` finds
// equal to literals. Nothing here is written by hand from the Unicode tables.
@_spi(_Unicode) import Swift
import RulesLanguage

/// A function from each scalar to a non-empty string of scalars, applied to a string one scalar at
/// a time.
struct ScalarMap: Sendable {
    typealias CharSet = RegexTranslator.CharSet

    /// The image of each scalar the function changes.
    let images: [UInt32: [UInt32]]
    /// The scalars the function changes.
    let changed: CharSet
    /// The changed scalars by the first scalar of their image, in order of that first scalar.
    private let byFirst: [(first: UInt32, scalar: UInt32)]

    /// The table of `function` over every scalar of Z3's alphabet (surrogate code points, which
    /// no Swift string holds, are left as they are).
    init<Image: Sequence<Unicode.Scalar>>(_ function: (Unicode.Scalar) -> Image) {
        var images: [UInt32: [UInt32]] = [:]
        for value in UInt32(0)...RegexTranslator.maxCharacter {
            guard let scalar = Unicode.Scalar(value) else { continue }
            // Most scalars map to themselves: look before copying.
            var iterator = function(scalar).makeIterator()
            if iterator.next() == scalar, iterator.next() == nil { continue }
            images[value] = function(scalar).map(\.value)
        }
        self.images = images
        changed = RegexTranslator.normalize(images.keys.map { ($0, $0) })
        byFirst = images.compactMap { scalar, image in image.first.map { ($0, scalar) } }.sorted { ($0.first, $0.scalar) < ($1.first, $1.scalar) }
    }

    /// The image of `scalar`.
    func image(_ scalar: UInt32) -> [UInt32] { images[scalar] ?? [scalar] }

    /// The image of `text`.
    func image(of text: [UInt32]) -> [UInt32] { text.flatMap(image) }

    /// The changed scalars whose image starts with a scalar of `set`.
    func changedScalars(startingIn set: CharSet) -> [UInt32] {
        var out: [UInt32] = []
        for (low, high) in set {
            // The first entry whose image starts at or after `low`.
            var lower = 0, upper = byFirst.count
            while lower < upper {
                let middle = (lower + upper) / 2
                if byFirst[middle].first < low { lower = middle + 1 } else { upper = middle }
            }
            while lower < byFirst.count, byFirst[lower].first <= high {
                out.append(byFirst[lower].scalar)
                lower += 1
            }
        }
        return out
    }

    /// `lower()` as the evaluator computes it, one scalar at a time.
    static let lowercase = ScalarMap { CaseMapping.lower.apply(String($0)).unicodeScalars }
    /// `upper()` as the evaluator computes it, one scalar at a time.
    static let uppercase = ScalarMap { CaseMapping.upper.apply(String($0)).unicodeScalars }
    /// Full canonical decomposition, as the standard library's normalizer (the one its `==`
    /// compares with) writes a single scalar.
    static let decomposition = ScalarMap { String($0)._nfd }

    /// The map of `mapping`.
    static func of(_ mapping: CaseMapping) -> ScalarMap {
        switch mapping {
        case .lower: lowercase
        case .upper: uppercase
        }
    }
}

/// Canonical equivalence, which Swift's `==` on strings decides: two strings are equal when their
/// canonical decompositions, each run of combining marks stably sorted by combining class, are the
/// same scalars.
enum CanonicalEquivalence {
    /// Most orders of one run of combining marks that ``orders(of:)`` writes out.
    static let maxOrders = 120

    /// The canonical decomposition of `text` in canonical order (its NFD), as scalar values.
    static func normalForm(_ text: String) -> [UInt32] { text._nfd.map(\.value) }

    /// `scalars` (a normal form) cut into its pieces: each starter alone, each run of combining
    /// marks (non-zero combining class) as one piece.
    static func pieces(_ scalars: [UInt32]) -> [[UInt32]] {
        var pieces: [[UInt32]] = []
        var inRun = false
        for value in scalars {
            let mark = combiningClass(value) != 0
            if mark && inRun { pieces[pieces.count - 1].append(value) } else { pieces.append([value]) }
            inRun = mark
        }
        return pieces
    }

    /// Every order of the run of combining marks `run` that canonical ordering sorts back to `run`
    /// (marks of one class keep their order; marks of different classes interleave), or nil when
    /// there are more than ``maxOrders``.
    static func orders(of run: [UInt32]) -> [[UInt32]]? {
        // The marks by class, each class's marks in order.
        var classes: [UInt8] = []
        var groups: [[UInt32]] = []
        for value in run {
            let c = combiningClass(value)
            if let index = classes.firstIndex(of: c) { groups[index].append(value) } else { classes.append(c); groups.append([value]) }
        }
        // The multinomial count, checked before any order is written.
        var count = 1, placed = 0
        for group in groups {
            for k in 1...group.count {
                placed += 1
                count = count * placed / k
                if count > maxOrders { return nil }
            }
        }
        var out: [[UInt32]] = []
        var next = Array(repeating: 0, count: groups.count)
        var current: [UInt32] = []
        func extend() {
            if current.count == run.count { out.append(current); return }
            for index in groups.indices where next[index] < groups[index].count {
                current.append(groups[index][next[index]])
                next[index] += 1
                extend()
                next[index] -= 1
                current.removeLast()
            }
        }
        extend()
        return out
    }

    private static func combiningClass(_ value: UInt32) -> UInt8 {
        Unicode.Scalar(value).map { $0.properties.canonicalCombiningClass.rawValue } ?? 0
    }
}
