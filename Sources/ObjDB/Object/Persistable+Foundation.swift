import Foundation

extension String: NonOptionalPersistableType, PrimaryKeyType {
    /// `.string`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .string }
    /// The empty string.
    @_spi(Implementation) public static func _objdbDefaultValue() -> String { "" }
    /// The UTF-8 bytes.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        var copy = self
        copy.withUTF8 { bytes.append(bytes: UnsafeRawBufferPointer($0)) }
        return true
    }
    /// Invalid UTF-8 is repaired with U+FFFD rather than rejected.
    @inlinable
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> String? {
        bytes.map { String(decoding: $0, as: UTF8.self) }
    }
    /// A `String` or `Substring`.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> String? {
        switch value {
        case let v as String: v
        case let v as Substring: String(v)
        default: nil
        }
    }
}

extension Data: NonOptionalPersistableType {
    /// `.data`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .data }
    /// Empty data.
    @_spi(Implementation) public static func _objdbDefaultValue() -> Data { Data() }
    /// The bytes as they are.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        withUnsafeBytes { bytes.append(bytes: $0) }
        return true
    }
    /// The bytes as they are.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Data? { bytes.map { Data($0) } }
    /// `Data` or `[UInt8]`.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> Data? {
        switch value {
        case let v as Data: v
        case let v as [UInt8]: Data(v)
        default: nil
        }
    }
}

extension Date: NonOptionalPersistableType, IndexableType {
    /// `.date`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .date }
    /// `Date(timeIntervalSinceReferenceDate: 0)`.
    @_spi(Implementation) public static func _objdbDefaultValue() -> Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// Seconds since 2001-01-01 00:00 UTC as a `Double`: every `Date` round-trips exactly.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        ColumnCodec.appendDouble(timeIntervalSinceReferenceDate, to: &bytes)
        return true
    }
    /// Seconds since 2001-01-01 00:00 UTC.
    @inlinable
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Date? {
        bytes.flatMap(ColumnCodec.double).map(Date.init(timeIntervalSinceReferenceDate:))
    }
    /// Only a `Date` converts.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> Date? { value as? Date }
}

extension UUID: NonOptionalPersistableType, PrimaryKeyType {
    /// `.uuid`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .uuid }
    /// A new random UUID.
    @_spi(Implementation) public static func _objdbDefaultValue() -> UUID { UUID() }
    /// The 16 bytes in RFC 4122 order.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        withUnsafeBytes(of: uuid) { bytes.append(bytes: $0) }
        return true
    }
    /// 16 bytes.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> UUID? {
        guard let bytes, bytes.count == 16 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: bytes) }
        return UUID(uuid: value)
    }
    /// A `UUID`, or a `String` in UUID form.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> UUID? {
        switch value {
        case let v as UUID: v
        case let v as String: UUID(uuidString: v)
        default: nil
        }
    }
}

extension Decimal: NonOptionalPersistableType {
    /// `.decimal`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .decimal }
    /// Zero.
    @_spi(Implementation) public static func _objdbDefaultValue() -> Decimal { 0 }
    /// The canonical decimal string (`"NaN"` for NaN), which round-trips every `Decimal` exactly
    /// and reads the same on every platform.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        var text = isNaN ? "NaN" : description
        text.withUTF8 { bytes.append(bytes: UnsafeRawBufferPointer($0)) }
        return true
    }
    /// Parses the canonical string.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Decimal? {
        guard let bytes else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        if text == "NaN" { return .nan }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }
    /// A `Decimal`, integer, finite `Double` (NaN converts to NaN), or numeric `String`.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> Decimal? {
        switch value {
        case let v as Decimal: v
        case let v as Int: Decimal(v)
        case let v as any BinaryInteger: Int64(exactly: v).map { Decimal($0) }
        // Foundation traps on an infinite Double; there is no infinite Decimal.
        case let v as Double: v.isNaN ? .nan : v.isFinite ? Decimal(v) : nil
        case let v as String: Decimal(string: v, locale: Locale(identifier: "en_US_POSIX"))
        default: nil
        }
    }
}
