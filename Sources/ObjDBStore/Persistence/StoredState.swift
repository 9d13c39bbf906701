import Foundation

/// A stored state as its JSON object, for state migrations: read and change its top-level
/// values by name.
///
/// ```swift
/// let migrations: [Int: (inout StoredState) throws -> Void] = [
///     2: { state in state["count"] = state["counter"]; state["counter"] = nil },
/// ]
/// ```
///
/// Values are what `JSONSerialization` reads and writes: `String`, numbers, `Bool`, arrays,
/// `[String: Any]` dictionaries, and `NSNull` for JSON's `null`. Setting `nil` removes a key.
public struct StoredState {
    /// The top-level JSON object.
    public var values: [String: Any]

    /// Creates a stored state from its top-level values.
    public init(_ values: [String: Any] = [:]) {
        self.values = values
    }

    /// The value stored under `key`; `nil` when there is none.
    public subscript(key: String) -> Any? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// The names of the top-level values.
    public var keys: [String] { values.keys.sorted() }
}
