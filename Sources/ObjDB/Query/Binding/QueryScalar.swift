import Foundation

/// One value met while evaluating a predicate: decoded from column bytes without copying
/// (strings and other byte values point into the row), or a constant of the predicate.
enum QueryScalar {
    case null
    case int(Int64)
    case double(Double)
    case decimal(Decimal)
    case bool(Bool)
    /// Seconds since 2001-01-01 UTC, as `Date` stores them.
    case date(Double)
    /// UTF-8 of a string, or the bytes of `Data`, a UUID or an ObjectId.
    case bytes(UnsafeRawBufferPointer)
    /// An object key.
    case object(UInt64)
    /// A UUID, an ObjectId, data, a link or a nested collection held by a mixed value: it equals
    /// and orders only with values of its own type (`.bytes` would equal a string or data of the
    /// same bytes; realm-core keeps a mixed string and binary apart).
    case tagged(MixedFormat.Tag, UnsafeRawBufferPointer)

    /// The bytes of a string (`isData` false), or of data (`isData` true: a mixed value's data is
    /// `.tagged(.data, …)`), for the string operators, which match a string with a string and
    /// data with data. `nil` for other values.
    @inline(__always)
    var textual: (isData: Bool, bytes: UnsafeRawBufferPointer)? {
        switch self {
        case .bytes(let bytes): (false, bytes)
        case .tagged(.data, let bytes): (true, bytes)
        default: nil
        }
    }

    /// Decodes a column (or collection element) of type `type`; damaged bytes read as null.
    @inline(__always)
    init(_ read: ColumnRead, _ type: PropertyType) {
        guard case .value(let bytes) = read else {
            self = .null
            return
        }
        switch type {
        case .int: self = ColumnCodec.integer(bytes).map(QueryScalar.int) ?? .null
        case .double: self = ColumnCodec.double(bytes).map(QueryScalar.double) ?? .null
        case .float: self = ColumnCodec.float(bytes).map { .double(Double($0)) } ?? .null
        case .bool: self = ColumnCodec.bool(bytes).map(QueryScalar.bool) ?? .null
        case .date: self = ColumnCodec.double(bytes).map(QueryScalar.date) ?? .null
        case .decimal: self = Decimal._objdbDecode(bytes).map(QueryScalar.decimal) ?? .null
        case .string, .data, .uuid, .objectId: self = .bytes(bytes)
        case .object, .linkingObjects: self = bytes.count == 8 ? .object(bytes.loadUnaligned(as: UInt64.self)) : .null
        case .mixed: self = QueryScalar(mixed: bytes)
        }
    }

    /// Decodes a mixed value (`MixedFormat`) as the scalar of the type it holds: numbers as
    /// numbers (a float widened to `Double`), strings and data as bytes, UUIDs and ObjectIds
    /// tagged; damaged bytes read as null.
    init(mixed bytes: UnsafeRawBufferPointer) {
        guard let (tag, payload) = MixedFormat.split(bytes) else {
            self = .null
            return
        }
        switch tag {
        case .none: self = .null
        case .int: self = QueryScalar(.value(payload), .int)
        case .bool: self = QueryScalar(.value(payload), .bool)
        case .float: self = QueryScalar(.value(payload), .float)
        case .double: self = QueryScalar(.value(payload), .double)
        case .decimal: self = QueryScalar(.value(payload), .decimal)
        case .date: self = QueryScalar(.value(payload), .date)
        case .string: self = .bytes(payload)
        case .data, .objectId, .uuid, .object: self = .tagged(tag, payload)
        case .list, .dictionary: self = MixedFormat.isWellFormedCollection(tag, payload) ? .tagged(tag, payload) : .null
        }
    }

    /// The type rank of the value in a sort of mixed values (realm-core's `Mixed::compare`):
    /// null, bools, numbers, strings and data, dates, ObjectIds, UUIDs, links, lists,
    /// dictionaries (a to-one link column's objects rank with mixed links).
    var mixedSortRank: Int {
        switch self {
        case .null: -1
        case .bool: 0
        case .int, .double, .decimal: 1
        case .bytes: 2
        case .date: 3
        case .tagged(let tag, _): tag.sortRank
        case .object: 6
        }
    }

    var isNull: Bool { if case .null = self { true } else { false } }

    /// The value as a `Double`, for numeric comparisons across types.
    var doubleValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .double(let v): v
        case .decimal(let v): NSDecimalNumber(decimal: v).doubleValue
        case .date(let v): v
        default: nil
        }
    }

    /// The value as a `Decimal`, for exact comparisons with decimals.
    var decimalValue: Decimal? {
        switch self {
        case .int(let v): Decimal(v)
        case .double(let v): v.isFinite ? Decimal(v) : nil
        case .decimal(let v): v
        default: nil
        }
    }
}

/// The ordering ObjDB queries and sorts use, shared by comparisons, sorting and min/max.
enum QueryOrder {
    /// Compares two non-null scalars of compatible types: negative, zero or positive; `nil` when
    /// they cannot be ordered (different kinds, or NaN).
    static func compare(_ a: QueryScalar, _ b: QueryScalar) -> Int? {
        switch (a, b) {
        case let (.int(x), .int(y)):
            return x < y ? -1 : x == y ? 0 : 1
        case let (.bool(x), .bool(y)):
            return x == y ? 0 : (!x ? -1 : 1)
        case let (.bytes(x), .bytes(y)):
            return compareBytes(x, y).signum()
        case let (.object(x), .object(y)):
            return x < y ? -1 : x == y ? 0 : 1
        case let (.tagged(s, x), .tagged(t, y)):
            return s == t ? compareBytes(x, y).signum() : nil
        case let (.date(x), .date(y)):
            return ordered(x, y)
        case (.decimal, .date), (.date, .decimal):
            return nil  // a date is no number (values of a mixed property)
        case (.decimal, _), (_, .decimal):
            guard let x = a.decimalValue, let y = b.decimalValue else {
                guard let x = a.doubleValue, let y = b.doubleValue else { return nil }
                return ordered(x, y)
            }
            if x.isNaN || y.isNaN { return nil }
            return x < y ? -1 : x == y ? 0 : 1
        case let (.int(x), .double(y)):
            return compareExactly(x, y)
        case let (.double(x), .int(y)):
            return compareExactly(y, x).map { -$0 }
        case let (.double(x), .double(y)):
            return ordered(x, y)
        default:
            return nil
        }
    }

    /// Orders an integer and a double by their exact values (converting the integer to `Double`
    /// would round above 2^53); `nil` for NaN.
    static func compareExactly(_ x: Int64, _ y: Double) -> Int? {
        if y.isNaN { return nil }
        if y >= 9_223_372_036_854_775_808.0 { return -1 }
        if y < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = y.rounded(.towardZero)
        let integer = Int64(whole)
        if x != integer { return x < integer ? -1 : 1 }
        let fraction = y - whole
        return fraction > 0 ? -1 : fraction < 0 ? 1 : 0
    }

    private static func ordered(_ x: Double, _ y: Double) -> Int? {
        if x.isNaN || y.isNaN { return nil }
        return x < y ? -1 : x == y ? 0 : 1
    }

    /// Sort order: `nil` first, then values by ``compare(_:_:)``; NaN after numbers.
    static func sortCompare(_ a: QueryScalar, _ b: QueryScalar) -> Int {
        switch (a.isNull, b.isNull) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        default: break
        }
        if let order = compare(a, b) { return order }
        // Values of different types (in a mixed property) in Realm's order of types; the ranks of
        // the values of a typed property are all equal.
        let (aRank, bRank) = (a.mixedSortRank, b.mixedSortRank)
        if aRank != bRank { return aRank < bRank ? -1 : 1 }
        // A mixed string and data rank together and sort by their bytes, as in realm-core.
        if let (_, x) = a.textual, let (_, y) = b.textual { return compareBytes(x, y).signum() }
        let aNaN = a.doubleValue?.isNaN ?? false
        let bNaN = b.doubleValue?.isNaN ?? false
        return aNaN == bNaN ? 0 : (aNaN ? 1 : -1)
    }
}

/// String matching for `CONTAINS`, `BEGINSWITH`, `ENDSWITH`, `LIKE` and case- or
/// diacritic-insensitive comparisons.
enum QueryText {
    /// `text` folded for the options: case folding for `[c]`, diacritics removed for `[d]`.
    static func fold(_ text: String, _ options: QueryStringOptions) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? text : text.folding(options: folding, locale: nil)
    }

    /// Whether `haystack` contains `needle` (bytewise; UTF-8 is self-synchronising, so this is
    /// also a match on whole characters' encodings).
    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: UnsafeRawBufferPointer) -> Bool {
        if needle.isEmpty { return true }
        guard haystack.count >= needle.count, let h = haystack.baseAddress, let n = needle.baseAddress else { return false }
        let first = n.load(as: UInt8.self)
        var i = 0
        let last = haystack.count - needle.count
        while i <= last {
            if h.load(fromByteOffset: i, as: UInt8.self) == first, memcmp(h + i, n, needle.count) == 0 { return true }
            i += 1
        }
        return false
    }

    /// Whether `text` starts with `prefix`.
    static func hasPrefix(_ text: UnsafeRawBufferPointer, _ prefix: UnsafeRawBufferPointer) -> Bool {
        guard text.count >= prefix.count else { return false }
        return compareBytes(UnsafeRawBufferPointer(rebasing: text.prefix(prefix.count)), prefix) == 0
    }

    /// Whether `text` ends with `suffix`.
    static func hasSuffix(_ text: UnsafeRawBufferPointer, _ suffix: UnsafeRawBufferPointer) -> Bool {
        guard text.count >= suffix.count else { return false }
        return compareBytes(UnsafeRawBufferPointer(rebasing: text.suffix(suffix.count)), suffix) == 0
    }

    /// `LIKE`: `?` matches one Unicode scalar, `*` any run of them (greedy with backtracking).
    static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        var t = 0
        var p = 0
        var star = -1
        var mark = 0
        while t < text.count {
            if p < pattern.count && pattern[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if p < pattern.count && (pattern[p] == "?" || pattern[p] == text[t]) {
                t += 1
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
