/// What an observed collection (`Results`, `List`, `MutableSet`, `LinkingObjects`) reports to
/// its observer.
///
/// ```swift
/// let token = people.observe { change in
///     switch change {
///     case .initial(let people):
///         tableView.reloadData()
///     case .update(_, let deletions, let insertions, let modifications):
///         tableView.performBatchUpdates {
///             tableView.deleteRows(at: deletions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///             tableView.insertRows(at: insertions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///             tableView.reloadRows(at: modifications.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///         }
///     case .error(let error):
///         print(error)
///     }
/// }
/// ```
///
/// Indices follow Realm: `deletions` and `modifications` are indices in the previous version of
/// the collection, `insertions` indices in the new one, each ascending — what `UITableView` and
/// `UICollectionView` batch updates expect. An object whose position changed (a sort order, a
/// list move) is a deletion plus an insertion, and not also a modification.
public enum CollectionChange<Collection> {
    /// The collection as it is when the observation starts; always the first call.
    case initial(Collection)
    /// The collection changed: the indices of what was deleted, inserted and modified.
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The observation could not go on (the collection could not be read); no call follows.
    case error(any Error)
}

/// What an observed object reports to its observer.
///
/// ```swift
/// let token = ann.observe(keyPaths: [\.name]) { change in
///     switch change {
///     case .change(let person, let properties):
///         for property in properties { print(property.name, property.oldValue ?? "-", "→", property.newValue ?? "nil") }
///     case .deleted:
///         print("deleted")
///     case .error(let error):
///         print(error)
///     }
/// }
/// ```
public enum ObjectChange<Object> {
    /// Properties of the object changed (listed in the order the class declares them).
    case change(Object, [PropertyChange])
    /// The object was deleted; no call follows.
    case deleted
    /// The observation could not go on; no call follows.
    case error(any Error)
}

/// One property of an observed object that changed.
///
/// `oldValue` is `nil` when the change was made through the observing `Database` instance
/// itself (its old value is gone by then, as in Realm) and for list, set and map properties;
/// values are as ``ObjectBase/subscript(_:)`` gives them (`DynamicObject` for links).
public struct PropertyChange: CustomStringConvertible {
    /// The property's name.
    public let name: String
    /// The value before the change, where known.
    public let oldValue: Any?
    /// The value after the change.
    public let newValue: Any?

    /// "name: old → new".
    public var description: String {
        "\(name): \(oldValue.map { "\($0)" } ?? "nil") → \(newValue.map { "\($0)" } ?? "nil")"
    }
}
