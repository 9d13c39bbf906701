import Foundation
import NIOCore
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// A value as a statement parameter: in PostgreSQL's binary form for the scalars that have a
/// simple one (`bigint`, `boolean`, `real`, `double precision`, `text`, `uuid`), else as text
/// (``PGText``) that the statement casts to the column's type.
///
/// A scalar date travels as the text of its seconds since 2001 (Swift's shortest form) and the
/// statement adds 978 307 200 in `numeric`, exactly: what ``PGText`` would compute in Swift,
/// without its decimal arithmetic.
struct PGCell: Sendable {
    /// The parameter's type (`text` for the values that travel as text).
    var type: PostgresDataType
    /// The value's bytes; `nil` for NULL.
    var bytes: [UInt8]?

    /// The cell of `value` for a column of `kind`; throws ``PGText/Mismatch`` for a value the
    /// column does not take (a wrong type, U+0000 in text, nil in a non-optional column).
    static func of(_ value: SyncValue, _ kind: ColumnKind, property p: SyncPropertySchema) throws -> PGCell {
        guard case .scalar(let type, let isLink) = kind, let binaryType = binaryType(type) else {
            return PGCell(type: .text, bytes: try PGText.encode(value, kind, property: p).map { Array($0.utf8) })
        }
        var v = value
        if isLink && value != .null {
            guard case .link(let key) = value else { throw PGText.Mismatch(message: "'\(p.name)' needs a link, not \(value)") }
            v = key
        }
        switch (type, v) {
        case (_, .null):
            guard p.isOptional || isLink else { throw PGText.Mismatch(message: "'\(p.name)' is not optional") }
            return PGCell(type: binaryType, bytes: nil)
        case (.int, .int(let i)): return PGCell(type: binaryType, bytes: bigEndian(UInt64(bitPattern: i)))
        case (.bool, .bool(let b)): return PGCell(type: binaryType, bytes: [b ? 1 : 0])
        case (.double, .double(let d)): return PGCell(type: binaryType, bytes: bigEndian(d.bitPattern))
        case (.float, .float(let f)): return PGCell(type: binaryType, bytes: bigEndian(f.bitPattern))
        case (.uuid, .uuid(let u)): return PGCell(type: binaryType, bytes: withUnsafeBytes(of: u.uuid) { Array($0) })
        case (.date, .date(let d)):
            return PGCell(type: binaryType, bytes: Array(PGText.floatText(d.timeIntervalSinceReferenceDate, d.timeIntervalSinceReferenceDate.description).utf8))
        case (.string, .string(let s)):
            guard !s.utf8.contains(0) else { throw PGText.Mismatch(message: "'\(p.name)' holds U+0000, which PostgreSQL text cannot") }
            return PGCell(type: binaryType, bytes: Array(s.utf8))
        default:
            // The text path names the mismatch (or takes the value as it can).
            return PGCell(type: .text, bytes: try PGText.encode(value, kind, property: p).map { Array($0.utf8) })
        }
    }

    /// The binary parameter type of a scalar column type, if it travels in binary (a date's text).
    static func binaryType(_ type: PropertyType) -> PostgresDataType? {
        switch type {
        case .int: .int8
        case .bool: .bool
        case .double: .float8
        case .float: .float4
        case .string: .text
        case .uuid: .uuid
        case .date: .text
        default: nil
        }
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// The SQL array type of a parameter of cells of `type`.
    static func arraySQL(_ type: PostgresDataType) -> String {
        switch type {
        case .int8: "bigint[]"
        case .bool: "boolean[]"
        case .float8: "double precision[]"
        case .float4: "real[]"
        case .uuid: "uuid[]"
        default: "text[]"
        }
    }

    /// The SQL of parameter (or `UNNEST` column) `ref` as a value of a column of `kind`: cast
    /// to its type, a date's seconds since 2001 moved to 1970.
    static func sql(_ ref: String, _ kind: ColumnKind) -> String {
        if case .scalar(.date, _) = kind { return "(\(ref)::numeric + \(SyncValueJSON.secondsFrom1970To2001))" }
        return "\(ref)::\(kind.sqlType)"
    }
}

extension PGCell: PostgresDynamicTypeEncodable {
    var psqlType: PostgresDataType { type }
    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // The bytes alone: PostgresBindings writes the length (and -1 for a nil cell it is given
        // as an optional), so a NULL cell is appended with appendNull().
        if let bytes { buffer.writeBytes(bytes) }
    }
}

/// A one-dimensional array parameter of cells of one type, NULL elements included, in
/// PostgreSQL's binary array format (postgres-nio's own arrays cannot hold NULL): a column of
/// the rows of a multi-row insert, for `UNNEST`.
struct PGCellArray: PostgresDynamicTypeEncodable {
    /// The elements' type.
    var elementType: PostgresDataType
    /// The elements; `nil` is NULL.
    var elements: [[UInt8]?]

    var psqlType: PostgresDataType {
        switch elementType {
        case .int8: .int8Array
        case .bool: .boolArray
        case .float8: .float8Array
        case .float4: .float4Array
        case .uuid: .uuidArray
        default: .textArray
        }
    }
    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions (0 for an empty array), whether any element is NULL, the element type.
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains(where: { $0 == nil }) ? 1 : 0, as: Int32.self)
        buffer.writeInteger(elementType.rawValue, as: UInt32.self)
        guard !elements.isEmpty else { return }
        // The one dimension: its length and lower bound.
        buffer.writeInteger(Int32(elements.count), as: Int32.self)
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            buffer.writeInteger(Int32(element.count), as: Int32.self)
            buffer.writeBytes(element)
        }
    }
}

extension PostgresBindings {
    /// Appends a cell (NULL for a nil one).
    mutating func append(_ cell: PGCell) {
        if cell.bytes == nil { appendNull() } else { append(cell, context: .default) }
    }
}
