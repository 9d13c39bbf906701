extension FrozenCollection where Live: _ObjDBQueryableCollection {
    /// The object class of the elements.
    public typealias _Object = Live._QueryObject

    /// Frozen results of the same version: `derive` applied to the elements as live results.
    private func frozen(_ derive: (Results<_Object>) throws -> Results<_Object>) rethrows -> FrozenResults<_Object> {
        let query = try read { try derive($0._results).query }
        let home = query.map { FrozenHome.results(FrozenQuery($0)) } ?? .results(.nothing(of: _Object.className))
        return FrozenResults(_FrozenSource(version: source.version, home: home, keys: FrozenKeys()))
    }

    /// The elements that match a predicate built with the ``Query`` DSL, frozen.
    public func `where`(_ build: (Query<_Object>) -> Query<Bool>) -> FrozenResults<_Object> { frozen { $0.where(build) } }

    /// The elements that match a predicate string (see ``Results/filter(_:_:)``), frozen.
    public func filter(_ predicateFormat: String, _ arguments: Any?...) throws -> FrozenResults<_Object> {
        try frozen { try $0.filter(predicateFormat, argumentArray: arguments) }
    }

    /// The elements that match a predicate string with an array of arguments, frozen.
    public func filter(_ predicateFormat: String, argumentArray arguments: [Any?]) throws -> FrozenResults<_Object> {
        try frozen { try $0.filter(predicateFormat, argumentArray: arguments) }
    }

    /// The elements sorted by a key path, frozen.
    public func sorted<V>(by keyPath: KeyPath<_Object, V>, ascending: Bool = true) -> FrozenResults<_Object> {
        frozen { $0.sorted(by: keyPath, ascending: ascending) }
    }

    /// The elements sorted by a key path string (`"owner.name"`), frozen.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> FrozenResults<_Object> {
        frozen { $0.sorted(byKeyPath: keyPath, ascending: ascending) }
    }

    /// The elements sorted by several keys, most significant first, frozen.
    public func sorted<S: Sequence>(by descriptors: S) -> FrozenResults<_Object> where S.Element == SortDescriptor {
        frozen { $0.sorted(by: descriptors) }
    }

    /// The first element of each distinct combination of the key paths' values, frozen.
    public func distinct<S: Sequence>(by keyPaths: S) -> FrozenResults<_Object> where S.Element == String {
        frozen { $0.distinct(by: keyPaths) }
    }

    /// The position of `object` (a frozen or live object of the same file), if it is an element.
    public func index(of object: _Object) -> Int? {
        guard let info = object._objdbInfo else { return nil }
        return read { live -> Int? in
            let results = live._results
            guard results.query.className == info.name else { return nil }
            return results.objectKeys().firstIndex(of: object._objdbKey)
        } ?? nil
    }

    /// The smallest value of a property among the elements.
    public func min<T: PersistableType & Comparable>(of keyPath: KeyPath<_Object, T>) -> T? { read { $0._results.min(of: keyPath) } ?? nil }

    /// The largest value of a property among the elements.
    public func max<T: PersistableType & Comparable>(of keyPath: KeyPath<_Object, T>) -> T? { read { $0._results.max(of: keyPath) } ?? nil }

    /// The smallest value of a named property among the elements.
    public func min<T: NonOptionalPersistableType>(ofProperty name: String) -> T? { read { $0._results.min(ofProperty: name) } ?? nil }

    /// The largest value of a named property among the elements.
    public func max<T: NonOptionalPersistableType>(ofProperty name: String) -> T? { read { $0._results.max(ofProperty: name) } ?? nil }

    /// The sum of a property over the elements.
    public func sum<T: PersistableType & AddableType>(of keyPath: KeyPath<_Object, T>) -> T {
        read { $0._results.sum(of: keyPath) } ?? T._objdbDefaultValue()
    }

    /// The sum of a named property over the elements.
    public func sum<T: PersistableType & AddableType>(ofProperty name: String) -> T {
        read { $0._results.sum(ofProperty: name) } ?? T._objdbDefaultValue()
    }

    /// The average of a property over the elements; `nil` without elements.
    public func average<T: PersistableType & AddableType>(of keyPath: KeyPath<_Object, T>) -> Double? {
        read { $0._results.average(of: keyPath) } ?? nil
    }

    /// The average of a named property over the elements; `nil` without elements.
    public func average(ofProperty name: String) -> Double? { read { $0._results.average(ofProperty: name) } ?? nil }
}

extension FrozenCollection where Live: _ObjDBMapCollection {
    /// The value for `key`, or `nil`.
    public subscript(key: Live._MapKey) -> Live._MapValue? { read { $0[key] } ?? nil }

    /// The keys, in order.
    public var keys: [Live._MapKey] { read { $0.keys } ?? [] }

    /// The values, in the order of their keys.
    public var values: [Live._MapValue] { read { $0.values } ?? [] }
}

/// Maps that frozen maps read by key: ``Map``. Its requirements are ObjDB's own.
public protocol _ObjDBMapCollection {
    associatedtype _MapKey
    associatedtype _MapValue
    /// The value for `key`, or `nil`.
    subscript(key: _MapKey) -> _MapValue? { get }
    /// The keys, in order.
    var keys: [_MapKey] { get }
    /// The values, in the order of their keys.
    var values: [_MapValue] { get }
}

extension Map: _ObjDBMapCollection {
    /// ObjDB's own: the key type, for ``_ObjDBMapCollection``.
    public typealias _MapKey = Key
    /// ObjDB's own: the value type, for ``_ObjDBMapCollection``.
    public typealias _MapValue = Value
}

extension FrozenQuery {
    /// A query that selects nothing, for a collection that could not be read.
    static func nothing(of className: String) -> FrozenQuery {
        var query = ResultsQuery(className: className)
        query.filter = .constant(false)
        return FrozenQuery(query)
    }
}
