import BreachedPasswords

/// The breached-password store's two readers of untrusted bytes: the importer's line parser and
/// the store reader.
///
/// First byte even: the rest is a Pwned Passwords file. `BreachedImport.parseLines` must agree
/// with ``ReferencePwnedLines`` (the format written out plainly: split at LF, drop one CR, then
/// 40 hex digits, `:`, decimal digits whose value fits 32 bits) on the first malformed line and
/// on every hash and count before it; the reason names a column and never quotes the line.
/// When the file is well formed, a store built from it finds every hash with its highest count.
///
/// First byte odd: the rest is a store file. Opening it either fails or gives a store whose
/// lookups, ranges and entries stay inside it (AddressSanitizer checks) and answer the same twice;
/// a store that opens and is sorted finds each of its entries.
///
/// Findings never print a hash.
public enum BreachedHarness {
    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let mode = input.first else { return [] }
        let body = UnsafeRawBufferPointer(rebasing: input[1...])
        return mode & 1 == 0 ? lines(body) : store(body)
    }

    static func lines(_ bytes: UnsafeRawBufferPointer) -> [FuzzFinding] {
        var findings: [FuzzFinding] = []
        var ours: [(SHA1Digest, UInt32)] = []
        let error = BreachedImport.parseLines(bytes) { ours.append(($0, $1)) }
        let reference = ReferencePwnedLines.parse(Array(bytes))
        if error?.line != reference.badLine {
            findings.append(FuzzFinding("first malformed line: parser \(error?.line ?? 0), reference \(reference.badLine ?? 0) (0: none)"))
        }
        if ours.count != reference.entries.count || !zip(ours, reference.entries).allSatisfy({ $0.0 == $1.0 && $0.1 == $1.1 }) {
            findings.append(FuzzFinding("the parser read \(ours.count) lines, the reference \(reference.entries.count), or their hashes or counts differ"))
        }
        if let error {
            if !error.reason.contains("column") && !error.reason.contains("count") && !error.reason.contains("ends after") {
                findings.append(FuzzFinding("a reason that names no column: \(error.reason.count) characters"))
            }
            if error.reason.utf8.count > 120 { findings.append(FuzzFinding("a reason of \(error.reason.utf8.count) bytes (quoting the line?)")) }
        } else if !ours.isEmpty, ours.count <= 64 {
            let entries = ours.map { BreachedStore.Entry(hash: $0.0, count: $0.1) }
            let bytes = BreachedStore.bytes(of: entries)
            guard let store = try? bytes.withUnsafeBytes({ try BreachedStore(bytes: $0) }) else {
                return findings + [FuzzFinding("a store built from \(entries.count) entries does not open")]
            }
            var highest: [SHA1Digest: UInt32] = [:]
            for (hash, count) in ours { highest[hash] = max(highest[hash] ?? 0, count) }
            if store.count != highest.count { findings.append(FuzzFinding("the store holds \(store.count) hashes, not \(highest.count)")) }
            for (hash, count) in highest where store.count(hash: hash) != count {
                findings.append(FuzzFinding("a stored hash is not found with its highest count"))
            }
        }
        return findings
    }

    static func store(_ bytes: UnsafeRawBufferPointer) -> [FuzzFinding] {
        guard let store = try? BreachedStore(bytes: bytes) else { return [] }
        var findings: [FuzzFinding] = []
        let entries = store.entries(0..<min(store.count, 256))
        if entries.count != min(store.count, 256) { findings.append(FuzzFinding("entries(0..<n) gave \(entries.count) of \(min(store.count, 256))")) }
        let sorted = zip(entries, entries.dropFirst()).allSatisfy { $0.hash < $1.hash }
        for entry in entries {
            let found = store.count(hash: entry.hash)
            if found != store.count(hash: entry.hash) { findings.append(FuzzFinding("two lookups of one hash differ")) }
            if sorted, store.count <= 256, found == nil { findings.append(FuzzFinding("a sorted store does not find its own entry")) }
            if store.isExact, let range = try? store.range(prefix: entry.hash.prefix) {
                if sorted, store.count <= 256, !range.contains(entry) { findings.append(FuzzFinding("a range misses an entry with its prefix")) }
                if sorted, range.contains(where: { $0.hash.prefix != entry.hash.prefix }) {
                    findings.append(FuzzFinding("a range holds a hash with another prefix"))
                }
            }
        }
        // Lookups of hashes made from the bytes, and the first and last ranges.
        var probe = [UInt8](repeating: 0, count: 20)
        for (index, byte) in bytes.prefix(20).enumerated() { probe[index] = byte }
        _ = probe.withUnsafeBytes { store.count(hash: SHA1Digest(bytes: $0)) }
        if store.isExact {
            _ = try? RangeAnswer.text(prefix: 0, store: store, padded: false)
            _ = try? RangeAnswer.text(prefix: 0xFFFFF, store: store, padded: false)
        }
        return findings
    }
}

/// The `HEX40:COUNT` format written out plainly, for the differential.
enum ReferencePwnedLines {
    static func parse(_ bytes: [UInt8]) -> (entries: [(SHA1Digest, UInt32)], badLine: Int?) {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // A final line feed ends the last line; it does not start an empty one.
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        if bytes.isEmpty { lines = [] }
        var entries: [(SHA1Digest, UInt32)] = []
        for (index, raw) in lines.enumerated() {
            var line = Array(raw)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            guard line.count >= 42, line[40] == UInt8(ascii: ":"), line[0..<40].allSatisfy(isHex),
                  line[41...].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                return (entries, index + 1)
            }
            var count: UInt64 = 0
            for digit in line[41...] {
                count = count * 10 + UInt64(digit - UInt8(ascii: "0"))
                if count > UInt64(UInt32.max) { return (entries, index + 1) }
            }
            var hash = [UInt8](repeating: 0, count: 20)
            for nibble in 0..<40 {
                hash[nibble / 2] |= hexValue(line[nibble]) << (nibble % 2 == 0 ? 4 : 0)
            }
            entries.append((hash.withUnsafeBytes { SHA1Digest(bytes: $0) }, UInt32(count)))
        }
        return (entries, nil)
    }

    static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    static func hexValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: byte - UInt8(ascii: "A") + 10
        }
    }
}
