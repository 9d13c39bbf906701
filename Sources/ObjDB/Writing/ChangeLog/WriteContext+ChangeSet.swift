extension WriteContext {
    /// What the transaction changed so far: the entry of the change log, and what this
    /// instance's observers are told at commit.
    var changeSet: ChangeSet {
        var set = ChangeSet(schemaChanged: schemaChanged)
        for (classID, changes) in classes.enumerated() {
            guard var change = changes?.changeSet, !change.isEmpty else { continue }
            if change.unlistedModifications == nil {
                change.listEdits = listEdits(ofClass: UInt32(classID), change)
            }
            set.classes[UInt32(classID)] = change
        }
        return set
    }

    /// The edits of the lists of class `classID` whose objects existed before and still do.
    private func listEdits(ofClass classID: UInt32, _ change: ClassChangeSet) -> [UInt64: [Int: [ListEdit]]] {
        var result: [UInt64: [Int: [ListEdit]]] = [:]
        for (slot, edits) in pending.listEdits where slot.classID == classID {
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
