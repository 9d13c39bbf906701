import Foundation

/// What an observed ``SectionedResults`` or ``ResultsSection`` reports to its observer, as
/// Realm Swift's `SectionedResultsChange`.
///
/// ```swift
/// let token = sections.observe { change in
///     switch change {
///     case .initial:
///         tableView.reloadData()
///     case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
///         tableView.performBatchUpdates {
///             tableView.deleteSections(sectionsToDelete, with: .automatic)
///             tableView.insertSections(sectionsToInsert, with: .automatic)
///             tableView.deleteRows(at: deletions, with: .automatic)
///             tableView.insertRows(at: insertions, with: .automatic)
///             tableView.reloadRows(at: modifications, with: .automatic)
///         }
///     case .error(let error):
///         print(error)
///     }
/// }
/// ```
///
/// Index paths follow Realm: `deletions` and `modifications` are in the previous sections,
/// `insertions` in the new ones, each ascending. A section whose key no object had before is in
/// `sectionsToInsert` (new indices) and its objects in `insertions`; a section whose key no
/// object has any more is in `sectionsToDelete` (old indices), and its objects are not also in
/// `deletions`. An object that changed section, or a modified object whose index path changed,
/// is a deletion plus an insertion, not a modification.
public enum SectionedResultsChange<Collection> {
    /// The collection as it is when the observation starts; always the first call.
    case initial(Collection)
    /// The collection changed: the index paths of the objects deleted, inserted and modified,
    /// and the indices of the sections inserted and deleted.
    case update(
        Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
        sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
    /// The observation could not go on; no call follows.
    case error(any Error)
}

extension SectionedResults {
    /// Calls `block` with the sections now (`.initial`) and whenever they change (`.update`,
    /// with Realm's index paths; see ``SectionedResultsChange``).
    ///
    /// ```swift
    /// let token = people.sectioned(by: \.initial).observe { change in
    ///     if case .update(let sections, _, let insertions, _, let sectionsToInsert, _) = change { … }
    /// }
    /// ```
    ///
    /// Delivered when and where the results' notifications are (``Results/observe(keyPaths:_:)``):
    /// the sections are the results' observation mapped to index paths.
    ///
    /// - Parameters:
    ///   - keyPaths: The properties whose changes count as modifications; with a key path
    ///     section key, its property is watched too. A block key should read only watched
    ///     properties: a change to another one moves no object between sections until the next
    ///     change that is reported.
    ///   - block: Called in this database's isolation domain.
    /// - Returns: A token; notifications stop when it is invalidated or released.
    /// - Complexity: Per change, one pass over the results' keys to lay out the sections, and the
    ///   section key of the objects inserted or modified; with `keyPaths`, the key of every object.
    public func observe(
        keyPaths: [String]? = nil, _ block: @escaping (SectionedResultsChange<SectionedResults<Key, SectionElement>>) -> Void
    ) -> NotificationToken {
        let tracker = SectionTracker(self, everyModificationListed: keyPaths == nil)
        let watched = keyPaths.map { paths in keyProperty.map { paths.contains($0) ? paths : paths + [$0] } ?? paths }
        return results.observe(keyPaths: watched) { [self] change in
            switch change {
            case .initial:
                tracker.start()
                block(.initial(self))
            case .update(_, let deletions, let insertions, let modifications):
                guard let update = tracker.update(deletions: deletions, insertions: insertions, modifications: modifications) else { return }
                block(
                    .update(
                        self, deletions: update.deletions, insertions: update.insertions, modifications: update.modifications,
                        sectionsToInsert: update.sectionsToInsert, sectionsToDelete: update.sectionsToDelete))
            case .error(let error):
                block(.error(error))
            }
        }
    }
}

extension ResultsSection {
    /// Calls `block` with the section now (`.initial`) and whenever the objects with its key
    /// change (`.update`): the changes of its sectioned results (``SectionedResults/observe(keyPaths:_:)``)
    /// that fall in this section, with the sectioned results' indices. A commit that changes no
    /// object of the section calls nothing; one that removes its last object reports its
    /// section deleted, and one that gives the key to an object again, inserted.
    ///
    /// ```swift
    /// let token = sections[0].observe { change in
    ///     if case .update(let section, _, _, _, _, _) = change { print(section.count) }
    /// }
    /// ```
    public func observe(
        keyPaths: [String]? = nil, _ block: @escaping (SectionedResultsChange<ResultsSection<Key, Element>>) -> Void
    ) -> NotificationToken {
        let key = self.key
        let tracker = SectionTracker(parent, everyModificationListed: keyPaths == nil)
        let watched = keyPaths.map { paths in parent.keyProperty.map { paths.contains($0) ? paths : paths + [$0] } ?? paths }
        return parent.results.observe(keyPaths: watched) { [self] change in
            switch change {
            case .initial:
                tracker.start()
                block(.initial(self))
            case .update(_, let deletions, let insertions, let modifications):
                let old = tracker.layout?.sectionOfKey[key]
                guard let update = tracker.update(deletions: deletions, insertions: insertions, modifications: modifications) else { return }
                let new = tracker.layout?.sectionOfKey[key]
                let mine = update.restricted(old: old, new: new)
                guard !mine.isEmpty else { return }
                block(
                    .update(
                        self, deletions: mine.deletions, insertions: mine.insertions, modifications: mine.modifications,
                        sectionsToInsert: mine.sectionsToInsert, sectionsToDelete: mine.sectionsToDelete))
            case .error(let error):
                block(.error(error))
            }
        }
    }
}

/// One change of a sectioned results, in index paths.
struct SectionedUpdate: Equatable {
    /// Objects removed, in the old sections (not those of a deleted section).
    var deletions: [IndexPath] = []
    /// Objects added, in the new sections (those of an inserted section too).
    var insertions: [IndexPath] = []
    /// Objects changed in place, in the old sections.
    var modifications: [IndexPath] = []
    /// Sections whose key is new, in the new sections.
    var sectionsToInsert = IndexSet()
    /// Sections whose key is gone, in the old sections.
    var sectionsToDelete = IndexSet()

    /// Whether nothing changed.
    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty
    }

    /// The part of the update about the section at `old` before and `new` after.
    func restricted(old: Int?, new: Int?) -> SectionedUpdate {
        var mine = SectionedUpdate()
        if let old {
            mine.deletions = deletions.filter { $0[0] == old }
            mine.modifications = modifications.filter { $0[0] == old }
            if sectionsToDelete.contains(old) { mine.sectionsToDelete.insert(old) }
        }
        if let new {
            mine.insertions = insertions.filter { $0[0] == new }
            if sectionsToInsert.contains(new) { mine.sectionsToInsert.insert(new) }
        }
        return mine
    }
}

/// The sections an observer last reported, and the mapping of the results' flat changes to
/// index paths from them and the new sections.
final class SectionTracker<Key: Hashable, Element: ObjectBase> {
    /// The sectioned results observed.
    let sectioned: SectionedResults<Key, Element>
    /// Whether the results' modifications list every object whose properties changed (no
    /// `keyPaths`): then an object neither inserted nor modified keeps its section key.
    let everyModificationListed: Bool
    /// The sections last reported; `nil` before the first call.
    private(set) var layout: SectionLayout<Key>?

    /// A tracker of `sectioned`, before its first call.
    init(_ sectioned: SectionedResults<Key, Element>, everyModificationListed: Bool) {
        self.sectioned = sectioned
        self.everyModificationListed = everyModificationListed
    }

    /// The initial call: the sections now.
    func start() {
        layout = sectioned.layout()
    }

    /// The results changed by these flat changes (Realm's indices); the sections' update, `nil`
    /// when it is empty. The new sections become the reported ones, and the results' own.
    func update(deletions: [Int], insertions: [Int], modifications: [Int]) -> SectionedUpdate? {
        guard let old = layout else {
            start()
            return nil
        }
        let results = sectioned.results
        let newKeys = results.objectKeys()
        // The survivors, in order on both sides: the old rows not deleted and the new rows not
        // inserted correspond one to one. The flat changes ascend: walked, not hashed.
        var pairs: [(old: Int, new: Int)] = []
        pairs.reserveCapacity(max(0, newKeys.count - insertions.count))
        // Whether each pair's old row was modified.
        var pairModified: [Bool] = []
        pairModified.reserveCapacity(pairs.capacity)
        var oldRow = 0
        var nextDeletion = 0, nextInsertion = 0, nextModification = 0
        var consistent = true
        for newRow in newKeys.indices {
            if nextInsertion < insertions.count && insertions[nextInsertion] == newRow {
                nextInsertion += 1
                continue
            }
            while nextDeletion < deletions.count && deletions[nextDeletion] == oldRow {
                oldRow += 1
                nextDeletion += 1
            }
            guard oldRow < old.objectKeys.count, old.objectKeys[oldRow] == newKeys[newRow] else {
                consistent = false
                break
            }
            while nextModification < modifications.count && modifications[nextModification] < oldRow { nextModification += 1 }
            pairModified.append(nextModification < modifications.count && modifications[nextModification] == oldRow)
            pairs.append((oldRow, newRow))
            oldRow += 1
        }
        // The changes must lead from the old rows to the new ones: not so if the results moved
        // without telling these sections (a write that skipped their token, say).
        let survivors = newKeys.count - insertions.count
        if consistent {
            consistent = pairs.count == survivors && old.objectKeys.count - deletions.count == survivors
                && deletions.allSatisfy { old.objectKeys.indices.contains($0) }
                && insertions.allSatisfy { newKeys.indices.contains($0) }
        }

        // The key id of every new object (``SectionLayout/init(objectKeys:ids:keyOfID:)``): an
        // old section's index for its key, so that an unmodified survivor keeps its old
        // section's; the key is computed for the others (for all, when the modifications may
        // not list every change).
        var keyOfID = old.keys
        var newIDs: [Key: Int] = [:]
        func id(of key: Key) -> Int {
            if let known = old.sectionOfKey[key] ?? newIDs[key] { return known }
            newIDs[key] = keyOfID.count
            keyOfID.append(key)
            return keyOfID.count - 1
        }
        var ids: [Int] = []
        ids.reserveCapacity(newKeys.count)
        if consistent && everyModificationListed {
            var next = 0
            for newRow in newKeys.indices {
                if next < pairs.count, pairs[next].new == newRow {
                    defer { next += 1 }
                    if !pairModified[next] {
                        ids.append(old.sectionOfRow[pairs[next].old])
                        continue
                    }
                }
                ids.append(id(of: sectioned.sectionKey(results[newRow])))
            }
        } else {
            // By position, as the keys: an iteration skips objects it cannot read.
            for row in newKeys.indices { ids.append(id(of: sectioned.sectionKey(results[row]))) }
        }
        let new = SectionLayout(objectKeys: newKeys, ids: ids, keyOfID: keyOfID)
        layout = new
        sectioned.adopt(new)

        var update = SectionedUpdate()
        for (index, key) in old.keys.enumerated() where new.sectionOfKey[key] == nil {
            update.sectionsToDelete.insert(index)
        }
        for (index, key) in new.keys.enumerated() where old.sectionOfKey[key] == nil {
            update.sectionsToInsert.insert(index)
        }
        /// A deletion, unless its whole section is deleted.
        func delete(_ row: Int) {
            let path = old.indexPath(ofRow: row)
            if !update.sectionsToDelete.contains(path[0]) { update.deletions.append(path) }
        }
        if consistent {
            for row in deletions { delete(row) }
            for row in insertions { update.insertions.append(new.indexPath(ofRow: row)) }
            for (index, pair) in pairs.enumerated() {
                let modified = pairModified[index]
                // Key ids of old keys are their old sections' indices.
                if ids[pair.new] != old.sectionOfRow[pair.old] {
                    // Moved to another section.
                    delete(pair.old)
                    update.insertions.append(new.indexPath(ofRow: pair.new))
                } else if modified {
                    let before = old.indexPath(ofRow: pair.old)
                    let after = new.indexPath(ofRow: pair.new)
                    if before != after {
                        // Modified and moved in its section (its index path changed).
                        delete(pair.old)
                        update.insertions.append(after)
                    } else {
                        update.modifications.append(before)
                    }
                }
            }
        } else {
            // The flat changes do not lead from the sections reported to these (not expected):
            // report every object as replaced, which is always a valid update.
            for row in old.objectKeys.indices { delete(row) }
            for row in newKeys.indices { update.insertions.append(new.indexPath(ofRow: row)) }
        }
        update.deletions.sort()
        update.insertions.sort()
        update.modifications.sort()
        return update.isEmpty ? nil : update
    }
}

extension SectionedResults {
    /// The changes of these sections as an `AsyncSequence`: `.initial`, then one `.update` per
    /// commit that changes them, with Realm's index paths (see ``observe(keyPaths:_:)`` and
    /// ``ChangeSequence``).
    ///
    /// ```swift
    /// for await change in people.sectioned(by: \.initial).changes {
    ///     if case .update(let sections, _, _, _, let sectionsToInsert, _) = change { render(sections) }
    /// }
    /// ```
    public var changes: ChangeSequence<SectionedResultsChange<SectionedResults<Key, SectionElement>>> {
        changes(keyPaths: nil)
    }

    /// ``changes`` counting only changes to `keyPaths` as modifications.
    public func changes(keyPaths: [String]?) -> ChangeSequence<SectionedResultsChange<SectionedResults<Key, SectionElement>>> {
        ChangeSequence(database: results.database, register: { block in observe(keyPaths: keyPaths, block) }, isLast: { change in
            if case .error = change { return true }
            return false
        })
    }
}

extension ResultsSection {
    /// The changes of this section as an `AsyncSequence` (see ``observe(keyPaths:_:)`` and
    /// ``ChangeSequence``): `.initial`, then one `.update` per commit that changes the objects
    /// with its key.
    public var changes: ChangeSequence<SectionedResultsChange<ResultsSection<Key, Element>>> {
        changes(keyPaths: nil)
    }

    /// ``changes`` counting only changes to `keyPaths` as modifications.
    public func changes(keyPaths: [String]?) -> ChangeSequence<SectionedResultsChange<ResultsSection<Key, Element>>> {
        ChangeSequence(database: parent.results.database, register: { block in observe(keyPaths: keyPaths, block) }, isLast: { change in
            if case .error = change { return true }
            return false
        })
    }
}
