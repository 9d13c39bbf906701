import CObjDBRuntime

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

    /// Whether `object` is the only reference to its object: no other strong, weak or unowned
    /// reference. Only such an object may be re-pointed at another stored object, since nobody
    /// could see it change.
    ///
    /// On 64-bit platforms this reads the object's reference-count word once (see
    /// ``_objdbRefCountWordSaysOnlyReference(_:)``) instead of asking the runtime three times;
    /// under the internal checks every answer is compared with the runtime's.
    @inline(__always)
    static func _objdbIsOnlyReference(_ object: inout ObjectBase) -> Bool {
        #if _pointerBitWidth(_64)
        let only = _objdbRefCountWordSaysOnlyReference(&object)
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            // The word may say "not only" where the runtime says "only" (a side table kept after
            // its weak references went away), never the reverse.
            internalCheck(!only || _objdbRuntimeSaysOnlyReference(&object), "an object's reference-count word says it is unshared, the runtime disagrees")
        }
        #endif
        return only
        #else
        return _objdbRuntimeSaysOnlyReference(&object)
        #endif
    }

    /// ``_objdbIsOnlyReference(_:)`` as the runtime answers it: three calls per object.
    @inline(never)
    static func _objdbRuntimeSaysOnlyReference(_ object: inout ObjectBase) -> Bool {
        // A weak reference gives the object a side table (weak count above 1); an unowned one
        // raises the unowned count above the 1 that all strong references share.
        isKnownUniquelyReferenced(&object) && _getWeakRetainCount(object) <= 1 && _getUnownedRetainCount(object) <= 1
    }

    /// Whether the reference-count word of `object` says one strong reference, no unowned one
    /// beyond the 1 the strong references share, no side table (which weak references create),
    /// no deinitialization under way, and deallocation by Swift alone.
    ///
    /// The 64-bit layout of the word that follows an object's metadata pointer in the Swift
    /// runtimes ObjDB supports (`RefCount.h`): bit 0 "pure Swift deallocation", bits 1–31 the
    /// unowned count, bit 32 "deinitializing", bits 33–62 the strong count beyond the first, bit
    /// 63 "uses a side table". So a lone object's word is `3`. Anything else reads as shared, which
    /// only costs a new object: an immortal object, a side table (a weak reference, now or
    /// earlier, or a count too large for the word), and on Apple platforms an Objective-C weak
    /// reference or associated object, which clear bit 0. The internal checks compare every
    /// "unshared" with the runtime's answer (``_objdbRuntimeSaysOnlyReference(_:)``), and
    /// `ObjectReferenceCountTests` pins each kind of reference.
    ///
    /// `object` is `inout`, as for `isKnownUniquelyReferenced`: its address is read from the
    /// variable, so no copy of the reference (a retain, which would make it read as shared)
    /// exists while the word is read. The word is read with a relaxed atomic load, as the runtime
    /// reads it; other threads may only change it while they hold a reference, and then it is
    /// not `3` before they do.
    @inline(__always)
    static func _objdbRefCountWordSaysOnlyReference(_ object: inout ObjectBase) -> Bool {
        let address = withUnsafeMutablePointer(to: &object) { variable in
            UnsafeMutableRawPointer(variable).load(as: UnsafeRawPointer.self)
        }
        let word = (address + MemoryLayout<UInt>.size).assumingMemoryBound(to: Int.self)
        return objdb_atomic_load_relaxed(word) == 3
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
    /// The write transaction that inserted the object (``Database/writeSerial``) until the object
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
        guard let info = _objdbInfo, let row = database.fetchRow(info, key: _objdbKey) else {
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
