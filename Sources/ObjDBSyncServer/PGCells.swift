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
        var element = ByteBuffer()
        let type = try appendElement(value, kind, property: p, to: &element)
        guard let length = element.readInteger(as: Int32.self), length >= 0 else { return PGCell(type: type, bytes: nil) }
        return PGCell(type: type, bytes: element.readBytes(length: Int(length)))
    }

    /// Appends the cell of `value` for a column of `kind` to `buffer` as an element of
    /// PostgreSQL's binary array format (its length, then its bytes; a length of -1 for NULL)
    /// and returns its type: the one home of the conversion, for ``of(_:_:property:)`` and the
    /// columns of a multi-row insert (``InsertColumns``). Throws ``PGText/Mismatch`` for a value
    /// the column does not take (a wrong type, U+0000 in text, nil in a non-optional column),
    /// `buffer` then unchanged.
    static func appendElement(
        _ value: SyncValue, _ kind: ColumnKind, property p: SyncPropertySchema, to buffer: inout ByteBuffer
    ) throws -> PostgresDataType {
        func text(_ value: SyncValue) throws -> PostgresDataType {
            write(try PGText.encode(value, kind, property: p), to: &buffer)
            return .text
        }
        guard case .scalar(let type, let isLink) = kind, let binaryType = binaryType(type) else { return try text(value) }
        var v = value
        if isLink && value != .null {
            guard case .link(let key) = value else { throw PGText.Mismatch(message: "'\(p.name)' needs a link, not \(value)") }
            v = key
        }
        switch (type, v) {
        case (_, .null):
            guard p.isOptional || isLink else { throw PGText.Mismatch(message: "'\(p.name)' is not optional") }
            buffer.writeInteger(-1, as: Int32.self)
        case (.int, .int(let i)):
            buffer.writeInteger(8, as: Int32.self)
            buffer.writeInteger(i, as: Int64.self)
        case (.bool, .bool(let b)):
            buffer.writeInteger(1, as: Int32.self)
            buffer.writeInteger(b ? 1 : 0, as: UInt8.self)
        case (.double, .double(let d)):
            buffer.writeInteger(8, as: Int32.self)
            buffer.writeInteger(d.bitPattern, as: UInt64.self)
        case (.float, .float(let f)):
            buffer.writeInteger(4, as: Int32.self)
            buffer.writeInteger(f.bitPattern, as: UInt32.self)
        case (.uuid, .uuid(let u)):
            buffer.writeInteger(16, as: Int32.self)
            withUnsafeBytes(of: u.uuid) { _ = buffer.writeBytes($0) }
        case (.date, .date(let d)):
            write(PGText.floatText(d.timeIntervalSinceReferenceDate, d.timeIntervalSinceReferenceDate.description), to: &buffer)
        case (.string, .string(let s)):
            guard !s.utf8.contains(0) else { throw PGText.Mismatch(message: "'\(p.name)' holds U+0000, which PostgreSQL text cannot") }
            write(s, to: &buffer)
        default:
            // The text path names the mismatch (or takes the value as it can).
            return try text(value)
        }
        return binaryType
    }

    /// Appends `text` (or NULL) as an array element: its UTF-8 length, then its bytes.
    private static func write(_ text: String?, to buffer: inout ByteBuffer) {
        guard let text else {
            buffer.writeInteger(-1, as: Int32.self)
            return
        }
        buffer.writeInteger(Int32(text.utf8.count), as: Int32.self)
        buffer.writeString(text)
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

    var psqlType: PostgresDataType { Self.arrayType(of: elementType) }
    var psqlFormat: PostgresFormat { .binary }

    /// The array type of elements of `elementType` (text for the cells that travel as text).
    static func arrayType(of elementType: PostgresDataType) -> PostgresDataType {
        switch elementType {
        case .int8: .int8Array
        case .bool: .boolArray
        case .float8: .float8Array
        case .float4: .float4Array
        case .uuid: .uuidArray
        default: .textArray
        }
    }

    /// Writes what precedes the elements of a one-dimensional array of `count` elements:
    /// dimensions (0 for an empty array), whether any element is NULL, the element type, then
    /// the one dimension's length and lower bound.
    static func writeHeader(elementType: PostgresDataType, count: Int, holdsNull: Bool, into buffer: inout ByteBuffer) {
        buffer.writeInteger(count == 0 ? 0 : 1, as: Int32.self)
        buffer.writeInteger(holdsNull ? 1 : 0, as: Int32.self)
        buffer.writeInteger(elementType.rawValue, as: UInt32.self)
        guard count > 0 else { return }
        buffer.writeInteger(Int32(count), as: Int32.self)
        buffer.writeInteger(1, as: Int32.self)
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        Self.writeHeader(elementType: elementType, count: elements.count, holdsNull: elements.contains(where: { $0 == nil }), into: &buffer)
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
