/// The superclass of model classes stored in a database.
///
/// ```swift
/// final class Person: Object {
///     @Persisted(primaryKey: true) var id: Int = 0
///     @Persisted var name: String = ""
/// }
///
/// let ann = Person()
/// ann.id = 1; ann.name = "Ann"          // unmanaged: values live in the object
/// try db.write { try db.add(ann) }      // managed: reads and writes go to the database
/// ```
///
/// Objects are not `Sendable`: a managed object belongs to the isolation domain of its
/// ``Database``, which the compiler checks.
open class Object: ObjectBase {}

/// The stable identity of a stored object, used as ``Object``'s `Identifiable.id`.
///
/// Two instances that read the same stored object have the same identity; an unmanaged object
/// is identified by its instance.
public struct ObjectIdentity: Hashable, Sendable {
    private enum Kind: Hashable, Sendable {
        case stored(path: String, className: String, key: UInt64)
        case unmanaged(ObjectIdentifier)
    }

    private let kind: Kind

    init(_ object: ObjectBase) {
        if let database = object._objdbDatabase, let info = object._objdbInfo {
            object._objdbSettleInsert()
            kind = .stored(path: database.path, className: info.name, key: object._objdbKey)
        } else {
            kind = .unmanaged(ObjectIdentifier(object))
        }
    }
}

extension Identifiable where Self: Object {
    /// The identity of the stored object (see ``ObjectIdentity``). A model's own `id` property
    /// shadows this one in direct use; `Identifiable` APIs such as SwiftUI's `ForEach` use this.
    public var id: ObjectIdentity { ObjectIdentity(self) }
}

extension Object: Identifiable {}

extension ObjDBError {
    /// A value of the wrong type for a property.
    static func typeMismatch(_ value: Any?, expected property: Property, className: String) -> ObjDBError {
        let got = unwrapAny(value).map { "\(type(of: $0))" } ?? "nil"
        return ObjDBError(
            .typeMismatch,
            "Property '\(className).\(property.name)' is \(property.typeName) and cannot hold a value of type \(got)",
            className: className, propertyName: property.name)
    }
}
