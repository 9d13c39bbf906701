/// Key paths, followed one step at a time into arrays: the values a path reaches, the objects a
/// step leads to, and the groups that `ALL`, `NONE` and aggregates apply to (Docs/Queries.md,
/// "To-many key paths").
extension ReferenceInterpreter {
    /// Every value `path` reaches from `object`, in order: one for a to-one path (nil when a
    /// link on the way is nil), any number through collections and linking objects.
    func values(_ path: BoundPath, from object: StoredObject) -> [ReferenceValue] {
        values(path, from: 0, object)
    }

    /// Every value `path` reaches from `object`, which step `index` reads from. A nil link on the
    /// way gives one nil value; an element of a collection whose object is missing gives none.
    func values(_ path: BoundPath, from index: Int, _ object: StoredObject) -> [ReferenceValue] {
        let step = path.steps[index]
        guard index == path.steps.count - 1 else {
            var found: [ReferenceValue] = []
            for next in objects(step, from: object) {
                if let next { found += values(path, from: index + 1, next) } else { found.append(.null) }
            }
            return found
        }
        switch step.kind {
        case .column(let kind):
            let read = object.row.column(step.column)
            switch kind {
            case .value, .link: return nestedReads(read, step.nested).map { value($0, path) }
            case .list, .set: return elements(read).map { value($0, path) }
            case .map: return mapElements(read, step).flatMap { nestedReads($0, step.nested) }.map { value($0, path) }
            }
        case .backlinks, .anyBacklinks:
            return linkingKeys(step, to: object.key).map { .object($0) }
        }
    }

    /// One stored value at the end of `path`: its length for a path that measures strings or
    /// data (`name.length`, 0 for nil), else the value itself.
    private func value(_ read: ColumnRead, _ path: BoundPath) -> ReferenceValue {
        if path.measuresType {
            // The type of a mixed value that `MixedValue`'s own decoding takes; a list or
            // dictionary checked at its own level only, as subscripts look into them.
            guard case .value(let bytes) = read, let (tag, payload) = MixedFormat.split(bytes) else { return .integer(1) }
            if tag == .list || tag == .dictionary {
                return .integer(MixedFormat.isWellFormedCollection(tag, payload) ? 1 << Int64(tag.rawValue) : 1)
            }
            guard MixedValue._objdbDecode(bytes) != nil else { return .integer(1) }
            return .integer(1 << Int64(tag.rawValue))
        }
        let stored = ReferenceValue(read, path.storedType)
        // Data, a UUID or an ObjectId compared with a mixed path: as a mixed value holds it.
        if let tag = path.mixedCounterpartTag, case .bytes(let bytes) = stored { return .tagged(tag, bytes) }
        guard path.measuresLength else { return stored }
        if let (_, bytes) = stored.textual { return .integer(Int64(bytes.count)) }
        return .integer(0)
    }

    /// The objects `step` leads to from `object`: a link's target, a collection's objects, the
    /// linking objects. `nil` stands for a nil link (or a link or element naming no object, or a
    /// map without the key read); an element of a collection whose object is missing is left out.
    func objects(_ step: BoundPath.Step, from object: StoredObject) -> [StoredObject?] {
        switch step.kind {
        case .column(let kind):
            let read = object.row.column(step.column)
            switch kind {
            case .value:
                return []
            case .link:
                guard let target = step.next, case .object(let key) = ReferenceValue(read, .object) else { return [nil] }
                return [fetch(target, key)]
            case .list, .set:
                return elements(read).compactMap { element($0, step) }
            case .map:
                return mapElements(read, step).compactMap { element($0, step) }
            }
        case .backlinks:
            guard let origin = step.next else { return [] }
            let found: [StoredObject] = linkingKeys(step, to: object.key).compactMap { fetch(origin, $0) }
            return found
        case .anyBacklinks:
            return []  // only ever the last step
        }
    }

    /// One element of a collection of objects: `.some(nil)` for a nil element, `nil` (left out)
    /// for one whose object is missing.
    private func element(_ read: ColumnRead, _ step: BoundPath.Step) -> StoredObject?? {
        guard let target = step.next, case .object(let key) = ReferenceValue(read, .object) else { return .some(nil) }
        guard let object = fetch(target, key) else { return nil }
        return .some(object)
    }

    /// The elements of a list or set.
    private func elements(_ read: ColumnRead) -> [ColumnRead] {
        let view = SequenceView(read)
        return (0..<view.count).map { view.element($0) }
    }

    /// What `step` reads of a map: its values, its keys, or the value of one key (nil without it).
    private func mapElements(_ read: ColumnRead, _ step: BoundPath.Step) -> [ColumnRead] {
        let map = MapView(read)
        let keys = (0..<map.keys.count).map { map.keys.element($0) }
        let values = (0..<map.values.count).map { map.values.element($0) }
        switch step.mapPart {
        case .values:
            return values
        case .keys:
            return keys
        case .key(let wanted):
            for (index, key) in keys.enumerated() {
                if case .value(let bytes) = key, bytes.elementsEqual(wanted), index < values.count { return [values[index]] }
            }
            return [.null]
        }
    }

    // MARK: To-many paths

    /// Whether `path` can reach several values: it goes through a list, a set, a map (not one
    /// key of it) or linking objects, or a `[*]` into a mixed value.
    func reachesMany(_ path: BoundPath) -> Bool {
        path.steps.contains { step in
            if step.nested.contains(.every) { return true }
            switch step.kind {
            case .backlinks, .anyBacklinks: return true
            case .column(let kind): return kind == .list || kind == .set || (kind == .map && !readsOneKey(step))
            }
        }
    }

    /// The step at which the values that `ALL`, `NONE` and aggregates combine start (Realm's
    /// rule): a collection of values the path ends in, for each object holding it; else the
    /// object itself, over every value the path reaches; `nil` for a to-one path.
    func groupStart(_ path: BoundPath) -> Int? {
        let last = path.steps.count - 1
        if path.leafType != .object, case .column(let kind) = path.steps[last].kind,
            kind == .list || kind == .set || (kind == .map && !readsOneKey(path.steps[last]))
        {
            return last
        }
        return reachesMany(path) ? 0 : nil
    }

    /// The groups of `path` from `object`: the objects holding the collection that
    /// ``groupStart(_:)`` names, reached through the steps before it (`nil`: an empty group,
    /// behind a nil link). A path that reaches no such object has one empty group, as in current
    /// Realm; a to-one path has one, the object.
    func groups(_ path: BoundPath, _ object: StoredObject) -> [StoredObject?] {
        guard let start = groupStart(path) else { return [object] }
        var groups: [StoredObject?] = [object]
        for index in 0..<start {
            groups = groups.flatMap { group in group.map { objects(path.steps[index], from: $0) } ?? [nil] }
        }
        return groups.isEmpty ? [nil] : groups
    }

    /// The values of one group of `path` (none for an empty group).
    func groupValues(_ path: BoundPath, _ group: StoredObject?) -> [ReferenceValue] {
        guard let group, let start = groupStart(path) else { return [] }
        return values(path, from: start, group)
    }

    /// Whether `step` reads the value of one key of a map (`map['key']`).
    private func readsOneKey(_ step: BoundPath.Step) -> Bool {
        if case .key = step.mapPart { return true }
        return false
    }

    // MARK: Reads

    /// The object `key` of `info`, `nil` if there is none (or its read failed, noted).
    func fetch(_ info: ClassInfo, _ key: UInt64) -> StoredObject? {
        do {
            guard let bytes = try txn.get(info.objectsTable, key: key) else { return nil }
            return StoredObject(key: key, row: RowView(bytes) ?? .damaged)
        } catch {
            failure.note(error, path: txn.environment.path)
            return nil
        }
    }

    /// The keys of the objects linking to the object `key` through a linking-objects step, once
    /// per link; none if the read fails (noted).
    private func linkingKeys(_ step: BoundPath.Step, to key: UInt64) -> [UInt64] {
        do {
            switch step.kind {
            case .backlinks(_, let column):
                guard let origin = step.next else { return [] }
                return try origin.linkingKeys(to: key, through: column, txn: txn)
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
}
