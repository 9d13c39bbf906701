/// A failure of the harness itself (a child that cannot start, a file that cannot be copied),
/// as opposed to a finding about ObjDB.
public struct HarnessError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
