import Foundation

/// Integers of every width persist as `.int` in the compact integer column form.
extension PersistableType where Self: FixedWidthInteger & SignedInteger {
    /// `.int`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .int }
    /// The type's width.
    @_spi(Implementation) public static var _objdbBitWidth: Int { Self.bitWidth }
    /// Zero.
    @_spi(Implementation) public static func _objdbDefaultValue() -> Self { 0 }
    /// The value itself.
    @_spi(Implementation) public var _objdbInteger: Int64? { Int64(self) }

    /// The shortest little-endian form.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        ColumnCodec.appendInteger(Int64(self), to: &bytes)
        return true
    }

    /// Values written for a wider type are clamped to this one's range.
    @inlinable @inline(__always)
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Self? {
        guard let bytes, let value = ColumnCodec.integer(bytes) else { return nil }
        return Self(clamping: value)
    }

    /// Any integer that fits, or a `Double` with an integral value that fits.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> Self? {
        switch value {
        case let v as Self: v
        case let v as any BinaryInteger: Self(exactly: v)
        case let v as Double: Self(exactly: v)
        case let v as Float: Self(exactly: v)
        default: nil
        }
    }
}

extension Int: NonOptionalPersistableType, PrimaryKeyType {}
extension Int8: NonOptionalPersistableType, PrimaryKeyType {}
extension Int16: NonOptionalPersistableType, PrimaryKeyType {}
extension Int32: NonOptionalPersistableType, PrimaryKeyType {}
extension Int64: NonOptionalPersistableType, PrimaryKeyType {}

extension Bool: NonOptionalPersistableType, IndexableType {
    /// `.bool`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .bool }
    /// `false`.
    @_spi(Implementation) public static func _objdbDefaultValue() -> Bool { false }
    /// One byte, 0 or 1.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        bytes.append(self ? 1 : 0)
        return true
    }
    /// Any non-zero byte is `true`.
    @inlinable
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Bool? { bytes.flatMap(ColumnCodec.bool) }
    /// Only a `Bool` converts.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> Bool? { value as? Bool }
}

extension Double: NonOptionalPersistableType {
    /// `.double`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .double }
    /// Zero.
    @_spi(Implementation) public static func _objdbDefaultValue() -> Double { 0 }
    /// 8 little-endian bytes.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        ColumnCodec.appendDouble(self, to: &bytes)
        return true
    }
    /// 8 little-endian bytes.
    @inlinable
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Double? { bytes.flatMap(ColumnCodec.double) }
    /// A `Double`, `Float` or integer.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> Double? {
        switch value {
        case let v as Double: v
        case let v as Float: Double(v)
        case let v as any BinaryInteger: Double(v)
        default: nil
        }
    }
}

extension Float: NonOptionalPersistableType {
    /// `.float`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .float }
    /// Zero.
    @_spi(Implementation) public static func _objdbDefaultValue() -> Float { 0 }
    /// 4 little-endian bytes.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        ColumnCodec.appendFloat(self, to: &bytes)
        return true
    }
    /// 4 little-endian bytes.
    @inlinable
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Float? { bytes.flatMap(ColumnCodec.float) }
    /// A `Float`, `Double` (rounded) or integer.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> Float? {
        switch value {
        case let v as Float: v
        case let v as Double: Float(v)
        case let v as any BinaryInteger: Float(v)
        default: nil
        }
    }
}
