import Foundation

/// A typed query expression: what `where { }` gives you as `$0`.
///
/// ```swift
/// people.where { $0.age >= 18 && $0.name.starts(with: "A", options: .caseInsensitive) }
/// dogs.where { $0.owner.name == "Ann" }                 // through a to-one link
/// people.where { $0.dogs.name == "Rex" }               // ANY element of a list
/// people.where { $0.dogs.count > 2 }                   // collection size
/// people.where { $0.dogs.where { $0.age > 3 }.count >= 1 }   // subquery
/// people.where { $0.age.in([18, 21]) || $0.age.contains(30...40) }
/// ```
///
/// Property access is checked by the compiler; operators exist only for the types they apply to.
/// The expression builds the same predicate a string would (see `Docs/Queries.md`).
@dynamicMemberLookup
public struct Query<Value> {
    let node: QueryNode

    init(node: QueryNode) { self.node = node }

    init(path: [String]) { node = .keyPath(path) }

    /// The key path this expression reads; a programmer error for other expressions.
    var path: [String] {
        guard case .keyPath(let path) = node else {
            objdbFatal("where: a comparison or aggregate was used where a property is expected")
        }
        return path
    }

    var keyPath: QueryKeyPath { QueryKeyPath(components: path) }
}

extension Query {
    /// The property `keyPath` names, one step further along this expression's key path. On the
    /// root (the common case) the path is the one cached with the name: no array is built.
    func member<Root: ObjectBase, V>(_ keyPath: KeyPath<Root, V>) -> Query<V> {
        let step = KeyPathNames.requirePath(keyPath, "where")
        if path.isEmpty { return Query<V>(path: step) }
        var components = path
        components.append(step[0])
        return Query<V>(path: components)
    }
}

extension QueryPredicate {
    /// The operands of `lhs AND rhs` (`isAnd`) or `lhs OR rhs`, with operands of the same operator
    /// taken in: `a || b || c` becomes one `OR` of three, not nested pairs. A chain built with
    /// `reduce` would otherwise be as deep as it is long, and binding, evaluating and freeing it
    /// recurse once per level. Two plain operands cost one array, as before.
    static func operands(_ lhs: QueryPredicate, _ rhs: QueryPredicate, isAnd: Bool) -> [QueryPredicate] {
        var operands: [QueryPredicate]
        switch lhs {
        case .and(let inner) where isAnd: operands = inner
        case .or(let inner) where !isAnd: operands = inner
        default:
            operands = []
            operands.reserveCapacity(2)
            operands.append(lhs)
        }
        switch rhs {
        case .and(let inner) where isAnd: operands.append(contentsOf: inner)
        case .or(let inner) where !isAnd: operands.append(contentsOf: inner)
        default: operands.append(rhs)
        }
        return operands
    }
}

/// What a ``Query`` expression holds. Not `indirect`: ``QueryPredicate`` already boxes its
/// cases, and a box per `Query` value cost an allocation at every step of a `where { }`.
enum QueryNode {
    /// A property, through links and collections.
    case keyPath([String])
    /// A complete predicate.
    case predicate(QueryPredicate)
    /// An aggregate of a to-many key path.
    case aggregate([String], QueryAggregate, String?)
    /// The number of elements of a collection matching a predicate.
    case subqueryCount([String], QueryPredicate)
}

extension Query where Value == Bool {
    /// The predicate: a comparison, or a `Bool` property tested for `true`.
    func predicate() -> QueryPredicate {
        switch node {
        case .predicate(let predicate): return predicate
        case .keyPath(let path):
            return .comparison(QueryComparison(left: .keyPath(QueryKeyPath(components: path)), op: .equal, right: .value(.bool(true))))
        case .aggregate, .subqueryCount:
            objdbFatal("where: an aggregate is not a predicate; compare it with a value")
        }
    }

    /// Both hold.
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        Query(node: .predicate(.and(QueryPredicate.operands(lhs.predicate(), rhs.predicate(), isAnd: true))))
    }

    /// Either holds.
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        Query(node: .predicate(.or(QueryPredicate.operands(lhs.predicate(), rhs.predicate(), isAnd: false))))
    }

    /// It does not hold.
    public static prefix func ! (operand: Query<Bool>) -> Query<Bool> {
        Query(node: .predicate(.not(operand.predicate())))
    }
}

// MARK: Properties

extension Query where Value: ObjectBase {
    /// A property of the object.
    public subscript<V>(dynamicMember keyPath: KeyPath<Value, V>) -> Query<V> {
        member(keyPath)
    }
}

/// `Optional` of a model class, so queries can go through to-one links.
public protocol _QueryOptionalObject {
    /// The model class.
    associatedtype Wrapped: ObjectBase
}

extension Optional: _QueryOptionalObject where Wrapped: ObjectBase {}

extension Query where Value: _QueryOptionalObject {
    /// A property of the linked object; a `nil` link reads as `nil`.
    public subscript<V>(dynamicMember keyPath: KeyPath<Value.Wrapped, V>) -> Query<V> {
        member(keyPath)
    }
}

/// A collection a query can look into: `List`, `MutableSet`, `Map` (its values) and
/// `LinkingObjects`.
public protocol _QueryCollection {
    /// The element type.
    associatedtype _QueryElement
}

extension List: _QueryCollection {
    /// The element type.
    @_spi(Implementation) public typealias _QueryElement = Element
}

extension MutableSet: _QueryCollection {
    /// The element type.
    @_spi(Implementation) public typealias _QueryElement = Element
}

extension Map: _QueryCollection {
    /// The value type.
    @_spi(Implementation) public typealias _QueryElement = Value
}

extension LinkingObjects: _QueryCollection {
    /// The origin class.
    @_spi(Implementation) public typealias _QueryElement = Origin
}

extension Query where Value: _QueryCollection {
    /// The number of elements.
    public var count: Query<Int> { Query<Int>(node: .aggregate(path, .count, nil)) }

    /// The elements themselves (for collections of values): `$0.tags.elements == "x"` holds when
    /// some element equals `"x"`.
    public var elements: Query<Value._QueryElement> { Query<Value._QueryElement>(path: path) }
}

extension Query where Value: _QueryCollection, Value._QueryElement: ObjectBase {
    /// A property of the elements: comparisons hold when they hold for some element (ANY).
    public subscript<V>(dynamicMember keyPath: KeyPath<Value._QueryElement, V>) -> Query<V> {
        member(keyPath)
    }

    /// The elements that match a predicate; compare its `count`.
    ///
    /// ```swift
    /// people.where { $0.dogs.where { $0.age > 3 }.count >= 2 }
    /// ```
    public func `where`(_ build: (Query<Value._QueryElement>) -> Query<Bool>) -> QuerySubquery {
        QuerySubquery(path: path, predicate: build(Query<Value._QueryElement>(path: [])).predicate())
    }

    /// The smallest value of a property of the elements.
    public func min<V>(_ keyPath: KeyPath<Value._QueryElement, V>) -> Query<V> { aggregate(.min, keyPath) }

    /// The largest value of a property of the elements.
    public func max<V>(_ keyPath: KeyPath<Value._QueryElement, V>) -> Query<V> { aggregate(.max, keyPath) }

    /// The sum of a property of the elements.
    public func sum<V>(_ keyPath: KeyPath<Value._QueryElement, V>) -> Query<V> { aggregate(.sum, keyPath) }

    /// The average of a property of the elements (`nil` when there are none).
    public func avg<V>(_ keyPath: KeyPath<Value._QueryElement, V>) -> Query<Double?> { aggregate(.average, keyPath) }

    private func aggregate<V, R>(_ function: QueryAggregate, _ keyPath: KeyPath<Value._QueryElement, V>) -> Query<R> {
        Query<R>(node: .aggregate(path, function, KeyPathNames.require(keyPath, "where")))
    }
}

extension Query where Value: _QueryCollection, Value._QueryElement: AddableType {
    /// The smallest element.
    public var min: Query<Value._QueryElement> { Query<Value._QueryElement>(node: .aggregate(path, .min, nil)) }
    /// The largest element.
    public var max: Query<Value._QueryElement> { Query<Value._QueryElement>(node: .aggregate(path, .max, nil)) }
    /// The sum of the elements.
    public var sum: Query<Value._QueryElement> { Query<Value._QueryElement>(node: .aggregate(path, .sum, nil)) }
    /// The average of the elements (`nil` when there are none).
    public var avg: Query<Double?> { Query<Double?>(node: .aggregate(path, .average, nil)) }
}

/// The elements of a collection that match a predicate, inside a `where { }`.
public struct QuerySubquery {
    let path: [String]
    let predicate: QueryPredicate

    /// How many elements match.
    public var count: Query<Int> { Query<Int>(node: .subqueryCount(path, predicate)) }
}

// MARK: Comparisons

/// Numbers, dates, strings and identifiers: the types with `<` in queries.
public protocol _QueryComparable {
    /// The non-optional type: the type itself, or the type an `Optional` wraps.
    associatedtype _QueryBase: Comparable & PersistableType = Self
}

/// A number type `sum(of:)` and `average(of:)` add up, and that has `sum` and `avg` in queries:
/// every integer width, `Float`, `Double` and `Decimal`, and their optionals (Realm's name for it).
public protocol AddableType {}

extension Int: _QueryComparable, AddableType {}
extension Int8: _QueryComparable, AddableType {}
extension Int16: _QueryComparable, AddableType {}
extension Int32: _QueryComparable, AddableType {}
extension Int64: _QueryComparable, AddableType {}
extension Float: _QueryComparable, AddableType {}
extension Double: _QueryComparable, AddableType {}
extension Decimal: _QueryComparable, AddableType {}
extension Date: _QueryComparable {}
extension String: _QueryComparable {}
extension ObjectId: _QueryComparable {}
extension Optional: _QueryComparable where Wrapped: _QueryComparable {
    /// The wrapped type's base.
    @_spi(Implementation) public typealias _QueryBase = Wrapped._QueryBase
}
extension Optional: AddableType where Wrapped: AddableType {}

extension Query {
    /// `self op value` as a predicate.
    func compare<T: PersistableType>(_ op: QueryOperator, _ value: T, options: QueryStringOptions = []) -> Query<Bool> {
        compare(op, .value(QueryValue(value)), options: options)
    }

    /// `self op list` as a predicate.
    func compare<T: PersistableType>(_ op: QueryOperator, list values: [T]) -> Query<Bool> {
        // `Int`, the usual element of a long `IN` list, is converted for the whole list at once:
        // per element, this unspecialized code would cost a generic call (about 400 instructions).
        if T.self == Int.self {
            return compare(op, .list(unsafeBitCast(values, to: [Int].self).map { .int(Int64($0)) }))
        }
        var scratch = _ObjDBBytes()
        return compare(op, .list(values.map { QueryValue($0, scratch: &scratch) }))
    }

    /// `self op right` as a predicate.
    func compare(_ op: QueryOperator, _ right: QueryExpression, options: QueryStringOptions = []) -> Query<Bool> {
        Query<Bool>(node: .predicate(.comparison(QueryComparison(left: leftExpression, op: op, right: right, options: options))))
    }

    /// The left side of a comparison with this expression.
    var leftExpression: QueryExpression {
        switch node {
        case .keyPath(let path): .keyPath(QueryKeyPath(components: path))
        case .aggregate(let path, let aggregate, let property): .aggregate(QueryKeyPath(components: path), aggregate, property: property)
        case .subqueryCount(let path, let predicate): .subqueryCount(collection: QueryKeyPath(components: path), variable: "", predicate: predicate)
        case .predicate: objdbFatal("where: a predicate cannot be compared with a value")
        }
    }
}

extension Query where Value: PersistableType {
    /// Equal (for a collection path: some element is equal).
    public static func == (lhs: Query<Value>, rhs: Value) -> Query<Bool> { lhs.compare(.equal, rhs) }

    /// Not equal.
    public static func != (lhs: Query<Value>, rhs: Value) -> Query<Bool> { lhs.compare(.notEqual, rhs) }

    /// Equal to one of `values`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == Value {
        compare(.in, list: Array(values))
    }
}

extension Query where Value: _QueryComparable {
    /// Less than.
    public static func < (lhs: Query<Value>, rhs: Value._QueryBase) -> Query<Bool> { lhs.compare(.less, rhs) }
    /// Less than or equal.
    public static func <= (lhs: Query<Value>, rhs: Value._QueryBase) -> Query<Bool> { lhs.compare(.lessOrEqual, rhs) }
    /// Greater than.
    public static func > (lhs: Query<Value>, rhs: Value._QueryBase) -> Query<Bool> { lhs.compare(.greater, rhs) }
    /// Greater than or equal.
    public static func >= (lhs: Query<Value>, rhs: Value._QueryBase) -> Query<Bool> { lhs.compare(.greaterOrEqual, rhs) }

    /// Within a closed range (`BETWEEN`).
    public func contains(_ range: ClosedRange<Value._QueryBase>) -> Query<Bool> {
        compare(.between, list: [range.lowerBound, range.upperBound])
    }

    /// Within a half-open range (for a collection: some element is).
    public func contains(_ range: Range<Value._QueryBase>) -> Query<Bool> {
        compare(.betweenHalfOpen, list: [range.lowerBound, range.upperBound])
    }
}

extension Query where Value: _QueryComparable, Value._QueryBase == String {
    /// Contains `text` as a substring.
    public func contains(_ text: String, options: StringOptions = []) -> Query<Bool> {
        compare(.contains, text, options: options.queryOptions)
    }

    /// Starts with `prefix`.
    public func starts(with prefix: String, options: StringOptions = []) -> Query<Bool> {
        compare(.beginsWith, prefix, options: options.queryOptions)
    }

    /// Ends with `suffix`.
    public func ends(with suffix: String, options: StringOptions = []) -> Query<Bool> {
        compare(.endsWith, suffix, options: options.queryOptions)
    }

    /// Holds the words of a full-text search: the predicate string's `TEXT`, for a property
    /// declared `@Persisted(fullTextIndexed: true)`.
    ///
    /// ```swift
    /// notes.where { $0.body.fullTextMatches("swift -objc data*") }
    /// ```
    ///
    /// Every word must be in the text, `-word` must not be, and `word*` is a prefix; case and
    /// diacritics are ignored (see `Docs/FullTextSearch.md`).
    public func fullTextMatches(_ text: String) -> Query<Bool> {
        compare(.text, text)
    }

    /// Matches a pattern where `?` is one character and `*` any run of characters.
    public func like(_ pattern: String, caseInsensitive: Bool = false) -> Query<Bool> {
        compare(.like, pattern, options: caseInsensitive ? .caseInsensitive : [])
    }
}

/// How strings are compared in queries.
public struct StringOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8
    /// Creates options from raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Ignore case (`[c]`).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Ignore diacritics (`[d]`): `é` matches `e`.
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    var queryOptions: QueryStringOptions { QueryStringOptions(rawValue: rawValue & 3) }
}

extension QueryValue {
    /// The constant for a persistable value.
    init<T: PersistableType>(_ value: T) {
        if let direct = Self.direct(value) {
            self = direct
        } else {
            var scratch = _ObjDBBytes()
            self.init(encoding: value, scratch: &scratch)
        }
    }

    /// ``init(_:)`` with a reusable buffer, for the values of a list.
    init<T: PersistableType>(_ value: T, scratch: inout _ObjDBBytes) {
        self = Self.direct(value) ?? Self(encoding: value, scratch: &scratch)
    }

    /// The usual constants, taken as they are: one comparison of type metadata each, whether or
    /// not this code was specialized for `T` (called from the application's module, it often is
    /// not); `nil` for other types, which go through their column encoding.
    @inline(__always)
    private static func direct<T: PersistableType>(_ value: T) -> QueryValue? {
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .int(Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Date.self { return .date(unsafeBitCast(value, to: Date.self)) }
        return nil
    }

    /// The constant for `value`, through its column encoding written into `scratch`.
    private init<T: PersistableType>(encoding value: T, scratch: inout _ObjDBBytes) {
        if T._objdbObjectType != nil {
            guard let object = value._objdbAnyValue as? ObjectBase else {
                self = .null
                return
            }
            guard let info = object._objdbInfo else {
                objdbFatal("where: an unmanaged \(type(of: object)) cannot be compared with stored objects; add it first")
            }
            self = .object(className: info.name, key: object._objdbKey)
            return
        }
        if let mixed = value as? MixedValue {
            // A mixed constant keeps its case; a link names its object.
            guard let constant = QueryValue(mixed: mixed) else {
                objdbFatal("where: \(mixed) cannot be compared with stored values; compare with a managed object or a value that is not a list or a dictionary")
            }
            self = constant
            return
        }
        scratch.buffer.reset()
        guard value._objdbEncode(into: &scratch) else {
            self = .null
            return
        }
        let bytes = scratch.buffer.bytes
        switch T._objdbPropertyType {
        case .int: self = ColumnCodec.integer(bytes).map(QueryValue.int) ?? .null
        case .bool: self = ColumnCodec.bool(bytes).map(QueryValue.bool) ?? .null
        case .double: self = ColumnCodec.double(bytes).map(QueryValue.double) ?? .null
        case .float: self = ColumnCodec.float(bytes).map { .double(Double($0)) } ?? .null
        case .string: self = .string(String(decoding: bytes, as: UTF8.self))
        case .data: self = .data(Data(bytes))
        case .date: self = Date._objdbDecode(bytes).map(QueryValue.date) ?? .null
        case .uuid: self = UUID._objdbDecode(bytes).map(QueryValue.uuid) ?? .null
        case .decimal: self = Decimal._objdbDecode(bytes).map(QueryValue.decimal) ?? .null
        case .objectId: self = ObjectId._objdbDecode(bytes).map(QueryValue.objectId) ?? .null
        case .object, .linkingObjects: self = .null
        case .mixed: self = MixedValue._objdbDecode(bytes).flatMap(QueryValue.init(mixed:)) ?? .null
        }
    }
}
