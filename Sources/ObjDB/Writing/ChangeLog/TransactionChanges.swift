/// What one write transaction changed so far: per class, its key counter and the objects it
/// inserted, deleted and wrote (``ClassChanges``); whether the stored schema changed or the
/// file's format was raised; whether it added or changed data at all. At commit it becomes the
/// ``ChangeSet`` logged in the file and told to observers, and its counters go to `meta`.
/// Stored in place in the ``WriteContext``, as a variable: the context allocates no record of
/// its own.
struct TransactionChanges {
    /// Per class id: the key counter and what the transaction changed, created on first use.
    private(set) var classes: [ClassChanges?] = []
    /// Whether the stored schema changed and must be written at commit.
    var schemaChanged = false
    /// Whether the commit raised the file's format to ``FileMeta/checksummedFormat``.
    var upgradedFormat = false
    /// Whether the transaction inserted or rewrote a row other than as part of a delete (which
    /// rewrites the rows that linked to the deleted object). A transaction that did neither, nor
    /// changed the schema, only deletes: it may use the room kept beyond `maximumSize` for
    /// deletes (``SpaceReserve``). Row writes set it; deletes restore it when they finish.
    var addsOrChanges = false

    /// Whether the transaction only deletes (see ``addsOrChanges``).
    var onlyDeletes: Bool { !addsOrChanges && !schemaChanged }

    /// What the transaction did to a class so far, if anything.
    @inline(__always)
    func ofClass(_ classID: UInt32) -> ClassChanges? {
        Int(classID) < classes.count ? classes[Int(classID)] : nil
    }

    /// The record of a class, created with the key counter `load` reads on first use.
    mutating func ofClass(_ info: ClassInfo, loadingCounter load: () throws -> UInt64) rethrows -> ClassChanges {
        let index = Int(info.classID)
        if index < classes.count, let existing = classes[index] { return existing }
        if index >= classes.count { classes.append(contentsOf: repeatElement(nil, count: index + 1 - classes.count)) }
        let created = ClassChanges(nextKey: try load())
        classes[index] = created
        return created
    }

    /// Forgets what the transaction did to a class whose data a migration removed: it is not
    /// logged, nor its counter written.
    mutating func forget(_ classID: UInt32) {
        if Int(classID) < classes.count { classes[Int(classID)] = nil }
    }

    /// What the transaction changed so far, with the edits `listEdits` of the lists it wrote
    /// (``PendingWrites/listEdits``): the entry of the change log, and what this instance's
    /// observers are told at commit.
    func changeSet(listEdits: [CollectionSlot: [ListEdit]]) -> ChangeSet {
        var set = ChangeSet(schemaChanged: schemaChanged)
        for (classID, changes) in classes.enumerated() {
            guard var change = changes?.changeSet, !change.isEmpty else { continue }
            if change.unlistedModifications == nil {
                change.listEdits = Self.listEdits(listEdits, ofClass: UInt32(classID), change)
            }
            set.classes[UInt32(classID)] = change
        }
        return set
    }

    /// The edits in `all` of the lists of class `classID` whose objects existed before and still do.
    private static func listEdits(
        _ all: [CollectionSlot: [ListEdit]], ofClass classID: UInt32, _ change: ClassChangeSet
    ) -> [UInt64: [Int: [ListEdit]]] {
        var result: [UInt64: [Int: [ListEdit]]] = [:]
        for (slot, edits) in all where slot.classID == classID {
            // Only lists the commit wrote (a list edited back to what it was is not written).
            guard !edits.isEmpty, change.modified[slot.key]?.contains(slot.column) == true else { continue }
            result[slot.key, default: [:]][slot.column] = edits
        }
        return result
    }

    /// Whether the transaction wrote anything: a transaction that did not leaves no entry in
    /// the log, and LMDB makes no new version of it.
    var hasChanges: Bool {
        schemaChanged || upgradedFormat || classes.contains { $0?.hasChanges ?? false }
    }
}
