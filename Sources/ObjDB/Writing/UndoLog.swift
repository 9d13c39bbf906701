/// One row-level change made inside a savepoint, with what it takes to undo it.
enum UndoStep {
    /// A row was inserted: undo by deleting it.
    case inserted(ClassInfo, key: UInt64)
    /// A row was replaced: undo by writing the old bytes back.
    case replaced(ClassInfo, key: UInt64, row: [UInt8])
    /// A row was deleted: undo by inserting the old bytes again under the same key.
    case deleted(ClassInfo, key: UInt64, row: [UInt8])
    /// An unmanaged object became managed: undo by making it unmanaged again.
    case attached(ObjectBase)
}

/// The undo log of a write transaction's savepoints (``Database/withSavepoint(_:_:)``): the
/// steps recorded while one is active, which a savepoint that fails replays backwards. Stored
/// in place in the ``WriteContext``, as a variable: the context allocates no log of its own.
struct UndoLog {
    /// Steps of the active savepoints, oldest first.
    var steps: [UndoStep] = []
    /// Number of nested savepoints; steps are recorded only while it is positive.
    var depth = 0

    /// Records a step if a savepoint is active; `step` is not evaluated otherwise.
    @inline(__always)
    mutating func record(_ step: @autoclosure () -> UndoStep) {
        if depth > 0 { steps.append(step()) }
    }

    /// Removes the steps recorded from position `start` on and returns them, newest first.
    mutating func removeSteps(from start: Int) -> [UndoStep] {
        let removed = Array(steps[start...].reversed())
        steps.removeSubrange(start...)
        return removed
    }
}
