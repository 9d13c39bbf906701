extension FrozenCollection where Live: _ObjDBQueryableCollection {
    /// Frozen results of the same version: `derive` applied to the elements as live results.
    private func frozen(_ derive: (Results<Live._QueryObject>) throws -> Results<Live._QueryObject>) rethrows -> FrozenResults<Live._QueryObject> {
        let query = try read { try derive($0._results).query }
        let home = query.map { FrozenHome.results(FrozenQuery($0)) } ?? .results(.nothing(of: Live._QueryObject.className))
        return FrozenResults(_FrozenSource(version: source.version, home: home, keys: FrozenKeys()))
    }

    /// The elements that match a predicate built with the ``Query`` DSL, frozen.
    public func `where`(_ build: (Query<Live._QueryObject>) -> Query<Bool>) -> FrozenResults<Live._QueryObject> { frozen { $0.where(build) } }

    /// The elements that match a predicate string (see ``Results/filter(_:_:)``), frozen.
    public func filter(_ predicateFormat: String, _ arguments: Any?...) throws -> FrozenResults<Live._QueryObject> {
        try frozen { try $0.filter(predicateFormat, argumentArray: arguments) }
    }

    /// The elements that match a predicate string with an array of arguments, frozen.
    public func filter(_ predicateFormat: String, argumentArray arguments: [Any?]) throws -> FrozenResults<Live._QueryObject> {
        try frozen { try $0.filter(predicateFormat, argumentArray: arguments) }
    }

    /// The elements sorted by a key path, frozen.
    public func sorted<V>(by keyPath: KeyPath<Live._QueryObject, V>, ascending: Bool = true) -> FrozenResults<Live._QueryObject> {
        frozen { $0.sorted(by: keyPath, ascending: ascending) }
    }

    /// The elements sorted by a key path string (`"owner.name"`), frozen.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> FrozenResults<Live._QueryObject> {
        frozen { $0.sorted(byKeyPath: keyPath, ascending: ascending) }
    }

    /// The elements sorted by several keys, most significant first, frozen.
    public func sorted<S: Sequence>(by descriptors: S) -> FrozenResults<Live._QueryObject> where S.Element == SortDescriptor {
        frozen { $0.sorted(by: descriptors) }
    }

    /// The first element of each distinct combination of the key paths' values, frozen.
    public func distinct<S: Sequence>(by keyPaths: S) -> FrozenResults<Live._QueryObject> where S.Element == String {
        frozen { $0.distinct(by: keyPaths) }
    }

    /// The position of `object` (a frozen or live object of the same file), if it is an element.
    public func index(of object: Live._QueryObject) -> Int? {
        guard let info = object._objdbInfo else { return nil }
        return read { live -> Int? in
            let results = live._results
            guard results.query.className == info.name else { return nil }
            return results.objectKeys().firstIndex(of: object._objdbKey)
        } ?? nil
    }

    /// The smallest value of a property among the elements.
    public func min<T: PersistableType & Comparable>(of keyPath: KeyPath<Live._QueryObject, T>) -> T? { read { $0._results.min(of: keyPath) } ?? nil }

    /// The largest value of a property among the elements.
    public func max<T: PersistableType & Comparable>(of keyPath: KeyPath<Live._QueryObject, T>) -> T? { read { $0._results.max(of: keyPath) } ?? nil }

    /// The smallest value of a named property among the elements.
    public func min<T: NonOptionalPersistableType>(ofProperty name: String) -> T? { read { $0._results.min(ofProperty: name) } ?? nil }

    /// The largest value of a named property among the elements.
    public func max<T: NonOptionalPersistableType>(ofProperty name: String) -> T? { read { $0._results.max(ofProperty: name) } ?? nil }

    /// The sum of a property over the elements.
    public func sum<T: PersistableType & AddableType>(of keyPath: KeyPath<Live._QueryObject, T>) -> T {
        read { $0._results.sum(of: keyPath) } ?? T._objdbDefaultValue()
    }

    /// The sum of a named property over the elements.
    public func sum<T: PersistableType & AddableType>(ofProperty name: String) -> T {
        read { $0._results.sum(ofProperty: name) } ?? T._objdbDefaultValue()
    }

    /// The average of a property over the elements; `nil` without elements.
    public func average<T: PersistableType & AddableType>(of keyPath: KeyPath<Live._QueryObject, T>) -> Double? {
        read { $0._results.average(of: keyPath) } ?? nil
    }

    /// The average of a named property over the elements; `nil` without elements.
    public func average(ofProperty name: String) -> Double? { read { $0._results.average(ofProperty: name) } ?? nil }
}

extension FrozenCollection where Live: _ObjDBMapCollection {
    /// The value for `key`, or `nil`.
    public subscript(key: Live.Key) -> Live.Value? { read { $0[key] } ?? nil }

    /// The keys, in order.
    public var keys: [Live.Key] { read { $0.keys } ?? [] }

    /// The values, in the order of their keys.
    public var values: [Live.Value] { read { $0.values } ?? [] }
}

/// Maps that frozen maps read by key: ``Map``. Its requirements are ObjDB's own.
public protocol _ObjDBMapCollection {
    /// The key type.
    associatedtype Key
    /// The value type.
    associatedtype Value
    /// The value for `key`, or `nil`.
    subscript(key: Key) -> Value? { get }
    /// The keys, in order.
    var keys: [Key] { get }
    /// The values, in the order of their keys.
    var values: [Value] { get }
}

extension Map: _ObjDBMapCollection {}

extension FrozenQuery {
    /// A query that selects nothing, for a collection that could not be read.
    static func nothing(of className: String) -> FrozenQuery {
        var query = ResultsQuery(className: className)
        query.filter = .constant(false)
        return FrozenQuery(query)
    }
}
