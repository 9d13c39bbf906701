import Foundation

/// How `@sum` and `@avg` add up a collection of mixed values, as realm-core does: only the
/// numbers count (integers, floats, doubles, decimals; NaN left out), added as decimals, so that
/// `{1, 2.2 (decimal), 3.3 (float), 4.4}.@sum == 10.9` holds. `@min` and `@max` take every value
/// but NaN, in Realm's order of types (``QueryOrder/sortCompare(_:_:)``).
enum MixedAggregate {
    /// The decimal a double adds to a sum: the double with 15 significant digits (realm-core's
    /// `Decimal128(double)`), or with 7 when a `Float` holds it exactly, since a mixed value's
    /// float is read widened to a double (`3.3` as a float adds 3.3). `nil` for NaN and infinity,
    /// which a `Decimal` cannot hold.
    static func decimal(_ value: Double) -> Decimal? {
        guard value.isFinite else { return nil }
        let digits = Double(Float(value)) == value ? 7 : 15
        return Decimal(string: String(format: "%.\(digits)g", value), locale: Locale(identifier: "en_US_POSIX"))
    }
}
