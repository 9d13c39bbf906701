/// Observes a `Results`: keeps the object keys it last reported and diffs the new ones against
/// them (``CollectionDiff``), with the modified objects from ``ModificationCheck``.
final class ResultsObserver<Element: ObjectBase>: Observer {
    let control: ObserverControl
    /// The results, until the observer is cancelled.
    private let held: LockedBox<Results<Element>>
    let watch: Watch
    private let block: LockedBox<(CollectionChange<Results<Element>>) -> Void>
    /// The keys last reported; `nil` before the first call.
    private var keys: [UInt64]?
    /// The version ``keys`` were read at. A delivery's changes lead from the version the
    /// observers saw; an observer called after a callback that wrote read a newer one, and must
    /// be evaluated again rather than updated from those changes (or skipped for their absence).
    private var keysVersion: Int?

    init(
        results: Results<Element>, watch: Watch, block: @escaping (CollectionChange<Results<Element>>) -> Void,
        control: ObserverControl = ObserverControl()
    ) {
        self.control = control
        held = LockedBox(results)
        self.watch = watch
        self.block = LockedBox(block)
        control.whenCancelled { [held, block = self.block] in
            held.clear()
            block.clear()
        }
    }

    var needsInitial: Bool { keys == nil }

    func deliverInitial() {
        guard let results = held.value else { return }
        keys = results.objectKeys()
        keysVersion = results.database.readableTxn()?.id
        block.value?(.initial(results))
    }

    func catchUp() {
        if keys != nil, let results = held.value {
            keys = results.objectKeys()
            keysVersion = results.database.readableTxn()?.id
        }
    }

    func fail(_ error: any Error) {
        let call = block.value
        control.cancel()
        call?(.error(error))
    }

    func deliver(_ delivery: Delivery) {
        guard let old = keys else { return deliverInitial() }
        guard let results = held.value, let info = results.classInfo else { return }
        let new: [UInt64]
        let check: ModificationCheck
        // Whether the changes lead from the version the keys were read at to the one read now:
        // not so for an observer called after a callback that wrote, in this round or the last.
        var fromSeen = false
        do {
            let txn = try results.database.requireReadableTxn()
            check = ModificationCheck(delivery: delivery, new: txn)
            defer { keysVersion = txn.id }
            fromSeen = keysVersion != nil && keysVersion == delivery.old?.id && txn.id == delivery.newVersion
            if fromSeen {
                // Nothing the results read changed: no evaluation, no call.
                if results.query.filter == nil, case .table = results.query.source, results.query.readsOnlyItsClassBesidesFilter,
                    !check.mayTouch(info, watch)
                { return }
                if let changes = delivery.changes, !changes.schemaChanged, changes.isEmpty { return }
                if let (keys, diff) = incrementalUpdate(old, results, info, check, txn) {
                    results.adoptKeys(keys)
                    self.keys = keys
                    if !diff.isEmpty { report(results, diff) }
                    return
                }
            }
            new = results.objectKeys()
        } catch {
            return fail(error)
        }
        let diff: CollectionDiff
        if case .table = results.query.source {
            diff = Self.diff(old, new, check, info, watch)
        } else if fromSeen, let edited = Self.listDiff(old, new, results, delivery, check, info, watch) {
            diff = edited
        } else {
            // A list, or linking objects, may hold an object more than once.
            diff = RepeatedKeys.diff(old, new, distinct: { Self.diff(old, new, check, info, watch) }) { check.modified($0, info, watch) }
        }
        keys = new
        if !diff.isEmpty { report(results, diff) }
    }

    private func report(_ results: Results<Element>, _ diff: CollectionDiff) {
        block.value?(.update(results, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications))
    }

    /// The new keys and the diff from the change set alone (``IncrementalKeys`` in key order,
    /// ``IncrementalSortedKeys`` sorted), when the results and the delivery allow it: a change
    /// set without schema changes, results whose filter reads the row alone, and no watched link
    /// into a class the commit changed.
    private func incrementalUpdate(
        _ old: [UInt64], _ results: Results<Element>, _ info: ClassInfo, _ check: ModificationCheck, _ txn: Txn
    ) -> (keys: [UInt64], diff: CollectionDiff)? {
        guard !FastPaths.enabled.isDisjoint(with: [.incrementalResults, .incrementalSortedResults]),
            let changes = check.delivery.changes, !changes.schemaChanged
        else { return nil }
        let watch = self.watch
        let database = results.database
        let linksTouched = watch.linkTargets(info).contains { column, sub in
            database.targetInfo(info, column: column).map { check.mayTouch($0, sub) } ?? false
        }
        guard !linksTouched else { return nil }
        let change = changes[info.classID]
        let update: (keys: [UInt64], diff: CollectionDiff)
        if let rowTest = results.ownRowTest() {
            guard FastPaths.enabled.contains(.incrementalResults) else { return nil }
            guard let unsorted = IncrementalKeys.update(
                old, change, rowTest: rowTest, table: info.objectsTable, txn: txn,
                isModified: { key in change.modifiedColumns(of: key).map { watch.counts($0) } ?? false })
            else { return nil }
            update = unsorted
        } else if FastPaths.enabled.contains(.incrementalSortedResults), let sorted = results.ownRowSort(),
            let oldTxn = check.delivery.old
        {
            // The listed modifications are all there are (no watched link changed, above).
            guard let sorted = IncrementalSortedKeys.update(
                old, change, rowTest: sorted.rowTest, order: sorted.order, table: info.objectsTable, oldTxn: oldTxn, newTxn: txn,
                watched: { watch.counts($0) })
            else { return nil }
            update = sorted
        } else {
            return nil
        }
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            let evaluated = results.evaluateKeys(limitOverride: nil)
            internalCheck(update.keys == evaluated, "incremental results: keys \(update.keys) but the evaluation gives \(evaluated)")
            let diff = Self.diff(old, evaluated, check, info, watch)
            internalCheck(update.diff == diff, "incremental results: diff \(update.diff) but the full diff is \(diff)")
        }
        #endif
        return update
    }

    /// For the results of a list, the diff from the edits the commits recorded (``ListEdit``),
    /// as Realm reports them: a replaced element is a modification, a moved one a deletion and an
    /// insertion; `nil` when the change set lists no edits of the list or they do not lead from
    /// `old` to `new` (a change made without them), and the two versions are compared instead.
    private static func listDiff(
        _ old: [UInt64], _ new: [UInt64], _ results: Results<Element>, _ delivery: Delivery, _ check: ModificationCheck,
        _ info: ClassInfo, _ watch: Watch
    ) -> CollectionDiff? {
        // The list itself: filtered, sorted, distinct or limited results do not keep its positions.
        let query = results.query
        guard case .collection(let home) = query.source, query.filter == nil, query.sort.isEmpty, query.distinct.isEmpty,
            query.limit == nil, query.later.isEmpty, let changes = delivery.changes, !changes.schemaChanged,
            let edits = changes[home.info.classID].listEdits[home.parent._objdbKey]?[home.column],
            let edited = ListEditDiff(edits, old: old, new: new)
        else { return nil }
        let kept = Set(edited.survivors.map { old[$0.old] }).sorted()
        let modified = Set(kept.isEmpty ? [] : check.modified(kept, info, watch))
        let changed = edited.survivors.filter { modified.contains(old[$0.old]) }.map(\.old)
        return CollectionDiff(
            deletions: edited.deletions, insertions: edited.insertions, modifications: (changed + edited.replaced).sorted())
    }

    /// The diff of two versions of distinct keys, with the modified objects among those in both.
    private static func diff(
        _ old: [UInt64], _ new: [UInt64], _ check: ModificationCheck, _ info: ClassInfo, _ watch: Watch
    ) -> CollectionDiff {
        let inKeyOrder = CollectionDiff.ascending(old) && CollectionDiff.ascending(new)
        let survivors = Self.survivors(old, new, inKeyOrder: inKeyOrder)
        let modified = survivors.isEmpty ? [] : check.modified(survivors, info, watch)
        return CollectionDiff.between(old, new, inKeyOrder: inKeyOrder, modified: modified)
    }

    /// The keys in both, ascending.
    static func survivors(_ old: [UInt64], _ new: [UInt64], inKeyOrder: Bool) -> [UInt64] {
        if inKeyOrder {
            var both: [UInt64] = []
            var i = 0, j = 0
            while i < old.count && j < new.count {
                if old[i] == new[j] {
                    both.append(old[i])
                    i += 1
                    j += 1
                } else if old[i] < new[j] {
                    i += 1
                } else {
                    j += 1
                }
            }
            return both
        }
        return Set(old).intersection(new).sorted()
    }
}

/// Observes one object: reports the watched properties that changed, with their old values
/// when the change came from elsewhere, and its deletion.
final class ObjectObserver<Target: ObjectBase>: Observer {
    let control = ObserverControl()
    /// The object, until the observer is cancelled.
    private let held: LockedBox<Target>
    let info: ClassInfo
    let key: UInt64
    let watch: Watch
    private let block: LockedBox<(ObjectChange<Target>) -> Void>
    let needsInitial = false

    init(object: Target, info: ClassInfo, watch: Watch, block: @escaping (ObjectChange<Target>) -> Void) {
        held = LockedBox(object)
        self.info = info
        key = object._objdbKey
        self.watch = watch
        self.block = LockedBox(block)
        control.whenCancelled { [held, block = self.block] in
            held.clear()
            block.clear()
        }
    }

    func deliverInitial() {}

    func catchUp() {}

    func fail(_ error: any Error) {
        let call = block.value
        control.cancel()
        call?(.error(error))
    }

    func deliver(_ delivery: Delivery) {
        guard let object = held.value, let call = block.value else { return }
        let database = delivery.database
        let txn: Txn
        do {
            txn = try database.requireReadableTxn()
        } catch {
            return fail(error)
        }
        let exists: Bool
        do {
            exists = try txn.get(info.objectsTable, key: key) != nil
        } catch {
            return fail(error)
        }
        guard exists else {
            control.cancel()
            call(.deleted)
            return
        }
        let check = ModificationCheck(delivery: delivery, new: txn)
        guard check.mayTouch(info, watch) else { return }
        var changes: [PropertyChange] = []
        let oldRow: RowView? = delivery.isLocal ? nil : delivery.old.flatMap { old in
            // try?: an old row that cannot be read gives no old values.
            (try? old.get(info.objectsTable, key: key)).flatMap { $0 }.flatMap(RowView.init)
        }
        let listed = delivery.changes.flatMap { $0.schemaChanged ? nil : $0[info.classID].modifiedColumns(of: key) }
        for column in 0..<info.columnCount where watch.counts(column: column) || !Self.targets(watch, info, column).isEmpty {
            let property = info.stored.properties[column]
            var changed = false
            if let listed, watch.counts(column: column), listed.columns.contains(column) {
                changed = true
            } else if delivery.changes == nil || delivery.changes?.schemaChanged == true, watch.counts(column: column) {
                let newRead = object._objdbRead(column)
                changed = oldRow.map { !$0.column(column).sameContent(as: newRead) } ?? true
            }
            if !changed, let sub = Self.targets(watch, info, column).first, let target = database.targetInfo(info, column: column) {
                let newRow = txn.rowView(info, key)
                let targets = newRow.map { Database.linkedKeys($0.column(column), kind: info.columnKinds[column]) } ?? []
                changed = targets.contains { check.isModified(target, key: $0, sub, depth: 1) }
            }
            guard changed else { continue }
            let isCollection = info.columnKinds[column] != .value && info.columnKinds[column] != .link
            let oldValue: Any? = isCollection ? nil : oldRow.flatMap { row in
                database.value(of: row.column(column), info, column: column)
            }
            let newValue: Any? = isCollection ? nil : object[property.name]
            changes.append(PropertyChange(name: property.name, oldValue: oldValue, newValue: newValue))
        }
        if !changes.isEmpty { call(.change(object, changes)) }
    }

    /// The watch on the targets of `column`, if its targets are watched.
    private static func targets(_ watch: Watch, _ info: ClassInfo, _ column: Int) -> [Watch] {
        watch.linkTargets(info).filter { $0.column == column }.map(\.watch)
    }
}

/// Observes a database: called whenever it moves to a new version.
final class DatabaseObserver: Observer {
    let control = ObserverControl()
    private weak var database: Database?
    private let block: LockedBox<(Database.Notification, Database) -> Void>

    init(database: Database, block: @escaping (Database.Notification, Database) -> Void) {
        self.database = database
        self.block = LockedBox(block)
        control.whenCancelled { [block = self.block] in block.clear() }
    }

    var needsInitial: Bool { false }

    func deliverInitial() {}

    func catchUp() {}

    func fail(_ error: any Error) { control.cancel() }

    func deliver(_ delivery: Delivery) {
        guard let database else { return }
        block.value?(.didChange, database)
    }

    /// Another instance or process committed and the database does not refresh by itself.
    func refreshRequired() {
        guard let database else { return }
        block.value?(.refreshRequired, database)
    }
}

extension Txn {
    /// The row of `key` of `info`, if it exists and reads.
    func rowView(_ info: ClassInfo, _ key: UInt64) -> RowView? {
        // try?: an unreadable row counts as absent here; reading the object reports it.
        (try? get(info.objectsTable, key: key)).flatMap { $0 }.flatMap(RowView.init)
    }
}
