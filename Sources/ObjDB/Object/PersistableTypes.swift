/// The documented names of the protocols ObjDB's value types conform to. ObjDB provides every
/// conformance; do not conform your own types (the protocols' underscored requirements are
/// ObjDB's internals). Generic signatures name these, so that `sum(of:)` reads
/// `sum<T: PersistableType & AddableType>(of: KeyPath<Element, T>) -> T`.

/// A type a `@Persisted` property can hold: `Bool`, every `Int` width, `Float`, `Double`,
/// `String`, `Data`, `Date`, `UUID`, `Decimal`, ``ObjectId``, every ``PersistableEnum``, a model
/// class (a to-one link), ``List``, ``MutableSet``, ``Map``, ``LinkingObjects``, and `Optional`
/// of the values and links.
public typealias PersistableType = _Persistable

/// A ``PersistableType`` that is not an `Optional`.
public typealias NonOptionalPersistableType = _PersistableNonOptional

/// A type a property can be indexed for (`@Persisted(indexed: true)`): every integer width,
/// `Bool`, `String`, `Date`, `UUID`, ``ObjectId``, enums of those, and their optionals.
public typealias IndexableType = _Indexable

/// A type a primary key can have (`@Persisted(primaryKey: true)`): every integer width,
/// `String`, `UUID`, ``ObjectId``, and their optionals.
public typealias PrimaryKeyType = _PrimaryKey

/// A type ``List``, ``MutableSet`` and ``Map`` can hold: the values and model classes of
/// ``PersistableType``, and their optionals.
public typealias CollectionElementType = _CollectionElement

/// A type ``Map`` keys can have: `String`.
public typealias MapKeyType = _MapKey
