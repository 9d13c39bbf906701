import Foundation

/// Moves consecutive sections (``SectionLayout/Storage/runs(starts:)``) to the next version from
/// the results' flat change alone: the fast path of ``SectionTracker``.
///
/// The new rows are the old ones with the deletions taken out and the insertions put in. Between
/// two changed rows, the survivors form a stretch of consecutive old rows that keep their
/// sections (their objects were not modified, so their keys did not change): each stretch is
/// copied as pieces of the old sections, without looking at its objects. Only inserted and
/// modified objects get their key computed. The result is the new sequence of sections as runs
/// (section id, length), merged where neighbours share a key: O(c + s) for c changes and s
/// sections, plus a comparison of each stretch's object keys with the old ones (`memcmp`), which
/// proves the change leads from the old objects to the new.
///
/// It gives up (`nil`, and ``SectionTracker/general(_:newKeys:deletions:insertions:modifications:)``
/// runs) when the old sections interleave, when the change does not lead from the old objects
/// to the new ones, or when a key comes back after another section (the new sections would
/// interleave). Builds with internal checks compare its answer with the general pass's; set
/// `OBJDB_DISABLE_FAST_PATHS=incrementalSections` to switch it off.
struct IncrementalSections<Key: Hashable> {
    /// The sections reported last.
    let old: SectionLayout<Key>
    /// The results' object keys now.
    let newKeys: [UInt64]
    /// Old rows deleted, ascending.
    let deletions: [Int]
    /// New rows inserted, ascending.
    let insertions: [Int]
    /// Old rows modified, ascending.
    let modifications: [Int]

    /// The new sections and the update, `nil` where the general pass must run.
    ///
    /// - Parameter sectionKey: The section key of the object at a row of the new results.
    func next(sectionKey: (Int) -> Key) -> (layout: SectionLayout<Key>, update: SectionedUpdate)? {
        guard case .runs(let starts) = old.storage,
            old.objectKeys.count - deletions.count + insertions.count == newKeys.count,
            Self.ascending(deletions, below: old.objectKeys.count), Self.ascending(insertions, below: newKeys.count),
            Self.ascending(modifications, below: old.objectKeys.count)
        else { return nil }

        // Key ids: an old section's index for its key, new keys after them.
        var keyOfID = old.keys
        var newIDs: [Key: Int] = [:]
        func id(ofRow row: Int) -> Int {
            let key = sectionKey(row)
            if let known = old.sectionOfKey[key] ?? newIDs[key] { return known }
            newIDs[key] = keyOfID.count
            keyOfID.append(key)
            return keyOfID.count - 1
        }

        var runs = Runs()
        // Modified survivors: old row, new row, new key id.
        var modified: [(old: Int, new: Int, id: Int)] = []
        var oldRow = 0, newRow = 0
        var nextDeletion = 0, nextInsertion = 0, nextModification = 0
        var section = 0  // the old section of `oldRow`, advanced as stretches are copied
        while newRow < newKeys.count {
            if nextInsertion < insertions.count && insertions[nextInsertion] == newRow {
                runs.append(id(ofRow: newRow), 1)
                nextInsertion += 1
                newRow += 1
                continue
            }
            while nextDeletion < deletions.count && deletions[nextDeletion] == oldRow {
                oldRow += 1
                nextDeletion += 1
            }
            while nextModification < modifications.count && modifications[nextModification] < oldRow { nextModification += 1 }
            guard oldRow < old.objectKeys.count else { return nil }
            if nextModification < modifications.count && modifications[nextModification] == oldRow {
                guard old.objectKeys[oldRow] == newKeys[newRow] else { return nil }
                let id = id(ofRow: newRow)
                runs.append(id, 1)
                modified.append((oldRow, newRow, id))
                nextModification += 1
                oldRow += 1
                newRow += 1
                continue
            }
            // A stretch of unmodified survivors, up to the next change on either side.
            var length = min(newKeys.count - newRow, old.objectKeys.count - oldRow)
            if nextInsertion < insertions.count { length = min(length, insertions[nextInsertion] - newRow) }
            if nextDeletion < deletions.count { length = min(length, deletions[nextDeletion] - oldRow) }
            if nextModification < modifications.count { length = min(length, modifications[nextModification] - oldRow) }
            guard length > 0, Self.equal(old.objectKeys, from: oldRow, newKeys, from: newRow, count: length) else { return nil }
            // Copied as pieces of the old sections it covers.
            var row = oldRow
            let end = oldRow + length
            while row < end {
                while starts[section + 1] <= row { section += 1 }
                let stop = min(starts[section + 1], end)
                runs.append(section, stop - row)
                row = stop
            }
            oldRow = end
            newRow += length
        }

        // Each key id in one run, or the new sections would interleave.
        var sectionOfID = [Int](repeating: -1, count: keyOfID.count)
        for (index, id) in runs.ids.enumerated() {
            guard sectionOfID[id] < 0 else { return nil }
            sectionOfID[id] = index
        }
        var newStarts: [Int] = []
        newStarts.reserveCapacity(runs.ids.count + 1)
        var total = 0
        for length in runs.lengths {
            newStarts.append(total)
            total += length
        }
        newStarts.append(total)
        let layout: SectionLayout<Key>
        if runs.ids.count == old.keys.count && runs.ids.indices.allSatisfy({ runs.ids[$0] == $0 }) {
            // The same sections in the same order: only their bounds moved.
            layout = SectionLayout(objectKeys: newKeys, keys: old.keys, starts: newStarts, sectionOfKey: old.sectionOfKey)
        } else {
            layout = SectionLayout(objectKeys: newKeys, keys: runs.ids.map { keyOfID[$0] }, starts: newStarts)
        }

        var update = SectionedUpdate()
        for index in old.keys.indices where sectionOfID[index] < 0 { update.sectionsToDelete.insert(index) }
        for (index, id) in runs.ids.enumerated() where id >= old.keys.count { update.sectionsToInsert.insert(index) }
        (update.movedFrom, update.movedTo) = SectionedUpdate.movedSections(runs.ids.map { $0 < old.keys.count ? $0 : nil })
        for row in deletions { update.delete(old.indexPath(ofRow: row)) }
        for row in insertions { update.insertions.append(layout.indexPath(ofRow: row)) }
        for object in modified {
            let before = old.indexPath(ofRow: object.old)
            update.survivor(
                before: before, after: layout.indexPath(ofRow: object.new), changedSection: object.id != before[0], modified: true)
        }
        update.sort()
        return (layout, update)
    }

    /// Whether `rows` ascend strictly and lie in `0..<limit`.
    private static func ascending(_ rows: [Int], below limit: Int) -> Bool {
        var previous = -1
        for row in rows {
            guard row > previous, row < limit else { return false }
            previous = row
        }
        return true
    }

    /// Whether `count` keys of `a` from `i` equal those of `b` from `j` (both ranges in bounds).
    private static func equal(_ a: [UInt64], from i: Int, _ b: [UInt64], from j: Int, count: Int) -> Bool {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                // Both base addresses exist: each range holds `count` > 0 keys.
                guard let a = a.baseAddress, let b = b.baseAddress else { return false }
                return memcmp(a + i * 8, b + j * 8, count * 8) == 0
            }
        }
    }

    /// The new sections as runs of key ids, neighbours with one id merged.
    private struct Runs {
        var ids: [Int] = []
        var lengths: [Int] = []

        mutating func append(_ id: Int, _ length: Int) {
            if let last = ids.last, last == id {
                lengths[lengths.count - 1] += length
            } else {
                ids.append(id)
                lengths.append(length)
            }
        }
    }
}
