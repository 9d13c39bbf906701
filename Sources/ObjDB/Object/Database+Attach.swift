/// Attaching objects: a model instance made a managed object of a database, or unmanaged again.
extension Database {
    /// Makes `object` a managed object of this database.
    func attach(_ object: ObjectBase, _ info: ClassInfo, key: UInt64, row: RowView?) {
        object._objdbDatabase = self
        object._objdbGeneration = UnsafePointer(generationCell)
        object._objdbInfo = info
        object._objdbKey = key
        object._objdbRow = row
        object._objdbRowGeneration = row == nil ? 0 : generation
        // The wrappers exist only in instances of the model class (not, say, in a DynamicObject).
        guard info.layout?.type == type(of: object) else { return }
        let base = object._objdbBase
        for (offset, column) in info.columnWords {
            (base + offset).storeBytes(of: column, as: Int.self)
        }
    }

    /// Drops the objects held by the unmanaged link, collection and mixed values of a managed
    /// object (see ``RelationshipValue/releaseUnmanaged(at:)``).
    func releaseUnmanagedRelationships(of object: ObjectBase) {
        guard let info = object._objdbInfo, info.hasRelationshipFields, info.layout?.type == type(of: object) else { return }
        let base = object._objdbBase
        info.encodePlan.withUnsafeBufferPointer { plan in
            for entry in plan {
                entry.relationship?.releaseUnmanaged(at: base + entry.valueOffset)
                // A mixed value's objects, as a link's (`a.value = .object(a)` is a cycle too).
                if entry.valueType == MixedValue.self {
                    let field = (base + entry.valueOffset).assumingMemoryBound(to: MixedValue.self)
                    if !field.pointee.heldObjects.isEmpty { field.pointee = .none }
                }
            }
        }
    }

    /// Turns a managed object back into an unmanaged one with the values it had before it was
    /// added (used when an `add` is undone).
    func detach(_ object: ObjectBase) {
        let info = object._objdbInfo
        object._objdbDatabase = nil
        object._objdbInfo = nil
        object._objdbKey = 0
        object._objdbInsertSerial = 0
        object._objdbRow = nil
        object._objdbRowGeneration = 0
        object._objdbGeneration = nil
        let base = object._objdbBase
        for (offset, _) in info?.columnWords ?? [] {
            (base + offset).storeBytes(of: -1, as: Int.self)
        }
    }

    /// Re-points a managed instance of `info`'s class at another stored object. Only for
    /// instances nobody else references (see ``ClassInfo/canRecycleObjects``).
    @inline(__always)
    func reattach(_ object: ObjectBase, key: UInt64, row: RowView) {
        object._objdbKey = key
        object._objdbRow = row
        object._objdbRowGeneration = generation
    }

    /// A new managed instance of a stored object.
    func materialize<T: ObjectBase>(_ type: T.Type, _ info: ClassInfo, key: UInt64, row: RowView?) -> T {
        let object = T()
        attach(object, info, key: key, row: row)
        return object
    }
}
