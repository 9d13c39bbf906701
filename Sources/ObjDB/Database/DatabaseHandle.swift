/// A weak reference to a ``Database`` for those that must not keep it alive (the registry of
/// live instances, the observation center): they hold the handle weakly, and the database owns
/// it.
///
/// Nothing holds a weak reference to a `Database` itself: a weak reference gives an object a side
/// table, after which every retain and release of it takes the Swift runtime's slow path, and a
/// database is retained and released on every read (measured: about 65 instructions more per
/// primary-key lookup).
///
/// Follow ``database`` only in the isolation domain the database is confined to: that domain also
/// runs its last release, so it cannot be going away meanwhile.
final class DatabaseHandle {
    /// The database; valid while the handle is (the database owns it).
    unowned(unsafe) let database: Database

    init(_ database: Database) { self.database = database }
}
