import Foundation

/// The fast path of downloads (``FastPaths/typedDownloads``): a ``SyncValue`` encoded straight
/// into the bytes of a value column whose Swift type is the value's own plain type (`String`,
/// `Int`, `Double`… or its `Optional`), without boxing it in `Any` and converting it as
/// ``ClassInfo/encode(_:column:)`` does. Any other column or value (an enum, an `Int32`, a
/// collection, a link) takes that slow twin, which gives the same bytes.
extension ClassInfo {
    /// The bytes of `value` for column `column` (`.some(nil)` for a null), or `nil` when the
    /// column is not one the fast path encodes.
    func typedSyncBytes(_ value: SyncValue, column: Int, into bytes: inout _ObjDBBytes) -> [UInt8]?? {
        guard columnKinds[column] == .value else { return nil }
        let type = ObjectIdentifier(valueType(column: column))
        bytes.buffer.reset()
        let wrote: Bool
        switch value {
        case .string(let v) where type == PlainTypes.string || type == PlainTypes.optionalString: wrote = v._objdbEncode(into: &bytes)
        case .int(let v) where type == PlainTypes.int || type == PlainTypes.optionalInt: wrote = Int(v)._objdbEncode(into: &bytes)
        case .double(let v) where type == PlainTypes.double || type == PlainTypes.optionalDouble: wrote = v._objdbEncode(into: &bytes)
        case .float(let v) where type == PlainTypes.float || type == PlainTypes.optionalFloat: wrote = v._objdbEncode(into: &bytes)
        case .bool(let v) where type == PlainTypes.bool || type == PlainTypes.optionalBool: wrote = v._objdbEncode(into: &bytes)
        case .date(let v) where type == PlainTypes.date || type == PlainTypes.optionalDate: wrote = v._objdbEncode(into: &bytes)
        case .uuid(let v) where type == PlainTypes.uuid || type == PlainTypes.optionalUUID: wrote = v._objdbEncode(into: &bytes)
        case .objectId(let v) where type == PlainTypes.objectId || type == PlainTypes.optionalObjectId: wrote = v._objdbEncode(into: &bytes)
        case .null where PlainTypes.optionals.contains(type): return .some(nil)
        default: return nil
        }
        var result: [UInt8]? = wrote ? bytes.array : nil
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            if FastPaths.broken.contains(.typedDownloads) { result?.append(0) }  // for the check's own test
            let slow = Result { try encode(value.anyValue, column: column) }
            internalCheck(
                (try? slow.get()).map { $0 == result } ?? false,
                "typedDownloads encoded \(value) for '\(name).\(stored.properties[column].name)' as \(String(describing: result)), not \(String(describing: slow))")
        }
        #endif
        return .some(result)
    }
}

/// The Swift types ``ClassInfo/typedSyncBytes(_:column:into:)`` encodes, by identity.
private enum PlainTypes {
    static let string = ObjectIdentifier(String.self), optionalString = ObjectIdentifier(String?.self)
    static let int = ObjectIdentifier(Int.self), optionalInt = ObjectIdentifier(Int?.self)
    static let double = ObjectIdentifier(Double.self), optionalDouble = ObjectIdentifier(Double?.self)
    static let float = ObjectIdentifier(Float.self), optionalFloat = ObjectIdentifier(Float?.self)
    static let bool = ObjectIdentifier(Bool.self), optionalBool = ObjectIdentifier(Bool?.self)
    static let date = ObjectIdentifier(Date.self), optionalDate = ObjectIdentifier(Date?.self)
    static let uuid = ObjectIdentifier(UUID.self), optionalUUID = ObjectIdentifier(UUID?.self)
    static let objectId = ObjectIdentifier(ObjectId.self), optionalObjectId = ObjectIdentifier(ObjectId?.self)
    static let optionals: Set<ObjectIdentifier> = [
        optionalString, optionalInt, optionalDouble, optionalFloat, optionalBool, optionalDate, optionalUUID, optionalObjectId,
    ]
}
