/// Which date a `@Persisted(.createdAt)` or `@Persisted(.modifiedAt)` property holds.
///
/// ```swift
/// @Persisted(.modifiedAt) var modified: Date
/// Note().objectSchema["modified"]?.timestamp   // .modifiedAt
/// ```
public enum PersistedTimestamp: String, Sendable, Hashable, Codable {
    /// When the object was added.
    case createdAt
    /// When a write transaction last changed the object.
    case modifiedAt
}
