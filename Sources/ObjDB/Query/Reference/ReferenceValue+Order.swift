import Foundation

/// How the reference interpreter orders and equates values (Docs/Queries.md, "Semantics"):
/// numbers by their exact values across integers, doubles and decimals; strings and data by
/// their bytes; `false` before `true`; dates by time; objects by key. Values of different kinds
/// and NaN are unordered; a sort puts the values of a mixed property in Realm's order of types.
extension ReferenceValue {
    /// Whether `a` equals `b`: nil equals nil alone; otherwise they must be ordered the same.
    static func equal(_ a: ReferenceValue, _ b: ReferenceValue) -> Bool {
        if a.isNull || b.isNull { return a.isNull && b.isNull }
        return order(a, b) == 0
    }

    /// How `a` compares with `b`, neither nil: -1, 0 or 1; `nil` when they are unordered.
    static func order(_ a: ReferenceValue, _ b: ReferenceValue) -> Int? {
        switch (a, b) {
        case let (.bool(x), .bool(y)): return x == y ? 0 : x ? 1 : -1
        case let (.bytes(x), .bytes(y)): return x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1
        case let (.object(x), .object(y)): return x == y ? 0 : x < y ? -1 : 1
        case let (.tagged(s, x), .tagged(t, y)):
            guard s == t else { return nil }
            return x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1
        case let (.date(x), .date(y)): return doubles(x, y)
        case let (.integer(x), .integer(y)): return x == y ? 0 : x < y ? -1 : 1
        case let (.double(x), .double(y)): return doubles(x, y)
        case let (.integer(x), .double(y)): return integer(x, double: y)
        case let (.double(x), .integer(y)): return integer(y, double: x).map { -$0 }
        case let (.decimal(x), _): return decimal(x, b)
        case let (_, .decimal(y)): return decimal(y, a).map { -$0 }
        default: return nil
        }
    }

    /// Two doubles; `nil` if either is NaN.
    private static func doubles(_ x: Double, _ y: Double) -> Int? {
        if x.isNaN || y.isNaN { return nil }
        return x == y ? 0 : x < y ? -1 : 1
    }

    /// An integer and a double by their exact values. `Double(x)` is `x` rounded, which cannot
    /// cross `y`: when it differs from `y` it is on the same side as `x`; when it equals `y`,
    /// `y` is a whole number of at most 2^63, compared as an integer.
    private static func integer(_ x: Int64, double y: Double) -> Int? {
        if y.isNaN { return nil }
        let rounded = Double(x)
        if rounded < y { return -1 }
        if rounded > y { return 1 }
        if y >= 0x1p63 { return -1 }  // Int64.max rounds up to 2^63
        let whole = Int64(y)
        return x == whole ? 0 : x < whole ? -1 : 1
    }

    /// A decimal and another number: as decimals (an integer or a finite double converted
    /// exactly by Foundation), an infinite double beyond every decimal; `nil` for NaN or a value
    /// that is no number.
    private static func decimal(_ x: Decimal, _ other: ReferenceValue) -> Int? {
        let y: Decimal
        switch other {
        case .decimal(let v): y = v
        case .integer(let v): y = Decimal(v)
        case .double(let v) where v.isNaN: return nil
        case .double(let v) where v.isInfinite: return x.isNaN ? nil : v < 0 ? 1 : -1
        case .double(let v): y = Decimal(v)
        default: return nil
        }
        if x.isNaN || y.isNaN { return nil }
        return x == y ? 0 : x < y ? -1 : 1
    }

    /// The sort order of two values: nil first, then by ``order(_:_:)``, NaN after every number.
    static func sortOrder(_ a: ReferenceValue, _ b: ReferenceValue) -> Int {
        if a.isNull || b.isNull { return a.isNull == b.isNull ? 0 : a.isNull ? -1 : 1 }
        // Values of different types (of a mixed property) in Realm's order of types.
        if a.typeRank != b.typeRank { return a.typeRank < b.typeRank ? -1 : 1 }
        // A mixed string and data rank together and sort by their bytes.
        if let (_, x) = a.textual, let (_, y) = b.textual { return x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1 }
        if a.isNaN || b.isNaN { return a.isNaN == b.isNaN ? 0 : a.isNaN ? 1 : -1 }
        return order(a, b) ?? 0
    }

    /// Whether `distinct` takes `a` and `b` for the same value: equal, nil and nil, or NaN and
    /// NaN (`0.0` and `-0.0` are equal).
    static func sameForDistinct(_ a: ReferenceValue, _ b: ReferenceValue) -> Bool {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
        return equal(a, b)
    }
}
