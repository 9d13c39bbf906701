import Foundation

/// Declares a stored property of an ``Object`` subclass.
///
/// ```swift
/// final class Person: Object {
///     @Persisted(primaryKey: true) var id: Int = 0
///     @Persisted(indexed: true) var name: String = ""
///     @Persisted var age: Int? = nil
///     var cache = 0          // not persisted
/// }
/// ```
///
/// Until the object is added to a database the value lives in the wrapper. Once the object is
/// managed, reads and writes go straight to the database's current transaction: reading a
/// fixed-size value costs no dictionary lookup and no allocation.
///
/// `primaryKey:` exists only for types that can be primary keys (integers, `String`, `UUID`,
/// ``ObjectId``, optional or not) and `indexed:` only for indexable types, so such mistakes are
/// compile-time errors.
@propertyWrapper
public struct Persisted<Value: PersistableType> {
    /// The row column once managed; negative while unmanaged.
    @usableFromInline var _column: Int
    /// The value while unmanaged (and the declared default).
    @usableFromInline var _value: Value
    /// ``PersistedOptions`` bits.
    @usableFromInline let _options: UInt8

    /// Not available: `@Persisted` only works on properties of `Object` subclasses.
    @available(*, unavailable, message: "@Persisted can only be used on properties of Object subclasses")
    public var wrappedValue: Value {
        get { objdbFatal("@Persisted can only be used on properties of Object subclasses") }
        // swiftlint:disable:next unused_setter_value
        set { objdbFatal("@Persisted can only be used on properties of Object subclasses") }
    }

    /// A property with a declared default: `@Persisted var name: String = ""`.
    @inlinable
    public init(wrappedValue: Value) {
        _column = -1
        _value = wrappedValue
        _options = 0
    }

    /// A property without a declared default: zero, empty, `nil`, or a new `ObjectId` or `UUID`.
    @inlinable
    public init() {
        self.init(wrappedValue: Value._objdbDefaultValue())
    }

    /// Reads and writes the property of the enclosing object.
    @inlinable
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        @inline(__always) get {
            let column = object[keyPath: storageKeyPath]._column
            if column < 0 { return object[keyPath: storageKeyPath]._value }
            return Value._objdbGet(object, column)
        }
        @inline(__always) set {
            let column = object[keyPath: storageKeyPath]._column
            if column < 0 {
                object[keyPath: storageKeyPath]._value = newValue
            } else {
                Value._objdbSet(object, column, newValue)
            }
        }
    }
}

extension Persisted where Value: PrimaryKeyType {
    /// A primary-key property with a default: `@Persisted(primaryKey: true) var id: Int = 0`.
    @inlinable
    public init(wrappedValue: Value, primaryKey: Bool) {
        _column = -1
        _value = wrappedValue
        _options = primaryKey ? PersistedOptions.primaryKey : 0
    }

    /// A primary-key property whose default is generated: `@Persisted(primaryKey: true) var id: ObjectId`.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(wrappedValue: Value._objdbDefaultValue(), primaryKey: primaryKey)
    }
}

extension Persisted where Value == Int {
    /// An integer primary key the database assigns: `@Persisted(primaryKey: true, autoIncrement: true) var id: Int = 0`.
    ///
    /// When an object is added (or created) with `id == 0`, the database gives it the next id of
    /// the class: 1, 2, 3, … An explicit nonzero id is kept and moves the counter past it. Ids are
    /// never reused, even after the object with the highest id is deleted; the counter lives in
    /// the file and is advanced inside the write transaction, so other instances and processes
    /// never hand out the same id. See `Docs/Models.md`.
    ///
    /// ```swift
    /// final class Note: Object {
    ///     @Persisted(primaryKey: true, autoIncrement: true) var id: Int = 0
    /// }
    /// ```
    @inlinable
    public init(wrappedValue: Int, primaryKey: Bool, autoIncrement: Bool) {
        _column = -1
        _value = wrappedValue
        _options = (primaryKey ? PersistedOptions.primaryKey : 0) | (autoIncrement ? PersistedOptions.autoIncrement : 0)
    }

    /// An auto-increment primary key with the default 0 (see ``init(wrappedValue:primaryKey:autoIncrement:)``).
    @inlinable
    public init(primaryKey: Bool, autoIncrement: Bool) {
        self.init(wrappedValue: 0, primaryKey: primaryKey, autoIncrement: autoIncrement)
    }
}

extension Persisted where Value == Date {
    /// A date the database maintains: `@Persisted(.createdAt) var created: Date`.
    ///
    /// ``PersistedTimestamp/createdAt`` is stamped when the object is added;
    /// ``PersistedTimestamp/modifiedAt`` when it is added and whenever a write transaction
    /// changes it. All objects written in one transaction get the same stamp. A value that
    /// differs from the declared default when the object is added is kept (so copies and
    /// imports keep their dates). See `Docs/Models.md`.
    ///
    /// ```swift
    /// final class Note: Object {
    ///     @Persisted(.createdAt) var created: Date
    ///     @Persisted(.modifiedAt) var modified: Date
    /// }
    /// ```
    @inlinable
    public init(wrappedValue: Date, _ timestamp: PersistedTimestamp) {
        _column = -1
        _value = wrappedValue
        _options = timestamp == .createdAt ? PersistedOptions.createdAt : PersistedOptions.modifiedAt
    }

    /// A maintained date with the type's default (2001-01-01 00:00 UTC) until it is stamped.
    @inlinable
    public init(_ timestamp: PersistedTimestamp) {
        self.init(wrappedValue: Date(timeIntervalSinceReferenceDate: 0), timestamp)   // Date's default value
    }
}

extension Persisted where Value: IndexableType {
    /// An indexed property: `@Persisted(indexed: true) var name: String = ""`.
    @inlinable
    public init(wrappedValue: Value, indexed: Bool) {
        _column = -1
        _value = wrappedValue
        _options = indexed ? PersistedOptions.indexed : 0
    }

    /// An indexed property with the type's default value.
    @inlinable
    public init(indexed: Bool) {
        self.init(wrappedValue: Value._objdbDefaultValue(), indexed: indexed)
    }

    /// A unique property: no two objects of the class hold the same non-nil value. Implies an
    /// index. Adding, creating or writing a taken value throws
    /// ``ObjDBError/Code/uniqueConstraintViolation`` (from `add`/`create`, or from the commit of
    /// the write transaction that set the property).
    ///
    /// ```swift
    /// @Persisted(unique: true) var email: String = ""
    /// ```
    @inlinable
    public init(wrappedValue: Value, unique: Bool) {
        _column = -1
        _value = wrappedValue
        _options = unique ? PersistedOptions.indexed | PersistedOptions.unique : 0
    }

    /// A unique property with the type's default value.
    @inlinable
    public init(unique: Bool) {
        self.init(wrappedValue: Value._objdbDefaultValue(), unique: unique)
    }
}

extension Persisted where Value: FullTextIndexable {
    /// A string with a full-text index: `@Persisted(fullTextIndexed: true) var body: String = ""`.
    ///
    /// The index holds each word of the text, folded for case and diacritics, so that
    /// `filter("body TEXT %@", "swift -objc data*")` and ``Results/search(_:in:)`` find objects
    /// by the words they contain without reading every row (see `Docs/FullTextSearch.md`).
    /// A full-text indexed property has no ordinary index.
    @inlinable
    public init(wrappedValue: Value, fullTextIndexed: Bool) {
        _column = -1
        _value = wrappedValue
        _options = fullTextIndexed ? PersistedOptions.fullText : 0
    }

    /// A full-text indexed string with the type's default value.
    @inlinable
    public init(fullTextIndexed: Bool) {
        self.init(wrappedValue: Value._objdbDefaultValue(), fullTextIndexed: fullTextIndexed)
    }
}

/// The types a full-text index can hold: `String` and `String?`.
public protocol FullTextIndexable: PersistableType {}
extension String: FullTextIndexable {}
extension Optional: FullTextIndexable where Wrapped == String {}

extension Persisted where Value: _LinkValue {
    /// A link, or a collection of links, with a delete rule:
    /// `@Persisted(deleteRule: .cascade) var lines: List<InvoiceLine>`.
    ///
    /// With ``DeleteRule/cascade``, deleting the object deletes the objects it links to through
    /// this property, unless something else still links to them.
    @inlinable
    public init(wrappedValue: Value, deleteRule: DeleteRule) {
        _column = -1
        _value = wrappedValue
        _options = deleteRule == .cascade ? PersistedOptions.cascade : 0
    }

    /// A link or collection of links with its default (`nil`, or empty) and a delete rule.
    @inlinable
    public init(deleteRule: DeleteRule) {
        self.init(wrappedValue: Value._objdbDefaultValue(), deleteRule: deleteRule)
    }
}

/// Bits of `Persisted._options`.
@usableFromInline
enum PersistedOptions {
    @usableFromInline static let primaryKey: UInt8 = 1
    @usableFromInline static let indexed: UInt8 = 2
    @usableFromInline static let cascade: UInt8 = 4
    @usableFromInline static let autoIncrement: UInt8 = 8
    @usableFromInline static let unique: UInt8 = 16
    @usableFromInline static let createdAt: UInt8 = 32
    @usableFromInline static let modifiedAt: UInt8 = 64
    @usableFromInline static let fullText: UInt8 = 128
}

/// What schema discovery needs to know about a `@Persisted` field, from its type alone.
///
/// Discovery finds each field's type with reflection and casts it to this protocol; after that,
/// values are reached by byte offset through the value type's own `PersistableType` methods, so no
/// key path, `Mirror` or wrapper metadata is needed per object.
protocol PersistedField {
    /// The type stored in the field.
    static var valueType: any PersistableType.Type { get }
    /// Offset of `_column` inside the wrapper.
    static var columnOffset: Int { get }
    /// Offset of `_value` inside the wrapper.
    static var valueOffset: Int { get }
    /// The option bits of the wrapper at `field`.
    static func options(at field: UnsafeRawPointer) -> UInt8
}

extension Persisted: PersistedField {
    static var valueType: any PersistableType.Type { Value.self }

    static var columnOffset: Int {
        guard let offset = MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>._column) else {
            objdbFatal("Internal error: Persisted<\(Value.self)>._column has no fixed offset (an ObjDB bug; please report it)")
        }
        return offset
    }

    static var valueOffset: Int {
        guard let offset = MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>._value) else {
            objdbFatal("Internal error: Persisted<\(Value.self)>._value has no fixed offset (an ObjDB bug; please report it)")
        }
        return offset
    }

    static func options(at field: UnsafeRawPointer) -> UInt8 {
        field.assumingMemoryBound(to: Persisted<Value>.self).pointee._options
    }
}
