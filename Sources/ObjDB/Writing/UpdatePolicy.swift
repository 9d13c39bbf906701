/// What ``Database/add(_:update:)`` does when an object with the same primary key exists.
public enum UpdatePolicy: Sendable, Hashable {
    /// Throw ``ObjDBError/Code/primaryKeyExists``.
    case error
    /// Update the existing object, writing only the properties whose values differ.
    case modified
    /// Update the existing object, writing every property even if unchanged.
    case all
}
