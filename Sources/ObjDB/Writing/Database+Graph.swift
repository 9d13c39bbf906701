/// Adding an object together with every unmanaged object it links to.
extension Database {
    /// Adds `root` and every unmanaged object reachable from it through links and collections,
    /// each once (cycles and repeated references included).
    ///
    /// Three passes: find the unmanaged objects; give each an object key (a new one, or the key
    /// of the stored object with the same primary key when updating) and make it managed; then
    /// encode and write the rows, whose links can now name every key. The caller runs it in a
    /// savepoint, so a failure undoes all of it.
    ///
    /// - Returns: whether `root` was inserted (rather than updated).
    ///
    /// With an update policy, objects with a primary key are matched to stored objects (and to
    /// each other: two instances with one key are one object, with the values of the instance
    /// the walk reaches last);
    /// objects without one — embedded objects, say — are inserted. Only the root must have a
    /// primary key, unless `requirePrimaryKey` is off.
    func addGraph(_ root: ObjectBase, update: UpdatePolicy, requirePrimaryKey: Bool = true, _ context: WriteContext) throws -> Bool {
        try withSavepoint(context) { try addGraphUnchecked(root, update: update, requirePrimaryKey: requirePrimaryKey, context) }
    }

    private func addGraphUnchecked(_ root: ObjectBase, update: UpdatePolicy, requirePrimaryKey: Bool, _ context: WriteContext) throws -> Bool {
        let objects = try unmanagedObjects(reachableFrom: root, context)
        var plans: [(object: ObjectBase, info: ClassInfo, existing: Bool)] = []
        plans.reserveCapacity(objects.count)
        // Keys given to primary keys in this graph, so that repeats find the same object.
        var assigned: [UInt32: [[UInt8]: UInt64]] = [:]
        for (position, object) in objects.enumerated() {
            let info = try classInfoForWrite(type(of: object), context)
            let txn = try context.transaction.requireTxn()
            var existing: UInt64?
            var primaryKey: [UInt8]?
            if update != .error, let column = info.primaryKeyColumn {
                // Links are not encoded yet (their targets have no keys): only the key column counts.
                encodeUnmanaged(object, info, into: context.scratch.row, only: column)
                primaryKey = context.scratch.row.withColumns { read in
                    if case .value(let bytes) = read(column) { return [1] + Array(bytes) } else { return [0] }
                }
                existing = try primaryKey.flatMap { assigned[info.classID]?[$0] } ?? existingKey(info, context)
            } else if update != .error && position == 0 && requirePrimaryKey {
                throw missingPrimaryKey(info)
            }
            let key = try existing ?? classChanges(info, context, txn).allocateKey()
            if let primaryKey { assigned[info.classID, default: [:]][primaryKey] = key }
            attach(object, info, key: key, row: nil)
            context.undo.record(.attached(object))
            plans.append((object, info, existing != nil))
        }
        for plan in plans {
            encodeUnmanaged(plan.object, plan.info, into: context.scratch.row)
            if plan.existing {
                let row = try updateRow(plan.info, key: plan.object._objdbKey, policy: update, context)
                plan.object._objdbRow = row
                plan.object._objdbRowGeneration = generation
                continue
            }
            let inserted = try insertNew(plan.info, key: plan.object._objdbKey, context)
            plan.object._objdbInsertSerial = writes.serial
            plan.object._objdbRow = inserted.row
            plan.object._objdbRowGeneration = generation
        }
        // Rows written later moved earlier ones: let every object look its row up again.
        for plan in plans { plan.object._objdbRowGeneration = 0 }
        return !(plans.first?.existing ?? false)
    }

    /// The unmanaged objects reachable from `root` (itself first), each once. Managed objects
    /// end the walk; they must belong to this database, exist, and — if embedded — have no
    /// parent yet.
    private func unmanagedObjects(reachableFrom root: ObjectBase, _ context: WriteContext) throws -> [ObjectBase] {
        var found: [ObjectBase] = []
        var seen = Set<ObjectIdentifier>()
        var pending = [root]
        while let object = pending.popLast() {
            guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
            if object._objdbDatabase != nil {
                try checkLinkable(object, context)
                continue
            }
            found.append(object)
            let layout = try SchemaDiscovery.layout(of: type(of: object))
            for field in layout.fields {
                if field.valueType == MixedValue.self, let mixed = field.value(in: object) as? MixedValue {
                    pending.append(contentsOf: mixed.heldObjects.reversed())
                    continue
                }
                guard let relationship = field.relationship, !relationship.isLinkingObjects else { continue }
                pending.append(contentsOf: relationship.heldObjects(at: object._objdbBase + field.valueOffset).reversed())
            }
        }
        return found
    }

    /// Throws unless the managed `object` can be linked to from a new object.
    func checkLinkable(_ object: ObjectBase, _ context: WriteContext) throws {
        let name = object._objdbInfo?.name ?? "\(type(of: object))"
        guard object._objdbDatabase === self else {
            throw ObjDBError(
                .wrongDatabase, "A linked \(name) is managed by another Database instance; link a copy instead",
                className: name, path: path)
        }
        guard let info = object._objdbInfo, object._objdbCurrentRow() != nil else {
            throw ObjDBError(
                .objectInvalidated, "A linked \(name) was deleted or its insertion rolled back",
                className: name, key: "\(object._objdbKey)", path: path)
        }
        if info.stored.isEmbedded, try isOwned(info, key: object._objdbKey, context) {
            throw ObjDBError(
                .embeddedObjectOwned,
                "The embedded \(name) already belongs to another object; an embedded object has one parent. Link a new, unmanaged \(name) instead",
                className: name, key: "\(object._objdbKey)", path: path)
        }
    }
}
