import Foundation

extension CollectionChange {
    /// The same change, reporting `collection` in place of the collection observed.
    func reporting<Other>(_ collection: Other) -> CollectionChange<Other> {
        switch self {
        case .initial: return .initial(collection)
        case .update(_, let deletions, let insertions, let modifications):
            return .update(collection, deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): return .error(error)
        }
    }
}

extension CollectionChange {
    /// The same change, reporting the collection `make` builds from the results of the change.
    func reporting<Element: ObjectBase, Other>(_ make: (Results<Element>) -> Other) -> CollectionChange<Other>
    where Collection == Results<Element> {
        switch self {
        case .initial(let results): return .initial(make(results))
        case .update(let results, let deletions, let insertions, let modifications):
            return .update(make(results), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): return .error(error)
        }
    }
}

extension Results {
    /// The home of the list or set these results read (results made by `_results`).
    var collectionHome: CollectionHome {
        guard case .collection(let home) = query.source else {
            objdbFatal("Internal error: results of a collection lost their collection (an ObjDB bug; please report it)")
        }
        return home
    }
}

extension List where Element: ObjectBase {
    /// Calls `block` with the list now (`.initial`) and whenever a commit changes it: elements
    /// appended, removed or moved (a move is a deletion plus an insertion), or — as
    /// modifications — a watched property of an element that stayed in place.
    ///
    /// ```swift
    /// let token = owner.dogs.observe { change in
    ///     if case .update(_, let deletions, let insertions, _) = change { … }
    /// }
    /// ```
    ///
    /// Indices are Realm's (see ``CollectionChange``); an object listed twice is two elements.
    /// Delivery is as for ``Results/observe(keyPaths:_:)``. When the object that holds the list
    /// is deleted, its elements are reported deleted.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (CollectionChange<List<Element>>) -> Void) -> NotificationToken {
        let list = self
        return _results.observe(keyPaths: keyPaths) { block($0.reporting(list)) }
    }

    /// ``observe(keyPaths:_:)`` delivering on `queue`, with the list of a database instance
    /// confined to that queue (see ``Results/observe(keyPaths:on:_:)``).
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue?, _ block: @escaping @Sendable (CollectionChange<List<Element>>) -> Void
    ) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        return _results.observe(keyPaths: keyPaths, on: queue) { block($0.reporting { List(home: $0.collectionHome) }) }
    }
}

extension MutableSet where Element: ObjectBase {
    /// Calls `block` with the set now (`.initial`) and whenever a commit changes it: elements
    /// inserted or removed, or — as modifications — a watched property of an element. Indices
    /// are positions in the set's order (insertion order); see ``List/observe(keyPaths:_:)``.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (CollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        let set = self
        return _results.observe(keyPaths: keyPaths) { block($0.reporting(set)) }
    }

    /// ``observe(keyPaths:_:)`` delivering on `queue`, with the set of a database instance
    /// confined to that queue (see ``Results/observe(keyPaths:on:_:)``).
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue?, _ block: @escaping @Sendable (CollectionChange<MutableSet<Element>>) -> Void
    ) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        return _results.observe(keyPaths: keyPaths, on: queue) { block($0.reporting { MutableSet(home: $0.collectionHome) }) }
    }
}

extension LinkingObjects {
    /// Calls `block` with the linking objects now (`.initial`) and whenever a commit changes
    /// them: objects that start or stop linking to the target, or — as modifications — a
    /// watched property of one that still links. In object-key order, so nothing moves.
    ///
    /// ```swift
    /// let token = rex.owners.observe(keyPaths: ["name"]) { change in … }
    /// ```
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (CollectionChange<LinkingObjects<Origin>>) -> Void) -> NotificationToken {
        let origins = self
        return _results.observe(keyPaths: keyPaths) { block($0.reporting(origins)) }
    }

    /// ``observe(keyPaths:_:)`` delivering on `queue`, with the linking objects of a database
    /// instance confined to that queue (see ``Results/observe(keyPaths:on:_:)``).
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue?,
        _ block: @escaping @Sendable (CollectionChange<LinkingObjects<Origin>>) -> Void
    ) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        let property = propertyName
        return _results.observe(keyPaths: keyPaths, on: queue) { change in
            block(change.reporting { results in
                guard case .linkingObjects(let target, _, _) = results.query.source else {
                    objdbFatal("Internal error: results of linking objects lost their object (an ObjDB bug; please report it)")
                }
                return LinkingObjects(propertyName: property, target: target)
            })
        }
    }
}
