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
}

extension MutableSet where Element: ObjectBase {
    /// Calls `block` with the set now (`.initial`) and whenever a commit changes it: elements
    /// inserted or removed, or — as modifications — a watched property of an element. Indices
    /// are positions in the set's order (insertion order); see ``List/observe(keyPaths:_:)``.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (CollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        let set = self
        return _results.observe(keyPaths: keyPaths) { block($0.reporting(set)) }
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
}
