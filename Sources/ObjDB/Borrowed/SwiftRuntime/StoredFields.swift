@_spi(Reflection) import Swift

/// BORROWED: the stored fields of a class and their byte offsets, from the standard library's
/// `_forEachField(of:options:)`, for schema discovery (``SchemaDiscovery``, Decisions/0019).
///
/// **What is borrowed, from which version.** An underscored standard-library function, public
/// under `@_spi(Reflection)` since Swift 5.2 and unchanged through the Swift 6 toolchains ObjDB
/// is built with: given a type and the option `.classType` (raw value 1, spelled so because the
/// static is a mutable global under Swift 6), it lists an instance's stored fields, superclass
/// fields first, each with its name, its byte offset from the start of the instance and its
/// type. It reads the type's reflection metadata, which the compiler emits for every class.
///
/// **How it is verified at run time.** With internal checks, at discovery: the `@Persisted`
/// fields found through it are compared with those `Mirror` finds on a prototype instance, in
/// name and order, and each plain field's value read at its offset with the value `Mirror` gives
/// (`SchemaDiscovery.checkAgainstMirror`). Without them, not at all.
///
/// **Fast path and slow twin.** `Mirror` is the twin under the internal checks, but no
/// replacement: it gives values, not offsets, and managed properties are reached by offset
/// (Decisions/0019). So there is no ``FastPaths`` switch; a toolchain whose `_forEachField`
/// changed would fail to build or fail the check in ObjDB's tests.
enum StoredFields {
    /// One stored field of a class.
    struct Field {
        /// The field's name as declared (a property wrapper's storage keeps its leading `_`).
        let name: String
        /// Its byte offset from the start of an instance.
        let offset: Int
        /// Its type.
        let type: Any.Type
    }

    /// The stored fields of instances of `type`, its superclasses' fields first.
    static func of(_ type: AnyClass) -> [Field] {
        var fields: [Field] = []
        // Option 1 is `.classType`: list the fields of a class instance, superclasses first.
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { name, offset, fieldType, _ in
            fields.append(Field(name: String(cString: name), offset: offset, type: fieldType))
            return true
        }
        return fields
    }
}
