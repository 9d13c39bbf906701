/// How far a migration has come, for ``Configuration/migrationProgress``.
public struct MigrationProgress: Sendable, Hashable {
    /// What the migration is doing: rewriting the class's objects for the new schema, or going
    /// through them in `enumerateObjects`.
    public enum Phase: String, Sendable, Hashable {
        /// Writing the class's objects in the new schema's layout.
        case rewriting
        /// Going through them in `enumerateObjects`.
        case enumerating
    }

    /// The class being processed.
    public let className: String
    /// The phase.
    public let phase: Phase
    /// Objects of the class processed so far.
    public let processed: Int
    /// Objects of the class in all.
    public let total: Int
}
