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

    /// The identity of the stored object `key` of class `className` in the file at `path`.
    init(path: String, className: String, key: UInt64) {
        kind = .stored(path: path, className: className, key: key)
    }

    /// The stored object this identity names (file, class and object key), `nil` for an
    /// unmanaged object's.
    var stored: (path: String, className: String, key: UInt64)? {
        guard case .stored(let path, let className, let key) = kind else { return nil }
        return (path, className, key)
    }

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
    /// A value of the wrong type for a property whose Swift type is `valueType` (when known: an
    /// enum's message then names the enum and lists its raw values).
    static func typeMismatch(
        _ value: Any?, expected property: Property, className: String, valueType: Any.Type? = nil
    ) -> ObjDBError {
        let unwrapped = unwrapAny(value)
        let got = unwrapped.map { "\(type(of: $0))" } ?? "nil"
        let name = "\(className).\(property.name)"
        let message: String
        if let enumType = valueType.flatMap(persistableEnumType) {
            let cases = enumType.objdbRawValueList.joined(separator: ", ")
            if let unwrapped, enumType.objdbIsRawValue(unwrapped) {
                message = "Property '\(name)' is \(enumType), and \(objdbSpelling(unwrapped)) is not the raw value of any of its cases; use one of: \(cases)"
            } else {
                message = "Property '\(name)' is \(enumType) (stored as its \(property.typeName) raw value) and cannot hold a value of type \(got); use one of: \(cases)"
            }
        } else {
            message = "Property '\(name)' is \(property.typeName) and cannot hold a value of type \(got)"
        }
        return ObjDBError(.typeMismatch, message, className: className, propertyName: property.name)
    }
}
