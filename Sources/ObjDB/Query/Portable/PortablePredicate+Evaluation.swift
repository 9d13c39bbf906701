import Foundation

extension PortablePredicate {
    /// A variable the predicate uses that has no value: the predicate holds for no row.
    package struct MissingVariable: Error {
        /// The variable's name (`claims.team`).
        package let name: String
    }

    /// Whether a row, given as its property values, matches the predicate: what ObjDB's query
    /// engine decides for an object with these values, evaluated without a database (the sync
    /// service tests changed rows against many clients' subscriptions with it).
    ///
    /// `!=` matches nil, any other comparison of nil is false (and `NOT` of it true), strings
    /// compare byte by byte, `[c]` folds case as ObjDB does, integers and floating-point
    /// numbers compare exactly, NaN is unordered.
    ///
    /// - Parameters:
    ///   - value: a property's value (`.null` for nil; a link as `.link(primaryKey)`); `nil`
    ///     for a property the row lacks, which matches nothing.
    ///   - variables: the values of `$user` (`user`) and `$claims.team` (`claims.team`).
    /// - Throws: ``MissingVariable`` when a variable the predicate compares with has no value.
    /// - Complexity: O(*n*) in the predicate's size, string operators O(*m*) in the strings'
    ///   lengths (`LIKE` O(*m*²)).
    package func matches(_ value: (String) -> SyncValue?, variables: [String: SyncValue] = [:]) throws -> Bool {
        // Before any operand is evaluated: an `OR` must not hold by one operand while another
        // lacks its variable (the SQL translation holds for no row then).
        if let missing = variableNames.first(where: { variables[$0] == nil }) { throw MissingVariable(name: missing) }
        return try evaluate(value, variables: variables)
    }

    /// ``matches(_:variables:)`` without its first walk for missing variables, for a caller
    /// that gives every variable the predicate uses a value (the sync service's fan-out binds
    /// them once per round, then tests many rows). Without one, the answer is unspecified (an
    /// `OR` may hold by another operand; ``matches(_:variables:)`` throws).
    /// - Complexity: as ``matches(_:variables:)``, less one walk of the predicate.
    package func matchesBound(_ value: (String) -> SyncValue?, variables: [String: SyncValue]) -> Bool {
        (try? evaluate(value, variables: variables)) ?? false
    }

    private func evaluate(_ value: (String) -> SyncValue?, variables: [String: SyncValue]) throws -> Bool {
        switch self {
        case .constant(let holds): return holds
        case .and(let operands):
            for operand in operands where try !operand.evaluate(value, variables: variables) { return false }
            return true
        case .or(let operands):
            for operand in operands where try operand.evaluate(value, variables: variables) { return true }
            return false
        case .not(let operand): return try !operand.evaluate(value, variables: variables)
        case .comparison(let c):
            let operands = try c.operands.map { operand -> SyncValue in
                switch operand {
                case .value(let v): return v
                case .variable(let name):
                    guard let v = variables[name] else { throw MissingVariable(name: name) }
                    return v
                }
            }
            guard let property = value(c.property) else { return false }
            return PortableComparisonEvaluator(c, property: property).holds(operands)
        }
    }
}

/// One comparison of a property's value with constants, with ObjDB's semantics.
struct PortableComparisonEvaluator {
    let c: PortableComparison
    let property: SyncValue

    init(_ c: PortableComparison, property: SyncValue) {
        self.c = c
        // A link compares as its primary key (only with nil, in portable predicates).
        if case .link(let key) = property { self.property = key } else { self.property = property }
    }

    func holds(_ operands: [SyncValue]) -> Bool {
        switch c.op {
        case .equal: return equal(property, operands[0])
        case .notEqual: return !equal(property, operands[0])
        case .less: return order(property, operands[0]).map { $0 < 0 } ?? false
        case .lessOrEqual: return order(property, operands[0]).map { $0 <= 0 } ?? false
        case .greater: return order(property, operands[0]).map { $0 > 0 } ?? false
        case .greaterOrEqual: return order(property, operands[0]).map { $0 >= 0 } ?? false
        case .in: return operands.contains { equal(property, $0) }
        case .between:
            guard let low = order(property, operands[0]), let high = order(property, operands[1]) else { return false }
            return low >= 0 && high <= 0
        case .beginsWith, .endsWith, .contains, .like:
            guard case .string(let text) = property, case .string(let part) = operands[0] else { return false }
            let (t, p) = (folded(text), folded(part))
            switch c.op {
            case .beginsWith: return ReferenceText.begins(t, with: p)
            case .endsWith: return ReferenceText.ends(t, with: p)
            case .contains: return ReferenceText.contains(t, p)
            default: return ReferenceText.like(t, p)
            }
        }
    }

    /// The UTF-8 bytes of a string, case folded for `[c]`.
    private func folded(_ text: String) -> [UInt8] {
        ReferenceText.fold(Array(text.utf8), c.caseInsensitive ? .caseInsensitive : [])
    }

    /// Whether two values are equal (nil equals nil only).
    private func equal(_ a: SyncValue, _ b: SyncValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)): return folded(x) == folded(y)
        case (.bool(let x), .bool(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.objectId(let x), .objectId(let y)): return x == y
        default: return order(a, b) == 0
        }
    }

    /// The order of two values of comparable types (-1, 0, 1), or `nil` when they are not
    /// ordered (nil, NaN, types that do not compare).
    private func order(_ a: SyncValue, _ b: SyncValue) -> Int? {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        switch (a, b) {
        case (.string(let x), .string(let y)):
            let (bx, by) = (folded(x), folded(y))
            return bx == by ? 0 : (bx.lexicographicallyPrecedes(by) ? -1 : 1)
        case (.date(let x), .date(let y)):
            let (dx, dy) = (x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
            return dx.isNaN || dy.isNaN ? nil : sign(dx, dy)
        case (.uuid(let x), .uuid(let y)):
            let (bx, by) = (withUnsafeBytes(of: x.uuid) { Array($0) }, withUnsafeBytes(of: y.uuid) { Array($0) })
            return bx == by ? 0 : (bx.lexicographicallyPrecedes(by) ? -1 : 1)
        case (.objectId(let x), .objectId(let y)):
            return x.stringValue == y.stringValue ? 0 : (x.stringValue < y.stringValue ? -1 : 1)
        case (.decimal(let x), .decimal(let y)): return x.isNaN || y.isNaN ? nil : sign(x, y)
        case (.decimal(let x), _): return x.isNaN ? nil : number(b).map { sign(x, $0) }
        case (_, .decimal(let y)): return y.isNaN ? nil : number(a).map { sign($0, y) }
        case (.int(let x), .int(let y)): return sign(x, y)
        default: return exactOrder(a, b)
        }
    }

    /// Integers and floating-point numbers compared exactly (no rounding of large integers).
    private func exactOrder(_ a: SyncValue, _ b: SyncValue) -> Int? {
        func double(_ v: SyncValue) -> Double? {
            switch v {
            case .double(let d): d
            case .float(let f): Double(f)
            default: nil
            }
        }
        switch (a, b) {
        case (.int(let x), _):
            guard let y = double(b), !y.isNaN else { return nil }
            return -Self.compare(y, x)
        case (_, .int(let y)):
            guard let x = double(a), !x.isNaN else { return nil }
            return Self.compare(x, y)
        default:
            guard let x = double(a), let y = double(b), !x.isNaN, !y.isNaN else { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        }
    }

    /// The order of a double and an integer, exactly.
    static func compare(_ d: Double, _ i: Int64) -> Int {
        if d < -0x1p63 { return -1 }
        if d >= 0x1p63 { return 1 }
        let whole = Int64(d.rounded(.down))
        if whole != i { return whole < i ? -1 : 1 }
        return d > Double(whole) ? 1 : 0
    }

    /// A number as a Decimal, for comparisons with decimals.
    private func number(_ v: SyncValue) -> Decimal? {
        switch v {
        case .int(let i): return Decimal(i)
        case .double(let d) where d.isFinite: return Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX"))
        case .float(let f) where f.isFinite: return Decimal(string: "\(Double(f))", locale: Locale(identifier: "en_US_POSIX"))
        default: return nil
        }
    }
}
