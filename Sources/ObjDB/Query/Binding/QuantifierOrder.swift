/// The quantifiers of a comparison with a list of constants, in the order they apply.
///
/// A list written on the left (``QueryComparison/listFirst``) puts its quantifier outside the
/// key path's: `ALL {5.5, 4.0} IN ANY items.price` holds when every value is some price. Where
/// that order makes no difference, or the same test can be written with the key path's
/// quantifier outside, the comparison is bound in the usual order (key path outside), which the
/// `IN` hash set and the indexes serve:
///
/// | written (list, path) | bound as (path, list) |
/// |---|---|
/// | ANY, ANY | ANY, ANY |
/// | ALL, ALL | ALL, ALL |
/// | NONE, ANY | NONE, ANY |
/// | ALL, NONE | NONE, ANY |
///
/// The other five pairs keep the list outside. A key path that reaches one value leaves one
/// order only.
struct QuantifierOrder: Equatable {
    /// The key path's quantifier.
    let quantifier: QueryQuantifier
    /// The list's quantifier.
    let listQuantifier: QueryQuantifier
    /// Whether the list's quantifier applies outside the key path's.
    let listFirst: Bool

    /// The order for `c`, whose left side is to-many or not.
    init(_ c: QueryComparison, leftIsToMany: Bool) {
        self.init(list: c.listQuantifier, path: c.quantifier, listFirst: c.listFirst && leftIsToMany && c.right.isList)
    }

    /// The order for a list quantifier and a key path quantifier, the list's outside or not.
    init(list: QueryQuantifier, path: QueryQuantifier, listFirst: Bool) {
        guard listFirst else {
            (quantifier, listQuantifier, self.listFirst) = (path, list, false)
            return
        }
        switch (list, path) {
        case (.any, .any), (.all, .all):
            (quantifier, listQuantifier, self.listFirst) = (path, list, false)
        case (.none, .any), (.all, .none):
            // No value of the list is matched by any element: no element matches any value.
            (quantifier, listQuantifier, self.listFirst) = (.none, .any, false)
        default:
            (quantifier, listQuantifier, self.listFirst) = (path, list, true)
        }
    }
}
