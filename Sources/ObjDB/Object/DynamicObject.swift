/// An object read without its model class, by class name: what migrations, tools such as the
/// `objdb` command, and code that does not know the classes use.
///
/// ```swift
/// for person in db.dynamicObjects("Person").where("age > 30") {
///     print(person.name as? String ?? "", person["age"] as? Int ?? 0)
/// }
/// ```
///
/// Properties are read by name (``ObjectBase/subscript(_:)``, ``ObjectBase/value(forKey:)``
/// or dynamic member lookup) as `Any?`: values as their Swift types (enums as raw values),
/// links as `DynamicObject`s, lists and sets as `[Any?]`, maps as `[String: Any?]`.
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// The property `name`, as `Any?`; an unknown name is a programmer error.
    public subscript(dynamicMember name: String) -> Any? {
        get { self[name] }
        set { self[name] = newValue }
    }

    /// The stored class this object belongs to.
    public var className: String { _objdbInfo?.name ?? Self.className }
}

extension Database {
    /// A link or collection column read without the model class: a link as a `DynamicObject`,
    /// a list or set as `[Any?]`, a map as `[String: Any?]` (objects as `DynamicObject`s).
    func dynamicValue(of object: ObjectBase, column: Int) -> Any? {
        guard let info = object._objdbInfo else { return nil }
        // The column is read from the row: write buffered collection edits back first.
        flushPendingWritesIfWriting()
        let property = info.stored.properties[column]
        let target = targetInfo(info, column: column)
        let elementType = property.property.elementSwiftType
        func element(_ read: ColumnRead) -> Any? {
            if let target {
                guard case .value(let bytes) = read, bytes.count == 8 else { return nil }
                return self.object(DynamicObject.self, target, key: bytes.loadUnaligned(as: UInt64.self))
            }
            return anyValue(of: read, elementType)
        }
        let read = object._objdbRead(column)
        switch info.columnKinds[column] {
        case .value: return anyValue(of: read, info.valueType(column: column))
        case .link: return element(read)
        case .list, .set:
            let view = SequenceView(read)
            return (0..<view.count).map { element(view.element($0)) }
        case .map:
            let map = MapView(read)
            var result: [String: Any?] = [:]
            for i in 0..<map.count {
                guard case .value(let key) = map.keys.element(i) else { continue }
                result[String(decoding: key, as: UTF8.self)] = element(map.values.element(i))
            }
            return result
        }
    }
}

extension Property {
    /// The Swift type of one element of a collection (the property's type for a single value).
    var elementSwiftType: any PersistableType.Type {
        Property(name: name, type: type, isOptional: isOptional, bitWidth: bitWidth).swiftType
    }
}
