/// The common superclass of model classes. Subclass ``Object`` rather than this class.
///
/// It holds the state that makes an object *managed*: the database it belongs to, its class's
/// runtime information, its object key, and a cache of where its row is in the current snapshot.
/// An unmanaged object has none of these and keeps its values in its `@Persisted` wrappers.
open class ObjectBase {
    /// The owning database; `nil` while unmanaged.
    @usableFromInline @exclusivity(unchecked) final var _objdbDatabase: Database?
    /// The class's runtime information in that database. Not retained: the database keeps
    /// every `ClassInfo` it created alive for as long as it lives, and the object retains the
    /// database. Kept as `Unmanaged` so that ``_objdbHasInfo(_:)`` compares it without the
    /// retain and release that loading an `unowned(unsafe)` reference costs.
    @exclusivity(unchecked) final var _objdbInfoRef: Unmanaged<ClassInfo>?

    /// The class's runtime information in the owning database; `nil` while unmanaged.
    final var _objdbInfo: ClassInfo? {
        get { _objdbInfoRef?.takeUnretainedValue() }
        set { _objdbInfoRef = newValue.map { Unmanaged.passUnretained($0) } }
    }

    /// Whether the object belongs to `info`, compared by identity without retaining either.
    @inline(__always)
    final func _objdbHasInfo(_ info: Unmanaged<ClassInfo>) -> Bool {
        _objdbInfoRef?.toOpaque() == info.toOpaque()
    }
    /// The object key, unique per class and never reused.
    @exclusivity(unchecked) final var _objdbKey: UInt64 = 0
    /// The row, valid while `_objdbRowGeneration` equals the database's generation.
    @usableFromInline @exclusivity(unchecked) final var _objdbRow: RowView?
    /// The database generation `_objdbRow` was read at; 0 for none.
    @usableFromInline @exclusivity(unchecked) final var _objdbRowGeneration: UInt64 = 0
    /// The database's generation counter (``Database/generationCell``), valid while the object
    /// holds the database.
    @usableFromInline @exclusivity(unchecked) final var _objdbGeneration: UnsafePointer<UInt64>?
    /// The write transaction that inserted the object (``WriteHistory/serial``) until the object
    /// learns whether it committed; 0 after that, and for objects read from the file.
    @exclusivity(unchecked) final var _objdbInsertSerial: UInt64 = 0

    /// Creates an unmanaged object with the properties' declared defaults.
    public required init() {}

    /// The name of the class in database schemas: the Swift type name without its module.
    ///
    /// Override to keep a stored class name after renaming the Swift type, or to tell apart
    /// two model classes with the same name in different modules.
    open class var className: String { String(describing: self) }

    /// Groups of properties whose values together are unique among the objects of the class
    /// (compound unique keys), for example `[["firstName", "lastName"]]`: adding, creating or
    /// writing an object whose values in one group are all non-nil and equal to another
    /// object's throws ``ObjDBError/Code/uniqueConstraintViolation``. The properties are
    /// indexed. Empty by default.
    ///
    /// ```swift
    /// override class var uniqueKeys: [[String]] { [["firstName", "lastName"]] }
    /// ```
    open class var uniqueKeys: [[String]] { [] }

    /// The current row of a managed object, read again if the database moved to another
    /// version or wrote since it was cached. `nil` if the object no longer exists.
    @inline(__always)
    final func _objdbCurrentRow() -> RowView? {
        if _objdbRowGeneration == _objdbGeneration.unsafelyUnwrapped.pointee { return _objdbRow }
        return _objdbReloadRow()
    }

    @usableFromInline @inline(never)
    final func _objdbReloadRow(_ column: Int = -1) -> RowView? {
        guard let database = _objdbDatabase else {
            // Only a key-path probe reads columns without a database (see `KeyPathNames`).
            _objdbRecordProbe(column)
            return nil
        }
        _objdbSettleInsert()
        guard let info = _objdbInfo, let row = database.rows.fetch(info, key: _objdbKey) else {
            _objdbRow = nil
            _objdbRowGeneration = database.generation
            return nil
        }
        _objdbRow = row
        _objdbRowGeneration = database.generation
        return row
    }

    /// Gives up the key of an object whose inserting write transaction rolled back: no object
    /// has key 0, so it matches no row, even one another process later stores under its old key.
    /// Called before the key is used to find the object's row.
    @inline(__always)
    final func _objdbSettleInsert() {
        guard _objdbInsertSerial != 0, let database = _objdbDatabase else { return }
        switch database.outcome(ofWrite: _objdbInsertSerial) {
        case .pending: return
        case .committed: _objdbInsertSerial = 0
        case .rolledBack:
            _objdbInsertSerial = 0
            _objdbKey = 0
            _objdbRow = nil
            _objdbRowGeneration = 0
        }
    }

    /// Reads column `column` of a managed object. Reading a deleted object is a programmer
    /// error (check ``Object/isInvalidated``).
    @inlinable @inline(__always)
    final func _objdbRead(_ column: Int) -> ColumnRead {
        if _objdbRowGeneration == _objdbGeneration.unsafelyUnwrapped.pointee, let row = _objdbRow {
            return row.column(column)
        }
        guard let row = _objdbReloadRow(column) else {
            if _objdbDatabase == nil { return .absent }
            _objdbInvalidatedAccess()
        }
        return row.column(column)
    }

    /// For a key-path probe (an instance without a database whose wrappers name their field
    /// numbers): records that the field was read, in the otherwise unused key.
    final func _objdbRecordProbe(_ column: Int) {
        if column >= 0 { _objdbKey = UInt64(column) + 1 }
    }

    /// Writes column `column` of a managed object through its database.
    final func _objdbWrite(_ column: Int, _ encode: (inout _ObjDBBytes) -> Bool) {
        _objdbDatabase.unsafelyUnwrapped.setColumn(of: self, column: column, encode)
    }

    /// The declared default of the property in `column`, used when a stored value is missing or
    /// does not decode (a damaged row, or an enum raw value with no case).
    @usableFromInline
    final func _objdbFallback<T: PersistableType>(_ column: Int, as type: T.Type) -> T {
        (_objdbInfo?.defaultValue(column: column) as? T) ?? T._objdbDefaultValue()
    }

    @usableFromInline
    final func _objdbInvalidatedAccess() -> Never {
        let name = _objdbInfo?.name ?? String(describing: type(of: self))
        objdbFatal(
            "Object of class '\(name)' with key \(_objdbKey) has been deleted or invalidated; check isInvalidated before reading it")
    }

    /// Pointer to the object's memory, for reaching its `@Persisted` fields by offset.
    final var _objdbBase: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}
