/// Following key paths from a row: the values a path reaches, and the groups a to-many path's
/// quantifiers and aggregates apply to.
extension QueryEvaluator {
    /// The first value `path` reaches from the object `key` with row `row`, or null.
    func firstValue(_ path: BoundPath, _ key: UInt64, _ row: RowView) -> QueryScalar {
        if let column = path.directValueColumn {
            return QueryScalar(row.column(column), path.leafType)
        }
        var value = QueryScalar.null
        _ = walk(path, 0, key, row) { read in
            value = path.scalar(read)
            return false
        }
        return value
    }

    /// Calls `body` with every value `path` reaches from object `key` (row `row`), from step
    /// `index` on; `body` returns `false` to stop. Returns `false` if it was stopped.
    ///
    /// A to-one link that is `nil` (or names no object) before the end of the path yields one
    /// null value; an element of a collection whose object is missing yields nothing.
    func walk(_ path: BoundPath, _ index: Int, _ key: UInt64, _ row: RowView, _ body: (ColumnRead) -> Bool) -> Bool {
        let step = path.steps[index]
        guard index == path.steps.count - 1 else {
            return forEachTarget(step, key, row) { targetKey, targetRow in
                guard let targetRow else { return body(.null) }
                return walk(path, index + 1, targetKey, targetRow, body)
            }
        }
        switch step.kind {
        case .column(let kind):
            let read = row.column(step.column)
            switch kind {
            case .value, .link:
                // `value[0]['foo']`: the subscripts into the list or dictionary a mixed value holds.
                return step.nested.isEmpty ? body(read) : MixedSelector.select(step.nested, from: 0, in: read, body)
            case .list, .set:
                let view = SequenceView(read)
                for i in 0..<view.count where !body(view.element(i)) { return false }
                return true
            case .map:
                let (values, one) = step.mapSequence(read)
                if let one {  // map['key'], then any subscripts into its mixed value
                    let value = one >= 0 ? values.element(one) : .null
                    return step.nested.isEmpty ? body(value) : MixedSelector.select(step.nested, from: 0, in: value, body)
                }
                for i in 0..<values.count where !body(values.element(i)) { return false }
                return true
            }
        case .backlinks, .anyBacklinks:
            for var originKey in linkingKeys(step, key) where !withUnsafeBytes(of: &originKey, { body(.value($0)) }) {
                return false
            }
            return true
        }
    }

    /// Whether `test` holds for some group of `path` from the object `key` (row `row`): an
    /// object holding the path's last collection (``BoundPath/groupStep``), reached through the
    /// steps before it. A nil link before the collection is one empty group (a `nil` row), and
    /// so is a path that reaches no object holding it (an empty list of objects before it), as
    /// in current Realm: `ALL list.integers == 1` holds for an empty `list`. For a to-one path,
    /// `test` gets the object itself.
    func anyGroup(_ path: BoundPath, _ key: UInt64, _ row: RowView, _ test: (UInt64, RowView?) -> Bool) -> Bool {
        guard let groupStep = path.groupStep else { return test(key, row) }
        var reachedGroup = false
        let stopped = !forEachGroup(path, 0, groupStep, key, row) { groupKey, groupRow in
            reachedGroup = true
            return !test(groupKey, groupRow)
        }
        return stopped || (!reachedGroup && test(0, nil))
    }

    /// Calls `body` with each group of `path` from step `index` on; returns `false` if it stopped.
    private func forEachGroup(
        _ path: BoundPath, _ index: Int, _ groupStep: Int, _ key: UInt64, _ row: RowView, _ body: (UInt64, RowView?) -> Bool
    ) -> Bool {
        if index == groupStep { return body(key, row) }
        return forEachTarget(path.steps[index], key, row) { targetKey, targetRow in
            guard let targetRow else { return body(targetKey, nil) }
            return forEachGroup(path, index + 1, groupStep, targetKey, targetRow, body)
        }
    }

    /// Calls `body` with each object that `step`, a step followed further, leads to from the
    /// object `key` (row `row`): the target of a to-one link, the objects of a collection, the
    /// linking objects. A to-one link that is nil or names no object, and a nil element of a
    /// map, give a `nil` row; an element whose object is missing is skipped. Returns `false` if
    /// `body` stopped.
    private func forEachTarget(_ step: BoundPath.Step, _ key: UInt64, _ row: RowView, _ body: (UInt64, RowView?) -> Bool) -> Bool {
        switch step.kind {
        case .column(let kind):
            let read = row.column(step.column)
            switch kind {
            case .value:
                return true
            case .link:
                guard case .value(let bytes) = read, bytes.count == 8, let target = step.next else { return body(0, nil) }
                let targetKey = bytes.loadUnaligned(as: UInt64.self)
                return body(targetKey, fetch(target, targetKey))
            case .list, .set:
                let view = SequenceView(read)
                #if OBJDB_INTERNAL_CHECKS
                if InjectedFaults.active.contains(.listSkipsLastObject) {  // for the check's own test
                    for i in 0..<max(view.count - 1, 0) where !element(view.element(i), step, body) { return false }
                    return true
                }
                #endif
                for i in 0..<view.count where !element(view.element(i), step, body) { return false }
                return true
            case .map:
                let (values, one) = step.mapSequence(read)
                if let one { return one >= 0 ? element(values.element(one), step, body) : body(0, nil) }  // map['key']
                for i in 0..<values.count where !element(values.element(i), step, body) { return false }
                return true
            }
        case .backlinks:
            guard let origin = step.next else { return true }
            for originKey in linkingKeys(step, key) {
                guard let next = fetch(origin, originKey) else { continue }
                if !body(originKey, next) { return false }
            }
            return true
        case .anyBacklinks:
            return true  // only ever the last step (the binder sees to it)
        }
    }

    /// One element of a collection of objects, for ``forEachTarget(_:_:_:_:)``.
    private func element(_ read: ColumnRead, _ step: BoundPath.Step, _ body: (UInt64, RowView?) -> Bool) -> Bool {
        guard case .value(let bytes) = read, bytes.count == 8, let target = step.next else { return body(0, nil) }
        let targetKey = bytes.loadUnaligned(as: UInt64.self)
        guard let next = fetch(target, targetKey) else { return true }
        return body(targetKey, next)
    }

    /// The keys of the objects linking to the object `key` through a linking-objects step, once
    /// per link as Realm counts them; none (and the error noted) if the read fails.
    private func linkingKeys(_ step: BoundPath.Step, _ key: UInt64) -> [UInt64] {
        do {
            switch step.kind {
            case .backlinks(_, let originColumn):
                guard let origin = step.next else { return [] }
                return try origin.linkingKeys(to: key, through: originColumn, txn: txn)
            case .anyBacklinks:
                return try step.origins.flatMap { try $0.info.linkingKeys(to: key, through: $0.column, txn: txn) }
            case .column:
                return []
            }
        } catch {
            failure.note(error, path: txn.environment.path)
            return []
        }
    }

    /// The row of object `key` of `info`.
    func fetch(_ info: ClassInfo, _ key: UInt64) -> RowView? {
        let found: UnsafeRawBufferPointer?
        do {
            found = try txn.get(info.objectsTable, key: key)
        } catch {
            failure.note(error, path: txn.environment.path)
            return nil
        }
        guard let bytes = found else { return nil }
        if let row = RowView(bytes) { return row }
        failure.note(
            ObjDBError(
                .corruptFile, "The row of object key \(key) of '\(info.name)' is damaged: its \(bytes.count) bytes are not a row; run verify() for a full report",
                path: txn.environment.path),
            path: txn.environment.path)
        return .damaged
    }
}
