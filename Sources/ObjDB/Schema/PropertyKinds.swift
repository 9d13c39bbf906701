/// The collection a property holds, if any.
public enum CollectionKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// An ordered ``List``.
    case list
    /// A ``MutableSet`` of distinct values.
    case set
    /// A ``Map`` from `String` keys to values.
    case map
}

/// What happens to the objects a link points to when the object holding the link is deleted.
///
/// ```swift
/// final class Invoice: Object {
///     @Persisted(deleteRule: .cascade) var lines: List<InvoiceLine>
/// }
/// ```
///
/// Deleting an object always removes the links *to* it (to-one links become `nil`; the object
/// leaves every list, set and map that holds it). The rule decides what happens to the objects
/// it links *to*.
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// The linked objects stay (the default, as in Realm).
    case nullify
    /// A linked object is deleted too, unless another object still links to it (through any
    /// link property). Cascades run recursively and stop at objects linked from elsewhere.
    case cascade
}
