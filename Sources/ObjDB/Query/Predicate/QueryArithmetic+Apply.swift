import Foundation

extension QueryArithmetic {
    /// `a op b` for two number constants: integers stay integers while the result is exact
    /// (not for `/`, nor on overflow); anything else is computed in `Double`, so that division
    /// by zero is infinite (or NaN), as in Realm. `nil` if either is not a number.
    static func apply(_ op: QueryArithmetic, _ a: QueryValue, _ b: QueryValue) -> QueryValue? {
        if case .int(let x) = a, case .int(let y) = b, op != .divide {
            let (result, overflow): (Int64, Bool)
            switch op {
            case .add: (result, overflow) = x.addingReportingOverflow(y)
            case .subtract: (result, overflow) = x.subtractingReportingOverflow(y)
            default: (result, overflow) = x.multipliedReportingOverflow(by: y)
            }
            if !overflow { return .int(result) }
        }
        guard let x = a.doubleValue, let y = b.doubleValue else { return nil }
        return .double(apply(op, x, y))
    }

    /// `x op y` in `Double`.
    static func apply(_ op: QueryArithmetic, _ x: Double, _ y: Double) -> Double {
        switch op {
        case .add: x + y
        case .subtract: x - y
        case .multiply: x * y
        case .divide: x / y
        }
    }
}

extension QueryValue {
    /// A number constant as a `Double`; `nil` for anything else.
    var doubleValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .double(let v): v
        case .decimal(let v): NSDecimalNumber(decimal: v).doubleValue
        default: nil
        }
    }
}
