// Realm Swift's names for collection calls, beside the Swift ones, so that ported code compiles
// unchanged. Each is the Swift call of the same meaning.

extension List {
    /// Appends the elements of `objects` (Realm's name for ``append(contentsOf:)``).
    ///
    /// ```swift
    /// owner.dogs.append(objectsIn: [rex, fido])
    /// ```
    public func append<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        append(contentsOf: objects)
    }

    /// Replaces the element at `index` with `object` (Realm's name for `list[index] = object`).
    ///
    /// Replacing at an index outside the list is a precondition failure naming the index.
    public func replace(index: Int, object: Element) {
        self[index] = object
    }
}

extension Map {
    /// Removes the entry of `key` (Realm's name for ``removeValue(forKey:)``).
    ///
    /// ```swift
    /// owner.scores.removeObject(for: "math")
    /// ```
    public func removeObject(for key: Key) {
        removeValue(forKey: key)
    }
}
