/// The fast path of collection notifications: the new keys of observed results, and their diff,
/// from the old keys and a commit's change set, without evaluating the query again.
///
/// It applies to results of a table, in key order (no sort, distinct or limit), whose filter
/// reads each object's own row alone (``Results/ownRowTest()``): only the objects the commit
/// inserted, deleted or modified can then join or leave them, so testing those is enough. Each
/// is found in the old keys by binary search and tested on its new row; the new keys are one
/// merge. A delivery then costs O(k log n + n) for k changed objects among n results (the O(n)
/// part a copy), where evaluating the query again costs a scan or an index walk, and the diff
/// of two n-key arrays.
///
/// Its slow twin is the evaluation and ``CollectionDiff``: internal checks compare both on every
/// delivery that takes the fast path, and `OBJDB_DISABLE_FAST_PATHS=incrementalResults`
/// switches it off.
enum IncrementalKeys {
    /// Changes to more objects than this share of the results are cheaper to evaluate again.
    static let largestShare = 8

    /// The keys after `changes` and the diff from `old`, or `nil` when the results must be
    /// evaluated again: the class's modifications were not listed one by one, too many objects
    /// changed, or a row could not be read. `isModified` says whether an object that stays was
    /// modified in what the observer watches.
    static func update(
        _ old: [UInt64], _ changes: ClassChangeSet, rowTest: (RowView) -> Bool, table: Table, txn: Txn,
        isModified: (UInt64) -> Bool
    ) -> (keys: [UInt64], diff: CollectionDiff)? {
        guard changes.unlistedModifications == nil else { return nil }
        let limit = UInt64(max(64, old.count / largestShare))
        guard changes.inserted.count <= limit, changes.deleted.count <= limit, UInt64(changes.modified.count) <= limit,
            changes.inserted.count + changes.deleted.count + UInt64(changes.modified.count) <= limit
        else { return nil }
        var candidates = changes.inserted.keys + changes.deleted.keys + changes.modified.keys
        candidates.sort()

        var removed: [Int] = []  // old indices, ascending
        var added: [UInt64] = []  // keys, ascending
        var modifications: [Int] = []
        var previous: UInt64?
        for key in candidates where key != previous {
            previous = key
            let oldIndex = index(of: key, in: old)
            let matches: Bool
            if changes.deleted.contains(key) {
                matches = false
            } else {
                let bytes: UnsafeRawBufferPointer?
                do {
                    bytes = try txn.get(table, key: key)
                } catch {
                    return nil  // evaluating again reports the failure
                }
                if let bytes {
                    // A damaged row: evaluating again reports it and reads it as the queries do.
                    guard let row = RowReader.sound(key: key, bytes) else { return nil }
                    matches = rowTest(row)
                } else {
                    matches = false
                }
            }
            switch (oldIndex, matches) {
            case (let index?, false): removed.append(index)
            case (nil, true): added.append(key)
            case (let index?, true): if isModified(key) { modifications.append(index) }
            case (nil, false): break
            }
        }
        guard !removed.isEmpty || !added.isEmpty else {
            return (old, CollectionDiff(deletions: [], insertions: [], modifications: modifications))
        }
        // One merge: the old keys without the removed ones, with the added ones in key order.
        var keys: [UInt64] = []
        keys.reserveCapacity(old.count - removed.count + added.count)
        var insertions: [Int] = []
        var nextRemoved = 0, nextAdded = 0
        for (index, key) in old.enumerated() {
            while nextAdded < added.count && added[nextAdded] < key {
                insertions.append(keys.count)
                keys.append(added[nextAdded])
                nextAdded += 1
            }
            if nextRemoved < removed.count && removed[nextRemoved] == index {
                nextRemoved += 1
            } else {
                keys.append(key)
            }
        }
        while nextAdded < added.count {
            insertions.append(keys.count)
            keys.append(added[nextAdded])
            nextAdded += 1
        }
        #if OBJDB_INTERNAL_CHECKS
        if FastPaths.broken.contains(.incrementalResults) { keys.removeLast() }  // for the check's own test
        #endif
        return (keys, CollectionDiff(deletions: removed, insertions: insertions, modifications: modifications))
    }

    /// The index of `key` in the ascending `keys`.
    private static func index(of key: UInt64, in keys: [UInt64]) -> Int? {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }
}
