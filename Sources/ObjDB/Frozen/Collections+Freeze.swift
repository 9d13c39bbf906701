extension _ObjDBFreezable {
    /// A frozen, `Sendable` snapshot of the collection at the version its database reads now
    /// (see ``FrozenCollection``); freezing a collection of a frozen object or database pins
    /// nothing new. O(1).
    ///
    /// ```swift
    /// let frozen = people.freeze()
    /// Task.detached { print(frozen.count) }     // compiles: frozen collections are Sendable
    /// ```
    ///
    /// Calling it inside a write transaction, or on a collection of an unmanaged object, is a
    /// programmer error.
    public func freeze() -> FrozenCollection<Self> { FrozenCollection(_objdbFrozenSource) }

    /// The collection in the live database of the calling context, at its newest version (see
    /// ``Database/thaw()``); `nil` if the object it belongs to was deleted since. A live
    /// collection returns itself.
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> Self? {
        guard isFrozen else { return self }
        return freeze().thaw(isolation: isolation)
    }
}

extension Database {
    /// The version this instance reads now, pinned (see ``freeze()``).
    func pinnedVersion() -> FrozenVersion {
        guard let version = freeze().frozenVersion else {
            objdbFatal("Internal error: freeze() gave a database without a version (an ObjDB bug; please report it)")
        }
        return version
    }
}

extension CollectionHome {
    /// The frozen source of the collection in this home.
    var frozenSource: _FrozenSource {
        _FrozenSource(version: database.pinnedVersion(), home: .collection(FrozenObject(parent), column: column), keys: nil)
    }

    /// The home `source` names, in `database`; `nil` if its object does not exist there.
    static func resolve(_ source: _FrozenSource, in database: Database) -> CollectionHome? {
        guard case .collection(let parent, let column) = source.home, let object = parent.resolve(in: database) else { return nil }
        return CollectionHome(parent: object, column: column)
    }

    /// The home of a collection to freeze; an unmanaged one is a programmer error.
    static func toFreeze(_ home: CollectionHome?, _ kind: String) -> CollectionHome {
        guard let home else {
            objdbFatal("freeze() was called on an unmanaged \(kind); only the \(kind) of a stored object can be frozen. Add the object to a database first")
        }
        return home
    }
}

extension Results: _ObjDBFreezable {
    /// Whether the results read a frozen database.
    public var isFrozen: Bool { database.isFrozen }

    /// ObjDB's own: the collection as a frozen source (see ``_ObjDBFreezable``).
    @_spi(Implementation) public var _objdbFrozenSource: _FrozenSource {
        let version = database.pinnedVersion()
        // Keys already evaluated for this version are the frozen results' keys.
        return _FrozenSource(version: version, home: .results(FrozenQuery(query)), keys: FrozenKeys(cachedKeys))
    }

    /// ObjDB's own: the collection a frozen source names, read in `database`.
    @_spi(Implementation) public static func _objdbLive(_ source: _FrozenSource, in database: Database) -> Results? {
        guard case .results(let frozen) = source.home, let query = frozen.query(in: database) else { return nil }
        let results = Results(database: database, query: query)
        if database.isFrozen, let keys = source.keys?.keys {
            results.cache.keys = keys
            results.cache.stamp = database.resultsStamp
        }
        return results
    }

    /// ObjDB's own: keeps what a read through a frozen view evaluated.
    @_spi(Implementation) public func _objdbDidRead(_ source: _FrozenSource) {
        guard let shared = source.keys, let keys = cachedKeys else { return }
        shared.keys = keys
    }
}

extension Results: _ObjDBQueryableCollection {
    /// The results themselves.
    @_spi(Implementation) public var _results: Results<Element> { self }
}

extension List: _ObjDBFreezable {
    /// Whether the list belongs to a frozen object.
    public var isFrozen: Bool { database?.isFrozen ?? false }

    /// ObjDB's own: the collection as a frozen source (see ``_ObjDBFreezable``).
    @_spi(Implementation) public var _objdbFrozenSource: _FrozenSource { CollectionHome.toFreeze(home, "List").frozenSource }

    /// ObjDB's own: the collection a frozen source names, read in `database`.
    @_spi(Implementation) public static func _objdbLive(_ source: _FrozenSource, in database: Database) -> List? {
        CollectionHome.resolve(source, in: database).map { List(home: $0) }
    }
}

extension MutableSet: _ObjDBFreezable {
    /// Whether the set belongs to a frozen object.
    public var isFrozen: Bool { database?.isFrozen ?? false }

    /// ObjDB's own: the collection as a frozen source (see ``_ObjDBFreezable``).
    @_spi(Implementation) public var _objdbFrozenSource: _FrozenSource { CollectionHome.toFreeze(home, "MutableSet").frozenSource }

    /// ObjDB's own: the collection a frozen source names, read in `database`.
    @_spi(Implementation) public static func _objdbLive(_ source: _FrozenSource, in database: Database) -> MutableSet? {
        CollectionHome.resolve(source, in: database).map { MutableSet(home: $0) }
    }
}

extension Map: _ObjDBFreezable {
    /// Whether the map belongs to a frozen object.
    public var isFrozen: Bool { database?.isFrozen ?? false }

    /// ObjDB's own: the collection as a frozen source (see ``_ObjDBFreezable``).
    @_spi(Implementation) public var _objdbFrozenSource: _FrozenSource { CollectionHome.toFreeze(backing.home, "Map").frozenSource }

    /// ObjDB's own: the collection a frozen source names, read in `database`.
    @_spi(Implementation) public static func _objdbLive(_ source: _FrozenSource, in database: Database) -> Map? {
        CollectionHome.resolve(source, in: database).map { Map(home: $0) }
    }
}

extension LinkingObjects: _ObjDBFreezable {
    /// Whether the linking objects belong to a frozen object.
    public var isFrozen: Bool { target?._objdbDatabase?.isFrozen ?? false }

    /// ObjDB's own: the collection as a frozen source (see ``_ObjDBFreezable``).
    @_spi(Implementation) public var _objdbFrozenSource: _FrozenSource {
        guard let target, let database = target._objdbDatabase else {
            objdbFatal("freeze() was called on the LinkingObjects of an unmanaged object; only those of a stored object can be frozen")
        }
        return _FrozenSource(
            version: database.pinnedVersion(), home: .linkingObjects(FrozenObject(target), property: propertyName), keys: nil)
    }

    /// ObjDB's own: the collection a frozen source names, read in `database`.
    @_spi(Implementation) public static func _objdbLive(_ source: _FrozenSource, in database: Database) -> LinkingObjects? {
        guard case .linkingObjects(let target, let property) = source.home, let object = target.resolve(in: database) else {
            return nil
        }
        return LinkingObjects(propertyName: property, target: object)
    }
}
