import Foundation

/// Collections of objects that can be queried like ``Results``: managed ``List``s and
/// ``MutableSet``s of objects, and ``LinkingObjects``.
///
/// ```swift
/// ann.dogs.where { $0.age > 3 }.sorted(by: \.name)
/// rex.owners.max(of: \.age)
/// ```
public protocol _ObjDBQueryableCollection {
    /// The model class of the elements.
    associatedtype _QueryObject: ObjectBase
    /// The elements as live results, in the collection's order.
    @_spi(Implementation) var _results: Results<_QueryObject> { get }
}

extension _ObjDBQueryableCollection {
    /// The elements that match a predicate built with the ``Query`` DSL, in the collection's order.
    public func `where`(_ build: (Query<_QueryObject>) -> Query<Bool>) -> Results<_QueryObject> { _results.where(build) }

    /// The elements that match a predicate string (see ``Results/filter(_:_:)``).
    public func filter(_ predicateFormat: String, _ arguments: Any?...) throws -> Results<_QueryObject> {
        try _results.filter(predicateFormat, argumentArray: arguments)
    }

    /// The elements sorted by a property.
    public func sorted<V>(by keyPath: KeyPath<_QueryObject, V>, ascending: Bool = true) -> Results<_QueryObject> {
        _results.sorted(by: keyPath, ascending: ascending)
    }

    /// The elements sorted by a property or a key path through to-one links.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<_QueryObject> {
        _results.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The elements sorted by several keys.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<_QueryObject> where S.Element == SortDescriptor {
        _results.sorted(by: descriptors)
    }

    /// The first element of each distinct combination of values.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<_QueryObject> where S.Element == String {
        _results.distinct(by: keyPaths)
    }

    /// The smallest value of a property of the elements.
    public func min<T: PersistableType & Comparable>(of keyPath: KeyPath<_QueryObject, T>) -> T? { _results.min(of: keyPath) }

    /// The smallest value of an optional property of the elements.
    public func min<T: NonOptionalPersistableType & Comparable>(of keyPath: KeyPath<_QueryObject, T?>) -> T? { _results.min(of: keyPath) }

    /// The largest value of a property of the elements.
    public func max<T: PersistableType & Comparable>(of keyPath: KeyPath<_QueryObject, T>) -> T? { _results.max(of: keyPath) }

    /// The largest value of an optional property of the elements.
    public func max<T: NonOptionalPersistableType & Comparable>(of keyPath: KeyPath<_QueryObject, T?>) -> T? { _results.max(of: keyPath) }

    /// The smallest value of a property named by a string.
    public func min<T: NonOptionalPersistableType>(ofProperty name: String) -> T? { _results.min(ofProperty: name) }

    /// The largest value of a property named by a string.
    public func max<T: NonOptionalPersistableType>(ofProperty name: String) -> T? { _results.max(ofProperty: name) }

    /// The sum of a numeric property of the elements.
    public func sum<T: PersistableType & AddableType>(of keyPath: KeyPath<_QueryObject, T>) -> T { _results.sum(of: keyPath) }

    /// The sum of an optional numeric property of the elements, ignoring `nil`.
    public func sum<T: NonOptionalPersistableType & AddableType>(of keyPath: KeyPath<_QueryObject, T?>) -> T { _results.sum(of: keyPath) }

    /// The sum of a numeric property named by a string.
    public func sum<T: PersistableType & AddableType>(ofProperty name: String) -> T { _results.sum(ofProperty: name) }

    /// The average of a numeric property of the elements, `nil` when there are none.
    public func average<T: PersistableType & AddableType>(of keyPath: KeyPath<_QueryObject, T>) -> Double? { _results.average(of: keyPath) }

    /// The average of a numeric property named by a string.
    public func average(ofProperty name: String) -> Double? { _results.average(ofProperty: name) }
}

extension CollectionHome {
    /// Results over this collection's objects; querying an unmanaged collection is a programmer error.
    func results<T: ObjectBase>(_ type: T.Type) -> Results<T> {
        Results(database: database, query: ResultsQuery(className: database.className(of: T.self), source: .collection(self)))
    }
}

extension List: _ObjDBQueryableCollection where Element: ObjectBase {
    /// The elements as live results, in list order (an element listed twice appears twice).
    @_spi(Implementation) public var _results: Results<Element> {
        guard let home else { objdbFatal("Only a managed List can be queried; add its object to a database first") }
        return home.results(Element.self)
    }
}

extension MutableSet: _ObjDBQueryableCollection where Element: ObjectBase {
    /// The elements as live results, in insertion order.
    @_spi(Implementation) public var _results: Results<Element> {
        guard let home else { objdbFatal("Only a managed MutableSet can be queried; add its object to a database first") }
        return home.results(Element.self)
    }
}

extension LinkingObjects: _ObjDBQueryableCollection {
    /// The linking objects as live results, in object-key order; empty for an unmanaged object.
    @_spi(Implementation) public var _results: Results<Origin> {
        guard let target, let database = target._objdbDatabase else {
            objdbFatal("Only the linking objects of a managed object can be queried")
        }
        let origin = database.className(of: Origin.self)
        return Results(
            database: database,
            query: ResultsQuery(className: origin, source: .linkingObjects(target: target, origin: origin, property: propertyName)))
    }
}

extension List where Element: AdditiveArithmetic & AddableType {
    /// The sum of the elements.
    public func sum() -> Element { reduce(.zero, +) }
}

extension List where Element: BinaryInteger {
    /// The average of the elements, `nil` when there are none.
    public func average() -> Double? { isEmpty ? nil : Double(reduce(0) { $0 + Double($1) }) / Double(count) }
}

extension List where Element: BinaryFloatingPoint {
    /// The average of the elements, `nil` when there are none.
    public func average() -> Double? { isEmpty ? nil : Double(reduce(0) { $0 + Double($1) }) / Double(count) }
}
