/// Labelled email addresses for the shipped `email` pack.
///
/// A valid base is a dot-atom local part (ASCII atext, sometimes Unicode letters) and a domain of
/// 2–4 LDH labels (sometimes an internationalized label known to pass IDNA 2008) under a letter
/// top-level domain that is not special-use. Each record applies one mutation from ``mutations``
/// (or none) and expects exactly its code.
public struct EmailCorpus: FieldCorpus {
    /// Every mutation and the code it must produce (`valid`: none).
    public static let mutations: [(name: String, codes: [String])] = [
        ("valid", []), ("unsafe-character", ["EM101"]), ("display-name-form", ["EM102"]),
        ("quoted-local-part", ["EM103"]), ("comment", ["EM104"]), ("domain-literal", ["EM105"]),
        ("no-at-sign", ["EM106"]), ("two-at-signs", ["EM106"]), ("address-too-long", ["EM107"]),
        ("empty-local-part", ["EM110"]), ("local-part-too-long", ["EM111"]),
        ("local-part-forbidden-character", ["EM112"]), ("local-part-leading-period", ["EM113"]),
        ("local-part-trailing-period", ["EM114"]), ("local-part-double-period", ["EM115"]),
        ("empty-domain", ["EM120"]), ("domain-forbidden-character", ["EM121"]),
        ("domain-leading-period", ["EM122"]), ("domain-trailing-period", ["EM123"]),
        ("domain-double-period", ["EM124"]), ("label-hyphen", ["EM125"]), ("bad-idn-label", ["EM126"]),
        ("dotless-domain", ["EM127"]), ("label-too-long", ["EM128"]), ("numeric-top-level-domain", ["EM129"]),
        ("reserved-hyphens", ["EM130"]), ("special-use-domain", ["EM131"]),
    ]

    static let atext = Alphabet.lower + Alphabet.upper + Alphabet.digits + Array("!#$%&'*+/=?^_`{|}~-")
    static let ldh = Alphabet.lower + Alphabet.digits
    static let unicodeLetters = Array("äöüßéèñçøåæœłżčřšžяжщ中文日本語한국")
    /// Labels that pass UTS 46 + IDNA 2008.
    static let idnLabels = ["bücher", "münchen", "straße", "пример", "例え", "δοκιμή", "españa", "ñandú", "café"]
    static let topLevel = ["com", "org", "net", "io", "de", "fr", "co", "app", "dev", "example", "xn--p1ai", "museum"]
    static let specialUse = ["arpa", "invalid", "local", "localhost", "onion", "test"]
    /// Characters that are unsafe anywhere (EM101); put in the local part.
    static let unsafe: [Unicode.Scalar] = [" ", "\u{0}", "\t", "\n", "\u{7F}", "\u{85}", "\u{A0}", "\u{AD}", "\u{200B}",
                                           "\u{200D}", "\u{202E}", "\u{2066}", "\u{2028}", "\u{2029}", "\u{3000}",
                                           "\u{E000}", "\u{FEFF}", "\u{FFFF}", "\u{10FFFF}"]
    static let localForbidden: [Unicode.Scalar] = [",", ";", ":", "\\", "[", "]"]
    static let domainForbidden: [Unicode.Scalar] = ["_", "!", "+", "=", "#", "$", "%", "&", "*", "/", "?", "~", "'"]
    /// `xn--` labels that do not decode, and Unicode labels IDNA 2008 disallows.
    static let badIDNLabels = ["xn--zz", "xn--a", "xn--0", "\u{2665}\u{FE0F}", "a\u{2615}b"]

    private var random: SeededRandom

    /// Creates the generator; the same seed always yields the same records.
    public init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func atom(_ length: Int, unicode: Bool) -> String {
        String((0..<length).map { _ in unicode && random.chance(30) ? random.pick(Self.unicodeLetters) : random.pick(Self.atext) })
    }

    /// A valid local part of 1...`maxOctets` UTF-8 octets.
    mutating func localPart(maxOctets: Int = 40) -> String {
        let unicode = random.chance(15)
        var local = ""
        repeat {
            let atom = atom(random.int(in: 1...10), unicode: unicode)
            if local.isEmpty { local = atom } else { local += "." + atom }
        } while random.chance(40)
        while local.utf8.count > maxOctets { local = String(local.unicodeScalars.dropLast().map(Character.init)) }
        while local.hasSuffix(".") { local.removeLast() }
        return local.isEmpty ? "a" : local
    }

    /// A valid LDH label (no hyphen at either end, none in positions 3–4).
    mutating func label(_ length: Int) -> String {
        var chars = (0..<length).map { _ in random.pick(Self.ldh) }
        if length >= 3, random.chance(20) {
            let position = random.int(in: 1...(length - 2))
            if position != 2, position != 3 { chars[position] = "-" }
        }
        return String(chars)
    }

    mutating func labels(maxLabels: Int = 3) -> [String] {
        (0..<random.int(in: 1...maxLabels)).map { _ in
            random.chance(10) ? random.pick(Self.idnLabels) : label(random.int(in: 1...15))
        }
    }

    mutating func domain() -> String { (labels() + [random.pick(Self.topLevel)]).joined(separator: ".") }

    /// A valid domain of LDH labels only, under a TLD that is not `xn--`: for mutations whose code
    /// IDNA would pre-empt (libidn2 rejects over-long Unicode domains and labels as a whole).
    mutating func asciiDomain() -> String {
        ((0..<random.int(in: 1...3)).map { _ in label(random.int(in: 1...15)) } + [random.pick(Self.topLevel.filter { !$0.hasPrefix("xn--") })])
            .joined(separator: ".")
    }

    /// The next labelled address.
    public mutating func next() -> CorpusRecord {
        let mutation = Self.mutations[random.index(Self.mutations.count)]
        func record(_ value: String, _ detail: String = "") -> CorpusRecord {
            CorpusRecord(value: value, mutation: mutation.name, detail: detail, expect: mutation.codes)
        }
        let local = localPart()
        let domain = domain()
        switch mutation.name {
        case "valid": return record(local + "@" + domain)
        case "unsafe-character":
            let scalar = random.pick(Self.unsafe)
            let position = random.int(in: 1...local.unicodeScalars.count)
            return record(local.inserting(String(scalar), atScalar: position) + "@" + domain, "\(scalarName(scalar)) at \(position)")
        case "display-name-form":
            // ASCII domain: with an `xn--` label the `>` makes EM126 fire as well (docs/CORPORA.md, findings).
            return record(random.pick(["Jane", "J.Doe", "x"]) + "<" + local + "@" + asciiDomain() + ">")
        case "quoted-local-part": return record("\"" + local + "\"@" + domain)
        case "comment": return record(local + "(" + random.string(random.int(in: 0...6), from: Alphabet.lower) + ")@" + domain)
        case "domain-literal":
            let octets = (0..<4).map { _ in String(random.int(in: 0...255)) }.joined(separator: ".")
            return record(local + "@[" + octets + "]")
        case "no-at-sign": return record(local + domain)
        case "two-at-signs": return record(local + "@" + label(random.int(in: 1...8)) + "@" + domain)
        case "address-too-long":
            // Labels of at most 63 octets, a local part of at most 64: only the total is too long.
            let target = random.int(in: 255...300)
            var long = local + "@" + asciiDomain()
            while long.utf8.count < target { long = long.replacingFirstAt(label(random.int(in: 20...63)) + ".") }
            return record(long, "\(long.utf8.count) octets")
        case "empty-local-part": return record("@" + domain)
        case "local-part-too-long":
            var long = local
            let target = random.int(in: 65...120)
            while long.utf8.count < target { long += "." + atom(random.int(in: 1...10), unicode: random.chance(20)) }
            return record(long + "@" + domain, "\(long.utf8.count) octets")
        case "local-part-forbidden-character":
            let scalar = random.pick(Self.localForbidden)
            let position = random.int(in: 0...local.unicodeScalars.count)
            return record(local.inserting(String(scalar), atScalar: position) + "@" + domain, "\(scalarName(scalar)) at \(position)")
        case "local-part-leading-period": return record("." + local + "@" + domain)
        case "local-part-trailing-period": return record(local + ".@" + domain)
        case "local-part-double-period":
            return record(atom(random.int(in: 1...8), unicode: false) + ".." + local + "@" + domain)
        case "empty-domain": return record(local + "@")
        case "domain-forbidden-character":
            let scalar = random.pick(Self.domainForbidden)
            let name = label(random.int(in: 1...10))
            return record(local + "@" + name.inserting(String(scalar), atScalar: random.int(in: 0...name.count)) + "." + domain,
                          scalarName(scalar))
        case "domain-leading-period": return record(local + "@." + domain)
        case "domain-trailing-period": return record(local + "@" + domain + ".")
        case "domain-double-period": return record(local + "@" + label(random.int(in: 1...10)) + ".." + domain)
        case "label-hyphen":
            let name = label(random.int(in: 1...10))
            return record(local + "@" + (random.chance(50) ? "-" + name : name + "-") + "." + domain)
        case "bad-idn-label": return record(local + "@" + random.pick(Self.badIDNLabels) + "." + domain)
        case "dotless-domain":
            let name = label(random.int(in: 1...15)) + random.string(1, from: Alphabet.lower)
            return record(local + "@" + (Self.specialUse.contains(name) ? name + "q" : name))
        case "label-too-long": return record(local + "@" + label(random.int(in: 64...70)) + "." + asciiDomain())
        case "numeric-top-level-domain":
            return record(local + "@" + labels().joined(separator: ".") + "." + random.string(random.int(in: 1...3), from: Alphabet.digits))
        case "reserved-hyphens":
            let name = random.string(2, from: Alphabet.lower.filter { $0 != "x" }) + "--" + label(random.int(in: 1...8))
            return record(local + "@" + name + "." + domain)
        default:
            return record(local + "@" + labels().joined(separator: ".") + "." + random.pick(Self.specialUse))
        }
    }
}

extension String {
    /// The address with `prefix` inserted right after its `@`.
    fileprivate func replacingFirstAt(_ prefix: String) -> String {
        guard let at = firstIndex(of: "@") else { return self }
        return String(self[...at]) + prefix + String(self[index(after: at)...])
    }
}
