extension Results {
    /// The identities of the matching objects, in result order, read without reading any object.
    ///
    /// ```swift
    /// let matches = notes.where { $0.body.fullTextMatches("swift data*") }
    /// let selected = Set(matches.identities)          // every match, no row read
    /// let first = db.object(ofType: Note.self, identifiedBy: matches.identities[0])   // one read
    /// ```
    ///
    /// Each identity is the `Identifiable.id` of its object (``ObjectIdentity``): what
    /// `ForEach` diffs and a list's selection holds. Getting the identities costs the query's
    /// evaluation — the matching object keys, from an index where one answers — where iterating
    /// the objects reads each object's row as well. The collection is a snapshot of the current
    /// version: it does not change with the data.
    ///
    /// - Complexity: O(1) once the keys of the current version are known; the first access
    ///   after a change evaluates the query (for every object of a class, a walk of the class's
    ///   keys).
    public var identities: ObjectIdentities {
        ObjectIdentities(path: database.path, className: query.className, keys: objectKeys())
    }
}

/// The identities of a ``Results``' objects at one version (``Results/identities``), in
/// result order.
public struct ObjectIdentities: RandomAccessCollection, Sendable {
    /// The file of the objects.
    private let path: String
    /// The class of the objects.
    private let className: String
    /// The object keys, in result order.
    private let keys: [UInt64]

    init(path: String, className: String, keys: [UInt64]) {
        self.path = path
        self.className = className
        self.keys = keys
    }

    /// `0`.
    public var startIndex: Int { 0 }

    /// The number of identities.
    public var endIndex: Int { keys.count }

    /// The identity at `position`.
    ///
    /// - Complexity: O(1).
    public subscript(position: Int) -> ObjectIdentity {
        objdbPrecondition(position >= 0 && position < keys.count, "ObjectIdentities index \(position) out of range 0..<\(keys.count)")
        return ObjectIdentity(path: path, className: className, key: keys[position])
    }
}
