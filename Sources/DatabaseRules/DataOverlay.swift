// DataOverlay: the root after a write (`newData`, reference §6.3) as a view of the root before it
// plus the written nodes, so a decision never copies the stored tree. It owns lookups in that
// view; it does not convert written JSON (DataTree) or decide anything (Program).

/// The database after a write, seen through the database before it: a node at or below a
/// written location is read from the written node, a node away from every written location from
/// the stored root. Only an ancestor of a written location mixes the two; it is built (with
/// ``DataTree/setting(_:at:to:)``, pruning emptied parents) when a rule asks for it.
struct DataOverlay: Sendable {
    /// The root before the write.
    let base: DataNode?
    /// Each written location and its new node (nil deletes), in the order they apply: a later
    /// write at the same location replaces an earlier one.
    // INVARIANT: no location is a proper ancestor of another (the request is refused otherwise).
    let writes: [(keys: [String], node: DataNode?)]

    /// The tree `root` itself, with nothing written.
    init(_ root: DataNode?) {
        base = root
        writes = []
    }

    /// `base` with `writes` applied.
    init(base: DataNode?, writes: [(keys: [String], node: DataNode?)]) {
        self.base = base
        self.writes = writes
    }

    /// The node at `keys` in the tree after the writes.
    func node(at keys: [String]) -> DataNode? {
        // At or below a written location: the last write there decides.
        for write in writes.reversed() where write.keys.count <= keys.count && keys.starts(with: write.keys) {
            return DataTree.node(write.node, at: keys[write.keys.count...])
        }
        let stored = DataTree.node(base, at: keys)
        // Above written locations: the stored node with the writes below it applied.
        var merged = stored
        for write in writes where write.keys.count > keys.count && write.keys.starts(with: keys) {
            merged = DataTree.setting(merged, at: write.keys[keys.count...], to: write.node)
        }
        return merged
    }
}
