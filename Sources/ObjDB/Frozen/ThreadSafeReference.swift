/// Things a ``ThreadSafeReference`` can carry to another isolation domain: objects and
/// ``Results``. Its requirements are ObjDB's own.
public protocol ThreadConfined {
    /// What a reference to this thing records.
    @_spi(Implementation) var _objdbReferenceTarget: _ReferenceTarget { get }
    /// The thing `target` names, in `database`'s current version; `nil` if it no longer exists.
    @_spi(Implementation) static func _objdbResolve(_ target: _ReferenceTarget, in database: Database) -> Self?
}

/// What a ``ThreadSafeReference`` names: a stored object or a query, by class names and keys,
/// with the file and the version it was made at. Public (in the `Implementation` SPI, which apps
/// do not see) only so that the requirements of ``ThreadConfined`` can name it.
@_spi(Implementation) public struct _ReferenceTarget: Sendable {
    enum Kind: Sendable {
        case object(FrozenObject)
        case results(FrozenQuery)
    }

    let path: String
    let version: Int
    let kind: Kind

    init(_ database: Database, _ kind: Kind) {
        path = database.path
        version = database.frozenVersion?.id ?? database.currentVersion ?? database.environment.lastCommittedTransactionID()
        self.kind = kind
    }
}

/// A `Sendable` reference to a live object or ``Results``, for using it in another isolation
/// domain: make it where the object lives, send it, and ``Database/resolve(_:)`` it with the
/// database of the other domain.
///
/// ```swift
/// let ref = ThreadSafeReference(to: ann)
/// Task.detached {
///     let db = try Database(configuration: config)
///     guard let ann = db.resolve(ref) else { return }   // deleted meanwhile: nil
///     try db.write { ann.age += 1 }
/// }
/// ```
///
/// The resolving database first moves to the version the reference was made at if it reads an
/// older one, so it sees at least what the maker saw. The reference holds no version and no
/// reader slot: it names the object by class and key (a `Results` by its query), and may be
/// resolved any number of times, in any database on the same file. Making one for an unmanaged
/// object is a programmer error. For read-only use on several threads, a frozen collection
/// (`results.freeze()`) needs no resolving.
public struct ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    /// What the reference names.
    let target: _ReferenceTarget

    /// A reference to `value`, a managed object or a `Results`.
    public init(to value: Confined) {
        target = value._objdbReferenceTarget
    }
}

extension Database {
    /// The object or `Results` that `reference` names, in this database; `nil` if the object
    /// was deleted.
    ///
    /// ```swift
    /// let ann = db.resolve(ref)       // Person?
    /// ```
    ///
    /// A live database that reads an older version than the reference was made at refreshes
    /// first (outside a write transaction). Resolving a reference made on another file is a
    /// programmer error.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        let target = reference.target
        objdbPrecondition(
            target.path == path,
            "resolve(_:) was called on a Database of '\(path)' with a reference made on '\(target.path)'; resolve it with a Database of the same file")
        if !isFrozen, !isInWriteTransaction, (currentVersion ?? -1) < target.version { refresh() }
        return Confined._objdbResolve(target, in: self)
    }
}

extension ObjectBase: ThreadConfined {
    /// ObjDB's own: what a ``ThreadSafeReference`` to this records.
    @_spi(Implementation) public var _objdbReferenceTarget: _ReferenceTarget {
        guard let database = _objdbDatabase, _objdbInfo != nil else {
            objdbFatal("ThreadSafeReference(to:) was given an unmanaged \(Self.className); only objects stored in a database can be referenced. Add it first, or send a copy of its values")
        }
        _objdbSettleInsert()
        return _ReferenceTarget(database, .object(FrozenObject(self)))
    }

    /// ObjDB's own: what a ``ThreadSafeReference`` names, in `database`.
    @_spi(Implementation) public static func _objdbResolve(_ target: _ReferenceTarget, in database: Database) -> Self? {
        guard case .object(let object) = target.kind else { return nil }
        return database.resolveObject(self, className: object.className, key: object.key)
    }
}

extension Results: ThreadConfined {
    /// ObjDB's own: what a ``ThreadSafeReference`` to this records.
    @_spi(Implementation) public var _objdbReferenceTarget: _ReferenceTarget { _ReferenceTarget(database, .results(FrozenQuery(query))) }

    /// ObjDB's own: what a ``ThreadSafeReference`` names, in `database`.
    @_spi(Implementation) public static func _objdbResolve(_ target: _ReferenceTarget, in database: Database) -> Results? {
        guard case .results(let frozen) = target.kind, let query = frozen.query(in: database) else { return nil }
        return Results(database: database, query: query)
    }
}
