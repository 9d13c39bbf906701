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
/// is a deletion plus an insertion, not a modification. A section that changed place among the
/// others (possible only with a block key that does not follow the sort) is in both
/// `sectionsToDelete` and `sectionsToInsert`, with all its objects in `insertions`; the observer
/// of that one section (``ResultsSection/observe(keyPaths:_:)``) is not told of the move.
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
    /// - Complexity: Per change of c objects, O(c + s) for s sections whose objects are
    ///   consecutive, with the section key of the objects inserted or modified; interleaving
    ///   sections take one pass over the results' keys; with `keyPaths`, the key of every object.
    public func observe(
        keyPaths: [String]? = nil, _ block: @escaping (SectionedResultsChange<SectionedResults<Key, SectionElement>>) -> Void
    ) -> NotificationToken {
        results.observe(keyPaths: watched(keyPaths), sectionChanges(keyPaths: keyPaths, key: nil) { block($0) })
    }

    /// ``observe(keyPaths:_:)`` delivering on `queue`, as Realm's `observe(keyPaths:on:_:)`: the
    /// sections are re-created there, on a database instance of the same file confined to that
    /// queue, and `block` receives those.
    ///
    /// Only for sections by a key path (`sectioned(by: \.initial)`), whose keys the queue reads
    /// from its own objects. Sections by a block are a programmer error here: the block belongs
    /// to the isolation domain that made it, and the queue would call it on another thread —
    /// observe those where they were made, or on an actor's database. Registration happens on
    /// `queue`: a commit made before the queue runs is part of the `.initial` state.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue?,
        _ block: @escaping @Sendable (SectionedResultsChange<SectionedResults<Key, SectionElement>>) -> Void
    ) -> NotificationToken where Key: Sendable {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        return onQueue(queue, keyPaths: keyPaths, key: nil, failed: { block(.error($0)) }) { sections in { block($0) } }
    }

    /// The properties the results' observation watches for `keyPaths`: with a key path section
    /// key, its property too.
    func watched(_ keyPaths: [String]?) -> [String]? {
        keyPaths.map { paths in keyProperty.map { paths.contains($0) ? paths : paths + [$0] } ?? paths }
    }

    /// The results' changes mapped to these sections' changes (to those of the section with
    /// `key` only, if given), through a tracker of the sections last reported.
    func sectionChanges(
        keyPaths: [String]?, key: Key?, _ deliver: @escaping (SectionedResultsChange<SectionedResults<Key, SectionElement>>) -> Void
    ) -> (CollectionChange<Results<SectionElement>>) -> Void {
        let tracker = SectionTracker(self, everyModificationListed: keyPaths == nil)
        return { [self] change in
            switch change {
            case .initial:
                tracker.start()
                deliver(.initial(self))
            case .update(_, let deletions, let insertions, let modifications):
                let old = key.flatMap { tracker.layout?.sectionOfKey[$0] }
                guard let change = tracker.update(deletions: deletions, insertions: insertions, modifications: modifications),
                    let layout = tracker.layout
                else { return }
                let update: SectionedUpdate
                if let key {
                    // One section's observer: its own objects' changes; the section moving among
                    // the others is not one.
                    update = change.restricted(old: old, new: layout.sectionOfKey[key])
                    guard !update.isEmpty else { return }
                } else {
                    update = change.applyingMoves(layout)
                }
                deliver(
                    .update(
                        self, deletions: update.deletions, insertions: update.insertions, modifications: update.modifications,
                        sectionsToInsert: update.sectionsToInsert, sectionsToDelete: update.sectionsToDelete))
            case .error(let error):
                deliver(.error(error))
            }
        }
    }

    /// Registers, on `queue`, an observer of these sections re-created on a database instance
    /// confined to it; `deliver` makes the block that receives their changes from them.
    func onQueue(
        _ queue: DispatchQueue, keyPaths: [String]?, key: Key?, failed: @escaping @Sendable (any Error) -> Void,
        _ deliver: @escaping @Sendable (SectionedResults) -> (SectionedResultsChange<SectionedResults>) -> Void
    ) -> NotificationToken where Key: Sendable {
        guard keyProperty != nil else {
            objdbFatal(
                "observe(on:) was called on sections by a block key; the queue would call the block on another thread. Section by a key path (sectioned(by: \\.property)), or observe without a queue where the sections were made")
        }
        let query = FrozenQuery(results.query)
        // A key path section key reads only the object it is given: the queue's own objects.
        let recipe = Unchecked((keyProperty: keyProperty, sectionKey: sectionKey, key: key))
        return QueueObservation.start(results.database.configuration, on: queue, failed: failed) { database, control in
            guard let query = query.query(in: database) else { throw QueueObservation.vanished(query.className) }
            let sections = SectionedResults(
                results: Results<SectionElement>(database: database, query: query), keyProperty: recipe.value.keyProperty,
                sectionKey: recipe.value.sectionKey)
            guard let info = sections.results.classInfo else {
                throw ObjDBError(.unknownClass, "The class '\(query.className)' is not in the file's schema")
            }
            let watch = Watch.parse(sections.watched(keyPaths), info, database, caller: "SectionedResults.observe(on:)")
            let block = sections.sectionChanges(keyPaths: keyPaths, key: recipe.value.key, deliver(sections))
            return ResultsObserver(results: sections.results, watch: watch, block: block, control: control)
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
        parent.results.observe(keyPaths: parent.watched(keyPaths), parent.sectionChanges(keyPaths: keyPaths, key: key) { [self] change in
            block(change.reporting(self))
        })
    }

    /// ``observe(keyPaths:_:)`` delivering on `queue`: the section is found again by its key in
    /// sections re-created there (see ``SectionedResults/observe(keyPaths:on:_:)``).
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue?,
        _ block: @escaping @Sendable (SectionedResultsChange<ResultsSection<Key, Element>>) -> Void
    ) -> NotificationToken where Key: Sendable {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        let key = self.key
        return parent.onQueue(queue, keyPaths: keyPaths, key: key, failed: { block(.error($0)) }) { sections in
            let section = ResultsSection(parent: sections, key: key)
            return { block($0.reporting(section)) }
        }
    }
}

extension SectionedResultsChange {
    /// The same change, reporting `collection`.
    func reporting<Other>(_ collection: Other) -> SectionedResultsChange<Other> {
        switch self {
        case .initial: .initial(collection)
        case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
            .update(
                collection, deletions: deletions, insertions: insertions, modifications: modifications,
                sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
        case .error(let error): .error(error)
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
    /// Sections present before and after that changed place among the others, by old index;
    /// reported deleted and inserted again (``applyingMoves(_:)``).
    var movedFrom = IndexSet()
    /// The same sections, by new index.
    var movedTo = IndexSet()

    /// Whether nothing changed.
    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty
            && movedFrom.isEmpty
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
    ///
    /// Consecutive sections follow the change alone (``IncrementalSections``, the fast path);
    /// other sections, and changes that may not list every modification, take one pass over
    /// the results (``general(_:newKeys:deletions:insertions:modifications:)``, its twin).
    func update(deletions: [Int], insertions: [Int], modifications: [Int]) -> SectionedUpdate? {
        guard let old = layout else {
            start()
            return nil
        }
        let newKeys = sectioned.results.objectKeys()
        let next: (layout: SectionLayout<Key>, update: SectionedUpdate)
        if everyModificationListed, FastPaths.enabled.contains(.incrementalSections),
            var fast = IncrementalSections(old: old, newKeys: newKeys, deletions: deletions, insertions: insertions, modifications: modifications)
                .next(sectionKey: { self.sectioned.sectionKey(self.sectioned.results[$0]) })
        {
            #if OBJDB_INTERNAL_CHECKS
            if internalChecksEnabled {
                if FastPaths.broken.contains(.incrementalSections), !fast.update.insertions.isEmpty { fast.update.insertions.removeLast() }
                let slow = general(old, newKeys: newKeys, deletions: deletions, insertions: insertions, modifications: modifications)
                internalCheck(
                    fast.layout.hasSameSections(as: slow.layout) && fast.update == slow.update,
                    "incremental sections \(fast.layout.keys.count) / \(fast.update) disagree with one pass over the results \(slow.layout.keys.count) / \(slow.update)")
            }
            #endif
            next = fast
        } else {
            next = general(old, newKeys: newKeys, deletions: deletions, insertions: insertions, modifications: modifications)
        }
        layout = next.layout
        sectioned.adopt(next.layout)
        return next.update.isEmpty ? nil : next.update
    }

    /// The new sections and the update from `old`, in one pass over the results' keys `newKeys`:
    /// the section key is computed for the objects the change inserted or modified (for all,
    /// when the modifications may not list every change, or the change does not lead from
    /// `old`'s objects to these).
    func general(
        _ old: SectionLayout<Key>, newKeys: [UInt64], deletions: [Int], insertions: [Int], modifications: [Int]
    ) -> (layout: SectionLayout<Key>, update: SectionedUpdate) {
        let results = sectioned.results
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
        let oldSectionOfRow = old.sectionOfEachRow()
        var ids: [Int] = []
        ids.reserveCapacity(newKeys.count)
        if consistent && everyModificationListed {
            var next = 0
            for newRow in newKeys.indices {
                if next < pairs.count, pairs[next].new == newRow {
                    defer { next += 1 }
                    if !pairModified[next] {
                        ids.append(oldSectionOfRow[pairs[next].old])
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

        var update = SectionedUpdate()
        for (index, key) in old.keys.enumerated() where new.sectionOfKey[key] == nil {
            update.sectionsToDelete.insert(index)
        }
        for (index, key) in new.keys.enumerated() where old.sectionOfKey[key] == nil {
            update.sectionsToInsert.insert(index)
        }
        (update.movedFrom, update.movedTo) = SectionedUpdate.movedSections(new.keys.map { old.sectionOfKey[$0] })
        if consistent {
            for row in deletions { update.delete(old.indexPath(ofRow: row)) }
            for row in insertions { update.insertions.append(new.indexPath(ofRow: row)) }
            for (index, pair) in pairs.enumerated() {
                // Key ids of old keys are their old sections' indices.
                let changedSection = ids[pair.new] != oldSectionOfRow[pair.old]
                guard changedSection || pairModified[index] else { continue }
                update.survivor(
                    before: old.indexPath(ofRow: pair.old), after: new.indexPath(ofRow: pair.new),
                    changedSection: changedSection, modified: pairModified[index])
            }
        } else {
            // The flat changes do not lead from the sections reported to these (not expected):
            // report every object as replaced, which is always a valid update.
            for row in old.objectKeys.indices { update.delete(old.indexPath(ofRow: row)) }
            for row in newKeys.indices { update.insertions.append(new.indexPath(ofRow: row)) }
        }
        update.sort()
        return (new, update)
    }
}

extension SectionedUpdate {
    /// The sections present before and after whose order changed, by old and by new index:
    /// `oldIndexOfNew[s]` is the old index of new section `s`'s key, `nil` for a new key. The
    /// longest run of sections in their old order stays; the others moved.
    ///
    /// - Complexity: O(s log s) for s sections.
    static func movedSections(_ oldIndexOfNew: [Int?]) -> (old: IndexSet, new: IndexSet) {
        // Patience sorting: `tails[k]` is the new index ending the best increasing run of
        // length k + 1 found so far; `previous` links each new index to the one before it.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: oldIndexOfNew.count)
        for (index, oldIndex) in oldIndexOfNew.enumerated() {
            guard let oldIndex else { continue }
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if let value = oldIndexOfNew[tails[middle]], value < oldIndex { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var kept = Set<Int>()
        var index = tails.last ?? -1
        while index >= 0 {
            kept.insert(index)
            index = previous[index]
        }
        var moved = (old: IndexSet(), new: IndexSet())
        for (index, oldIndex) in oldIndexOfNew.enumerated() where !kept.contains(index) {
            guard let oldIndex else { continue }
            moved.old.insert(oldIndex)
            moved.new.insert(index)
        }
        return moved
    }

    /// The update as a batch update needs it: each section that changed place among the others
    /// (``movedFrom``, ``movedTo``) deleted and inserted again, with every object it now holds
    /// inserted, and none of its objects deleted or modified. `layout` is the new sections.
    func applyingMoves<Key>(_ layout: SectionLayout<Key>) -> SectionedUpdate {
        guard !movedFrom.isEmpty else { return self }
        var update = self
        update.sectionsToDelete.formUnion(movedFrom)
        update.sectionsToInsert.formUnion(movedTo)
        update.deletions.removeAll { movedFrom.contains($0[0]) }
        update.modifications.removeAll { movedFrom.contains($0[0]) }
        update.insertions.removeAll { movedTo.contains($0[0]) }
        for section in movedTo {
            for item in 0..<layout.count(ofSection: section) { update.insertions.append(IndexPath(indexes: [section, item])) }
        }
        update.movedFrom = []
        update.movedTo = []
        update.sort()
        return update
    }

    /// Adds the deletion of the object at `path` of the old sections, unless its whole section
    /// is deleted (``sectionsToDelete`` must be complete).
    mutating func delete(_ path: IndexPath) {
        if !sectionsToDelete.contains(path[0]) { deletions.append(path) }
    }

    /// Adds what an object present before and after the change needs: at `before` in the old
    /// sections and `after` in the new ones, in another section or not, modified or not.
    mutating func survivor(before: IndexPath, after: IndexPath, changedSection: Bool, modified: Bool) {
        if changedSection {
            // Moved to another section.
            delete(before)
            insertions.append(after)
        } else if modified {
            if before != after {
                // Modified and moved in its section (its index path changed).
                delete(before)
                insertions.append(after)
            } else {
                modifications.append(before)
            }
        }
    }

    /// Sorts the index paths, as Realm reports them.
    mutating func sort() {
        deletions.sort()
        insertions.sort()
        modifications.sort()
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
