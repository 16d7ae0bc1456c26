import Yams

/// How addresses at known providers reach one mailbox: the rules behind
/// ``ValidationResult/mailboxKey``, as data (`rules/lists/email-providers.yaml`).
///
/// The key is the normalized address with, at a listed provider, the local part's ASCII letters
/// lowercased, a `+tag` dropped (`tag-separator`), periods dropped (`ignore-dots`, Gmail) and
/// alias domains merged (`key-domain`: `googlemail.com` → `gmail.com`). At any other domain it
/// is the normalized address itself. The normalized address is never rewritten.
public struct MailboxProviders: Sendable {
    /// One provider's rules.
    public struct Provider: Sendable, Hashable {
        public var name: String
        public var domains: [String]
        /// The domain the key uses for every one of ``domains`` (aliases of one mailbox), or nil.
        public var keyDomain: String?
        /// Whether periods in the local part are ignored.
        public var ignoresDots: Bool
        /// The character that starts a tag, or nil.
        public var tagSeparator: Character?
    }

    /// The providers, in file order.
    public let providers: [Provider]
    private let byDomain: [String: Int]
    /// The listed domains' bytes, those of each length together (the lookup's quick rejection).
    private let domainBytesByLength: [Int: [[UInt8]]]

    /// Providers from rules; a domain listed twice belongs to its first provider.
    public init(providers: [Provider]) {
        self.providers = providers
        var byDomain: [String: Int] = [:]
        for (index, provider) in providers.enumerated() {
            for domain in provider.domains where byDomain[domain] == nil { byDomain[domain] = index }
        }
        self.byDomain = byDomain
        domainBytesByLength = Dictionary(grouping: byDomain.keys.map { Array($0.utf8) }, by: \.count)
    }

    /// The shipped providers (`rules/lists/email-providers.yaml`, embedded).
    public static let shipped: MailboxProviders = {
        // INVARIANT: the embedded file parses (MailboxKeyTests reads it); none would only
        // leave every key equal to the normalized address.
        (try? parse(EmbeddedRulePacks.files["lists/email-providers.yaml"] ?? "")) ?? MailboxProviders(providers: [])
    }()

    /// Why a providers file cannot be used.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Parses a providers file (the format of `rules/lists/email-providers.yaml`).
    ///
    /// - Throws: ``ParseError`` naming the first problem.
    public static func parse(_ text: String) throws(ParseError) -> MailboxProviders {
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch { throw ParseError(description: "malformed yaml: \(error)") }
        guard case let .mapping(top)? = root, case let .sequence(list)? = top["providers"] else {
            throw ParseError(description: "expected a mapping with a `providers` list")
        }
        var providers: [Provider] = []
        for node in list {
            guard case let .mapping(entry) = node, let name = entry["name"]?.string,
                  case let .sequence(domains)? = entry["domains"] else {
                throw ParseError(description: "each provider needs `name` and a `domains` list")
            }
            let known: Set<String> = ["name", "domains", "key-domain", "ignore-dots", "tag-separator", "source"]
            if let unknown = entry.keys.compactMap(\.string).first(where: { !known.contains($0) }) {
                throw ParseError(description: "provider `\(name)`: unknown key `\(unknown)`")
            }
            let separator = entry["tag-separator"]?.string
            guard separator == nil || separator?.count == 1 else {
                throw ParseError(description: "provider `\(name)`: `tag-separator` must be one character")
            }
            providers.append(Provider(
                name: name, domains: domains.compactMap { $0.string.map(Keys.canonical) },
                keyDomain: entry["key-domain"]?.string.map(Keys.canonical),
                ignoresDots: entry["ignore-dots"]?.string == "true", tagSeparator: separator?.first))
        }
        return MailboxProviders(providers: providers)
    }

    /// The mailbox key of a normalized address (`local@domain`); nil without an `@`.
    public func key(normalized address: String) -> String? {
        guard let at = address.lastIndex(of: "@") else { return nil }
        // Most domains are no provider's: an ASCII domain none of the listed ones spells is
        // decided from its bytes, with no allocation (ASCII text is equal only to itself).
        let domainBytes = address.utf8[address.utf8.index(after: at)...]
        if domainBytes.allSatisfy({ $0 < 0x80 }),
           !(domainBytesByLength[domainBytes.count] ?? []).contains(where: { $0.elementsEqual(domainBytes) }) {
            return address
        }
        let local = address[..<at], domain = address[address.index(after: at)...]
        guard let index = byDomain[String(domain)] else { return address }
        let provider = providers[index]
        var key = Keys.canonical(String(local))
        if let separator = provider.tagSeparator, let tag = key.firstIndex(of: separator), tag != key.startIndex {
            key = String(key[..<tag])
        }
        if provider.ignoresDots {
            let undotted = key.filter { $0 != "." }
            if !undotted.isEmpty { key = undotted }
        }
        return key + "@" + (provider.keyDomain ?? String(domain))
    }
}
