// DatabaseSymbolicTree: the Realtime Database a `rules verify`/`rules diff` query ranges over
// (docs/VERIFICATION.md, "Realtime Database"). The stored tree (`data`, `root`) is modelled
// lazily: a node exists in the encoding once a rule or condition names it. The written value
// (`newData` at and below the write path) is modelled eagerly to a depth bound: each node has the
// literal children the rules name plus one child under another key; a node at the bound may be
// an object whose children are not modelled, and whatever reads them is left unconstrained (an
// over-approximation: proofs stay proofs, and a witness that depends on it does not replay).
import DatabaseRules

/// A key of a modelled path: literal text, or a symbolic key (an SMT string constant).
enum DBKey: Hashable {
    case literal(String)
    case symbol(String)

    /// The SMT term of the key.
    var term: String {
        switch self {
        case .literal(let text): SMT.string(text)
        case .symbol(let name): name
        }
    }
}

/// One key of a request shape's path: literal, or any other key.
enum DBShapeKey: Hashable {
    case literal(String)
    /// A symbolic key distinct from these literals.
    case other([String])
}

/// The SMT symbols of one modelled node: whether it exists, its type (1 boolean, 2 number,
/// 3 string, 4 object) and its value of each primitive type.
struct DBNodeSymbols {
    var exists: String
    var type: String
    var bool: String
    var number: String
    var string: String
}

/// Which tree a snapshot reads.
enum DBTreeKind: Hashable {
    /// The database before the operation.
    case old
    /// The database after the write (the same as `old` for a read).
    case new
}

/// The symbolic database of one query: the stored tree, the written value and the operation's
/// path, with their declarations and the constraints that tie them together.
final class DatabaseSymbolicTree {
    /// How many levels below the write path the written value is modelled (the target is level 0).
    static var defaultDepthBound: Int { DatabaseVerifier.defaultDepthBound }

    /// The operation's path.
    private(set) var target: [DBKey] = []
    /// A write (`set` of a value at ``target``) or a read.
    let isWrite: Bool
    /// The depth bound of the written value.
    let depthBound: Int
    /// Literal keys any rule or condition names (`child`, `hasChild`, `hasChildren`) plus each
    /// level's literal rule keys: a symbolic key is distinct from all of them.
    let mentioned: Set<String>
    /// The literal children of the written value's nodes, by relative path (the rule keys of
    /// both files at that node, and ``mentioned``).
    private let literalChildren: ([DBKey]) -> [String]

    private(set) var declarations: [String] = []
    private(set) var assertions: [String] = []
    /// Every symbol a witness needs, for the solver's model.
    private(set) var valueSymbols: [String] = []
    private var counter = 0

    /// The stored tree's nodes, by absolute path; each has an extra flag "has children that are
    /// not modelled".
    private(set) var oldNodes: [[DBKey]: DBNodeSymbols] = [:]
    private(set) var oldExtra: [[DBKey]: String] = [:]
    /// The written value's nodes, by path relative to ``target``.
    private(set) var written: [[DBKey]: DBNodeSymbols] = [:]
    /// The written value's nodes in creation order (parents first).
    private(set) var writtenOrder: [[DBKey]] = []
    /// The symbolic keys with the literal keys they must differ from.
    private(set) var keySymbols: [(name: String, distinctFrom: [String])] = []
    /// Ancestors of the target in the new tree: existence symbols, defined at ``finish()``.
    private var ancestorExists: [[DBKey]: String] = [:]

    /// - Parameters:
    ///   - shape: the operation's path: literal keys, and symbolic keys distinct from the given literals.
    ///   - literalChildren: the literal keys modelled under a written node, by its absolute path.
    init(shape: [DBShapeKey], isWrite: Bool, mentioned: Set<String>, depthBound: Int = defaultDepthBound,
         literalChildren: @escaping ([DBKey]) -> [String]) {
        self.isWrite = isWrite
        self.mentioned = mentioned
        self.depthBound = depthBound
        self.literalChildren = literalChildren
        target = shape.map { key in
            switch key {
            case .literal(let text): .literal(text)
            case .other(let literals): keySymbol(distinctFrom: literals)
            }
        }
        if isWrite {
            buildWritten()
            // Every ancestor of the target exists after the write exactly when something remains below it.
            for length in 0..<target.count { _ = resolve(.new, Array(target.prefix(length))) }
        }
    }

    // MARK: - Symbols

    func fresh(_ prefix: String, sort: String) -> String {
        counter += 1
        let name = "|db.\(prefix)\(counter)|"
        declarations.append("(declare-const \(name) \(sort))")
        return name
    }

    private var memo: [String: String] = [:]
    /// `subject ∈ regex` atoms, defined together per subject at ``finish()`` (RegexMemberships).
    private var memberships: [(subject: String, regex: String, atom: String)] = []

    /// `subject ∈ regex` as a Bool constant (the same pair, the same constant).
    func membership(_ subject: String, _ regex: String) -> String {
        let atom = fresh("re", sort: "Bool", for: subject + "\u{0}" + regex)
        if !memberships.contains(where: { $0.atom == atom }) { memberships.append((subject, regex, atom)) }
        return atom
    }

    /// A fresh symbol standing for a function of `key` (the same key, the same symbol): the same
    /// rule in both files of a diff encodes to the same term.
    func fresh(_ prefix: String, sort: String, for key: String) -> String {
        if let symbol = memo[prefix + "|" + key] { return symbol }
        let symbol = fresh(prefix, sort: sort)
        memo[prefix + "|" + key] = symbol
        return symbol
    }

    /// Records a symbol a witness needs (declared with ``fresh(_:sort:)``).
    func noteValueSymbol(_ symbol: String) { valueSymbols.append(symbol) }

    func assert(_ term: String) {
        if term != "true" { assertions.append("(assert \(term))") }
    }

    /// Declares a symbolic key, a valid Realtime Database key distinct from `distinctFrom`.
    func keySymbol(distinctFrom literals: [String]) -> DBKey {
        let name = fresh("key", sort: "String")
        valueSymbols.append(name)
        keySymbols.append((name, literals))
        assert(Self.validKey(name))
        for literal in literals { assert(SMT.not(SMT.eq(name, SMT.string(literal)))) }
        return .symbol(name)
    }

    /// A valid key: 1 to 768 characters, none of `.` `#` `$` `[` `]` `/` or ASCII controls.
    static func validKey(_ term: String) -> String {
        let forbidden = "(re.union (re.range \"\\u{0}\" \"\\u{1f}\") (str.to_re \"\\u{7f}\") (str.to_re \".\") (str.to_re \"#\") "
            + "(str.to_re \"$\") (str.to_re \"[\") (str.to_re \"]\") (str.to_re \"/\"))"
        return SMT.and(["(>= (str.len \(term)) 1)", "(<= (str.len \(term)) 768)",
                        "(not (str.in_re \(term) (re.++ (re.* re.allchar) \(forbidden) (re.* re.allchar))))"])
    }

    /// Whether a literal key can name a stored node.
    static func isValidKey(_ key: String) -> Bool {
        guard !key.isEmpty, key.utf8.count <= 768 else { return false }
        return !key.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || ".#$[]/".unicodeScalars.contains($0) }
    }

    private func nodeSymbols(_ prefix: String) -> DBNodeSymbols {
        let node = DBNodeSymbols(exists: fresh(prefix + "e", sort: "Bool"), type: fresh(prefix + "t", sort: "Int"),
                                 bool: fresh(prefix + "b", sort: "Bool"), number: fresh(prefix + "n", sort: "Real"),
                                 string: fresh(prefix + "s", sort: "String"))
        valueSymbols += [node.exists, node.type, node.bool, node.number, node.string]
        assert("(and (>= \(node.type) 1) (<= \(node.type) 4))")
        return node
    }

    // MARK: - The stored tree

    /// The stored node at `path`, created (with its ancestors) on first use.
    func oldNode(_ path: [DBKey]) -> DBNodeSymbols {
        if let node = oldNodes[path] { return node }
        if !path.isEmpty { _ = oldNode(Array(path.dropLast())) }
        let node = nodeSymbols("old")
        oldNodes[path] = node
        let extra = fresh("oldx", sort: "Bool")
        valueSymbols.append(extra)
        oldExtra[path] = extra
        if case .literal(let key)? = path.last, !Self.isValidKey(key) { assert(SMT.not(node.exists)) }
        return node
    }

    // MARK: - The written value

    private func buildWritten() {
        var queue: [[DBKey]] = [[]]
        while !queue.isEmpty {
            let relative = queue.removeFirst()
            let node = nodeSymbols("new")
            written[relative] = node
            writtenOrder.append(relative)
            guard relative.count < depthBound else { continue }
            let literals = literalChildren(target + relative)
            for key in literals where Self.isValidKey(key) { queue.append(relative + [.literal(key)]) }
            queue.append(relative + [keySymbol(distinctFrom: literals)])
        }
    }

    /// The literal children a written node at `relative` is modelled with.
    func writtenChildren(of relative: [DBKey]) -> [[DBKey]] {
        written.keys.filter { $0.count == relative.count + 1 && Array($0.prefix(relative.count)) == relative }
            .sorted { writtenOrder.firstIndex(of: $0)! < writtenOrder.firstIndex(of: $1)! }
    }

    // MARK: - Nodes as rules see them

    /// A node reference's meaning: its symbols, or nil when it is not modelled (below the
    /// written value's depth bound, or under a key computed at run time).
    enum Resolved {
        case node(DBNodeSymbols)
        /// An ancestor of the target after the write: an object when it exists.
        case ancestor(exists: String)
        /// Not modelled: every observation of it is unconstrained.
        case unmodelled
    }

    func resolve(_ tree: DBTreeKind, _ path: [DBKey]) -> Resolved {
        guard tree == .new, isWrite else { return .node(oldNode(path)) }
        if path.count >= target.count, Array(path.prefix(target.count)) == target {
            let relative = Array(path.dropFirst(target.count))
            if let node = written[relative] { return .node(node) }
            // Literal keys that name no modelled child cannot exist under a fully modelled node.
            if written[Array(relative.dropLast())] != nil, relative.count - 1 < depthBound { return .node(absent()) }
            return .unmodelled
        }
        if path.count < target.count, Array(target.prefix(path.count)) == path {
            if let symbol = ancestorExists[path] { return .ancestor(exists: symbol) }
            _ = oldNode(path)
            let symbol = fresh("anc", sort: "Bool")
            ancestorExists[path] = symbol
            return .ancestor(exists: symbol)
        }
        return .node(oldNode(path))
    }

    private var absentNode: DBNodeSymbols?

    /// A node that never exists.
    private func absent() -> DBNodeSymbols {
        if let absentNode { return absentNode }
        let node = nodeSymbols("none")
        assert(SMT.not(node.exists))
        absentNode = node
        return node
    }

    // MARK: - Finishing

    /// Asserts the tree constraints and defines the memberships (call once every node is known).
    func finish() {
        for term in RegexMemberships.definitions(memberships) { assert(term) }
        for (path, node) in oldNodes {
            if let parentPath = path.isEmpty ? nil : Array(path.dropLast()), let parent = oldNodes[parentPath] {
                assert(SMT.implies(node.exists, SMT.and([parent.exists, "(= \(parent.type) 4)"])))
            }
        }
        for relative in writtenOrder {
            let node = written[relative]!
            if !relative.isEmpty, let parent = written[Array(relative.dropLast())] {
                assert(SMT.implies(node.exists, SMT.and([parent.exists, "(= \(parent.type) 4)"])))
            }
            if relative.count < depthBound {
                let children = writtenChildren(of: relative).map { written[$0]!.exists }
                assert(SMT.implies(SMT.and([node.exists, "(= \(node.type) 4)"]), SMT.or(children)))
            }
        }
        for (path, symbol) in ancestorExists {
            // After `set` below it: the child on the way to the target, and the stored node's
            // other children when it was an object (a stored leaf is replaced).
            let next = Array(target.prefix(path.count + 1))
            // INVARIANT: `init` created every ancestor of the target.
            let onPath = next.count == target.count ? written[[]]!.exists : ancestorExists[next]!
            let old = oldNode(path)
            let others = oldNodes.filter { $0.key.count == path.count + 1 && Array($0.key.prefix(path.count)) == path && $0.key != next }
                .map(\.value.exists)
            let kept = SMT.and([old.exists, "(= \(old.type) 4)", SMT.or(others + [oldExtra[path]!])])
            assert(SMT.eq(symbol, SMT.or([onPath, kept])))
        }
    }
}
