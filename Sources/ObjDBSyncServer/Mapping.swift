import Foundation
import ObjDB
import ObjDBSyncProtocol

/// How one property is stored in its PostgreSQL column.
enum ColumnKind: Equatable {
    /// A single value of a scalar type (links: the target's primary key type).
    case scalar(PropertyType, isLink: Bool)
    /// A list or set of scalars or links: a typed array.
    case array(PropertyType, isLink: Bool)
    /// A map, an embedded object or a list of them: tagged JSON (Docs/SyncProtocol.md, "Values").
    case json

    /// The PostgreSQL type of the column.
    var sqlType: String {
        switch self {
        case .scalar(let t, _): Self.sqlType(t)
        case .array(let t, _): Self.sqlType(t) + "[]"
        case .json: "jsonb"
        }
    }

    /// The type as `information_schema.columns.udt_name` names it.
    var udtName: String {
        switch self {
        case .scalar(let t, _): Self.udtName(t)
        case .array(let t, _): "_" + Self.udtName(t)
        case .json: "jsonb"
        }
    }

    static func sqlType(_ t: PropertyType) -> String {
        switch t {
        case .int: "bigint"
        case .bool: "boolean"
        case .float: "real"
        case .double: "double precision"
        case .date: "numeric"
        case .string, .objectId: "text"
        case .data: "bytea"
        case .decimal: "numeric"
        case .uuid: "uuid"
        case .object, .linkingObjects: "text"
        // Mixed values are tagged JSON (``ColumnKind/json``).
        case .mixed: "jsonb"
        }
    }

    static func udtName(_ t: PropertyType) -> String {
        switch t {
        case .int: "int8"
        case .bool: "bool"
        case .float: "float4"
        case .double: "float8"
        case .date: "numeric"
        case .string, .objectId, .object, .linkingObjects: "text"
        case .data: "bytea"
        case .decimal: "numeric"
        case .uuid: "uuid"
        case .mixed: "jsonb"
        }
    }
}

/// A synced class resolved against the whole schema: each property's column kind.
struct ClassMapping: Sendable {
    let schema: SyncClassSchema
    let primaryKey: SyncPropertySchema
    /// The stored properties with their column kinds, in schema order.
    let columns: [(property: SyncPropertySchema, kind: ColumnKind)]

    subscript(name: String) -> (property: SyncPropertySchema, kind: ColumnKind)? {
        columnIndex[name].map { columns[$0] }
    }

    /// The position in ``columns`` of each property, by name.
    let columnIndex: [String: Int]

    /// Whether the class has every property `op` writes or appends to.
    func holdsEvery(_ op: SyncOperation) -> Bool {
        op.values.keys.allSatisfy { columnIndex[$0] != nil } && op.listAppends.keys.allSatisfy { columnIndex[$0] != nil }
    }

    /// Resolves a (non-embedded) class; throws a message naming class and property.
    init(_ schema: SyncClassSchema, in all: [String: SyncClassSchema]) throws {
        guard let pk = schema.primaryKey else {
            throw ObjDBError(.invalidSchema, "Synced class '\(schema.name)' has no primary key", className: schema.name, key: SyncErrorCode.schemaMismatch)
        }
        guard pk.collection == nil, [.string, .uuid, .objectId].contains(pk.type) else {
            throw ObjDBError(
                .invalidSchema,
                "Synced class '\(schema.name)' needs a String, UUID or ObjectId primary key, not \(pk.type) ('\(pk.name)')",
                className: schema.name, propertyName: pk.name, key: SyncErrorCode.schemaMismatch)
        }
        self.schema = schema
        self.primaryKey = pk
        self.columns = try schema.properties.filter { $0.type != .linkingObjects }.map { p in (p, try Self.kind(of: p, in: schema.name, all: all)) }
        columnIndex = Dictionary(columns.enumerated().map { ($1.property.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func kind(of p: SyncPropertySchema, in className: String, all: [String: SyncClassSchema]) throws -> ColumnKind {
        // Mixed values keep their type in tagged JSON, as maps and embedded objects do.
        if p.collection == .map || p.type == .mixed { return .json }
        var elementType = p.type
        var isLink = false
        if p.type == .object {
            guard let targetName = p.objectClassName, let target = all[targetName] else {
                throw ObjDBError(
                    .invalidSchema, "Property '\(className).\(p.name)' links to class '\(p.objectClassName ?? "?")', which the schema lacks",
                    className: className, propertyName: p.name, key: SyncErrorCode.schemaMismatch)
            }
            if target.isEmbedded { return .json }
            guard let targetPK = target.primaryKey, [.string, .uuid, .objectId].contains(targetPK.type) else {
                throw ObjDBError(
                    .invalidSchema, "Property '\(className).\(p.name)' links to '\(targetName)', which has no String, UUID or ObjectId primary key",
                    className: className, propertyName: p.name, key: SyncErrorCode.schemaMismatch)
            }
            elementType = targetPK.type
            isLink = true
        }
        return p.collection == nil ? .scalar(elementType, isLink: isLink) : .array(elementType, isLink: isLink)
    }
}

/// Converting values to and from PostgreSQL text. Values are always bound as text parameters
/// with a cast to the column's type (`$2::double precision`): PostgreSQL reads and prints
/// floating-point numbers as their shortest exact decimal, so every bit survives, and
/// PostgreSQL's own input functions check what they receive.
enum PGText {
    struct Mismatch: Error { let message: String }

    /// The text of a value for a column, or `nil` for SQL NULL.
    static func encode(_ value: SyncValue, _ kind: ColumnKind, property p: SyncPropertySchema) throws -> String? {
        switch kind {
        case .json:
            if value == .null {
                guard p.isOptional || p.collection != nil else { throw Mismatch(message: "'\(p.name)' is not optional") }
                return nil
            }
            try checkJSON(value, p)
            return SyncValueJSON.encode(value).text
        case .scalar(let t, let isLink):
            if value == .null {
                guard p.isOptional || isLink else { throw Mismatch(message: "'\(p.name)' is not optional") }
                return nil
            }
            return try scalar(value, t, isLink: isLink, p)
        case .array(let t, let isLink):
            if value == .null { return nil }
            guard case .list(let items) = value else { throw Mismatch(message: "'\(p.name)' needs a list, not \(value)") }
            let elements = try items.map { item -> String in
                if item == .null {
                    guard p.isOptional else { throw Mismatch(message: "'\(p.name)' holds no nil elements") }
                    return "NULL"
                }
                return quoteArrayElement(try scalar(item, t, isLink: isLink, p))
            }
            return "{" + elements.joined(separator: ",") + "}"
        }
    }

    static func checkJSON(_ value: SyncValue, _ p: SyncPropertySchema) throws {
        if p.type == .mixed {
            // A mixed value holds values, lists and maps of them; links do not sync.
            func holdsLink(_ v: SyncValue) -> Bool {
                switch v {
                case .link, .object: true
                case .list(let items): items.contains(where: holdsLink)
                case .map(let entries): entries.values.contains(where: holdsLink)
                default: false
                }
            }
            switch (p.collection, value) {
            case (nil, _), (.map?, .map), (.list?, .list), (.set?, .list):
                if holdsLink(value) { throw Mismatch(message: "'\(p.name)' is mixed and holds a link, which sync does not carry") }
                return
            default: throw Mismatch(message: "'\(p.name)' cannot hold \(value)")
            }
        }
        switch (p.collection, value) {
        case (.map?, .map), (.list?, .list), (.set?, .list), (nil, .object): return
        default: throw Mismatch(message: "'\(p.name)' cannot hold \(value)")
        }
    }

    static func scalar(_ value: SyncValue, _ t: PropertyType, isLink: Bool, _ p: SyncPropertySchema) throws -> String {
        var v = value
        if isLink {
            guard case .link(let pk) = value else { throw Mismatch(message: "'\(p.name)' needs a link, not \(value)") }
            v = pk
        }
        switch (t, v) {
        case (.int, .int(let i)): return String(i)
        case (.bool, .bool(let b)): return b ? "t" : "f"
        case (.float, .float(let f)): return floatText(Double(f), f.description)
        case (.double, .double(let d)): return floatText(d, d.description)
        case (.date, .date(let d)): return SyncValueJSON.exactSecondsSince1970(d)
        case (.string, .string(let s)):
            guard !s.unicodeScalars.contains("\u{0}") else { throw Mismatch(message: "'\(p.name)' holds U+0000, which PostgreSQL text cannot") }
            return s
        case (.objectId, .objectId(let o)): return o.description
        case (.data, .data(let d)): return "\\x" + d.map { String(format: "%02x", $0) }.joined()
        case (.decimal, .decimal(let d)): return d.description
        case (.uuid, .uuid(let u)): return u.uuidString.lowercased()
        default: throw Mismatch(message: "'\(p.name)' is \(p.type)\(isLink ? " link" : ""), not \(value)")
        }
    }

    static func floatText(_ d: Double, _ shortest: String) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return shortest
    }

    static func quoteArrayElement(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    // MARK: Reading

    /// The value of a column's text (`nil`: SQL NULL).
    static func decode(_ text: String?, _ kind: ColumnKind, property p: SyncPropertySchema) throws -> SyncValue {
        guard let text else { return .null }
        switch kind {
        case .json: return try SyncValueJSON.decode(SyncJSON.parse(text))
        case .scalar(let t, let isLink): return try scalarValue(text, t, isLink: isLink)
        case .array(let t, let isLink):
            return .list(try parseArray(text).map { element in
                guard let element else { return .null }
                return try scalarValue(element, t, isLink: isLink)
            })
        }
    }

    static func scalarValue(_ text: String, _ t: PropertyType, isLink: Bool) throws -> SyncValue {
        let v = try scalarValue(text, t)
        return isLink ? .link(v) : v
    }

    static func scalarValue(_ text: String, _ t: PropertyType) throws -> SyncValue {
        func bad() -> ObjDBError { ObjDBError(.typeMismatch, "PostgreSQL value '\(text.prefix(60))' is not a \(t)") }
        switch t {
        case .int: guard let i = Int64(text) else { throw bad() }; return .int(i)
        case .bool: return .bool(text == "t" || text == "true")
        case .float: guard let f = Float(pgFloat(text)) else { throw bad() }; return .float(f)
        case .double: guard let d = Double(pgFloat(text)) else { throw bad() }; return .double(d)
        case .date: guard let d = SyncValueJSON.date(exactSecondsSince1970: text) else { throw bad() }; return .date(d)
        case .string, .object, .linkingObjects: return .string(text)
        case .objectId: guard let o = ObjectId(text) else { throw bad() }; return .objectId(o)
        case .uuid: guard let u = UUID(uuidString: text) else { throw bad() }; return .uuid(u)
        case .decimal: guard let d = Decimal(syncText: text) else { throw bad() }; return .decimal(d)
        case .mixed: throw ObjDBError(.typeMismatch, "mixed values are not synced yet")
        case .data:
            guard text.hasPrefix("\\x") else { throw bad() }
            let hex = Array(text.utf8.dropFirst(2))
            guard hex.count % 2 == 0 else { throw bad() }
            var out = Data(capacity: hex.count / 2)
            var i = 0
            while i < hex.count {
                guard let hi = hexValue(hex[i]), let lo = hexValue(hex[i + 1]) else { throw bad() }
                out.append(hi << 4 | lo)
                i += 2
            }
            return .data(out)
        }
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// PostgreSQL prints `NaN`, `Infinity`, `-Infinity`; Swift reads `nan`, `inf`.
    static func pgFloat(_ text: String) -> String {
        switch text {
        case "NaN": "nan"
        case "Infinity": "inf"
        case "-Infinity": "-inf"
        default: text
        }
    }

    /// The elements of a one-dimensional PostgreSQL array's text (`{1,NULL,"a b"}`).
    static func parseArray(_ text: String) throws -> [String?] {
        var bytes = Array(text.utf8)[...]
        // A lower bound other than 1 prints as "[0:2]={…}".
        if bytes.first == UInt8(ascii: "["), let eq = bytes.firstIndex(of: UInt8(ascii: "=")) { bytes = bytes[(eq + 1)...] }
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else {
            throw ObjDBError(.typeMismatch, "PostgreSQL array text '\(text.prefix(60))' is malformed")
        }
        bytes = bytes.dropFirst().dropLast()
        var out: [String?] = []
        if bytes.isEmpty { return out }
        var i = bytes.startIndex
        while i <= bytes.endIndex {
            if i < bytes.endIndex, bytes[i] == UInt8(ascii: "\"") {
                var element: [UInt8] = []
                i += 1
                while i < bytes.endIndex, bytes[i] != UInt8(ascii: "\"") {
                    if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.endIndex { i += 1 }
                    element.append(bytes[i])
                    i += 1
                }
                i += 1  // closing quote
                out.append(String(decoding: element, as: UTF8.self))
            } else {
                var end = i
                while end < bytes.endIndex, bytes[end] != UInt8(ascii: ",") { end += 1 }
                let element = String(decoding: bytes[i..<end], as: UTF8.self)
                out.append(element == "NULL" ? nil : element)
                i = end
            }
            // now at ',' or end
            if i >= bytes.endIndex { break }
            i += 1
        }
        return out
    }
}

/// Quoting of SQL identifiers: names of classes and properties never become SQL any other way.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
