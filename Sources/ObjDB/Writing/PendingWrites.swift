/// What a write transaction keeps in memory to write later: collections changed through their
/// managed objects (``PendingCollection``), secondary-index entries logged to be written grouped
/// (``PendingIndexEntries``), the edits each list went through (``ListEdit``), for notifications,
/// and, in a migration, the primary-key tables to rebuild.
final class PendingWrites {
    /// Collection columns changed through managed collections and not yet written back.
    @exclusivity(unchecked) var collections: [CollectionSlot: PendingCollection] = [:]
    /// Secondary-index entries not written yet.
    let index = PendingIndexEntries()
    /// Full-text postings not written yet.
    let fullText = PendingFullText()
    /// Whether new secondary-index entries are logged in ``index`` and written grouped (the fast
    /// path ``FastPaths/groupedIndexWrites``), read once: a static's lazy initializer is checked
    /// at every access.
    let groupsIndexWrites = FastPaths.enabled.contains(.groupedIndexWrites)
    /// Set while pending collections are written back: list writes made then are the ones their
    /// edits describe.
    @exclusivity(unchecked) var writesBackCollections = false
    /// The edits each list went through in this transaction by `List`'s methods, for
    /// notifications (``ListEdit``), as its pending copies were written back.
    @exclusivity(unchecked) private(set) var listEdits: [CollectionSlot: [ListEdit]] = [:]
    /// The lists whose edits passed ``ListEdit/limit``: their notifications compare versions.
    @exclusivity(unchecked) private var overflowedLists: Set<CollectionSlot> = []
    /// In a migration (``WriteContext/isMigration``), the classes (by id) whose primary-key
    /// table is stale, rebuilt when the migration block returns.
    @exclusivity(unchecked) var primaryKeysToRebuild: Set<UInt32> = []

    /// Forgets the edits of the list `slot` for the rest of the transaction: it was written
    /// another way, and its notifications compare versions.
    func dropListEdits(_ slot: CollectionSlot) {
        guard !overflowedLists.contains(slot) else { return }
        listEdits[slot] = nil
        overflowedLists.insert(slot)
    }

    /// Adds the edits of a pending copy of the list `slot` written back.
    func addListEdits(_ slot: CollectionSlot, _ edits: [ListEdit], overflowed: Bool) {
        guard !overflowedLists.contains(slot) else { return }
        var all = listEdits[slot] ?? []
        for edit in edits where !ListEdit.append(edit, to: &all) {
            listEdits[slot] = nil
            overflowedLists.insert(slot)
            return
        }
        if overflowed {
            listEdits[slot] = nil
            overflowedLists.insert(slot)
        } else {
            listEdits[slot] = all
        }
    }
}
