/// What one transaction of the crash worker does.
public enum CrashOperation: Sendable, Hashable {
    /// Inserts items with the ids `first..<first + count`.
    case insert(first: Int, count: Int)
    /// Updates the items with these ids (their version goes up by one).
    case update([Int])
    /// Deletes the items with these ids (their parts go with them).
    case delete([Int])

    /// `insert`, `insert-batch`, `update`, `update-batch`, `delete`, `delete-batch`.
    public var name: String {
        switch self {
        case .insert(_, let count): count == 1 ? "insert" : "insert-batch"
        case .update(let ids): ids.count == 1 ? "update" : "update-batch"
        case .delete(let ids): ids.count == 1 ? "delete" : "delete-batch"
        }
    }

    /// Whether it writes more than one item.
    public var isBatch: Bool {
        switch self {
        case .insert(_, let count): count > 1
        case .update(let ids), .delete(let ids): ids.count > 1
        }
    }
}

/// The deterministic sequence of transactions of a crash run: transaction `n`'s operation
/// depends only on the seed, `n` and the state after transaction `n - 1`, so the worker (which
/// reads the state from the file) and the checker (which keeps it in memory) agree on it.
public struct CrashPlan: Sendable {
    /// The run's seed.
    public var seed: UInt64
    /// How many items a batch writes.
    public var batchSizes: ClosedRange<Int>
    /// Above this many living items, every transaction deletes a batch.
    public var maximumItems: Int

    /// A plan.
    public init(seed: UInt64, batchSizes: ClosedRange<Int>, maximumItems: Int) {
        self.seed = seed
        self.batchSizes = batchSizes
        self.maximumItems = maximumItems
    }

    /// The operation of transaction `sequence` on `state` (the state after `sequence - 1`).
    public func operation(_ sequence: Int, after state: CrashState) -> CrashOperation {
        var rng = SeededRandom(seed: seed, index: UInt64(sequence))
        let ids = state.ids
        let batch = min(rng.inRange(batchSizes), max(ids.count, 1))
        var roll = rng.below(100)
        // One run of 40 transactions in three writes single objects only, so that kills also
        // land among quick single-object commits (batches take most of the time otherwise).
        if (sequence / 40) % 3 == 2 { roll = roll % 63 }
        if ids.isEmpty { roll = rng.percent(70) ? 0 : 70 }
        if ids.count > maximumItems { roll = 95 }
        switch roll {
        case 0..<35:
            return .insert(first: state.nextItem, count: 1)
        case 35..<55:
            return .update([rng.pick(ids)])
        case 55..<63:
            return .delete([rng.pick(ids)])
        case 63..<82:
            return .insert(first: state.nextItem, count: rng.inRange(batchSizes))
        case 82..<91:
            // Every k-th living item from a random start.
            let step = max(1, ids.count / batch)
            let start = rng.below(step)
            return .update(Array(stride(from: start, to: ids.count, by: step).prefix(batch).map { ids[$0] }))
        default:
            // A run of neighbouring items.
            let start = rng.below(max(1, ids.count - batch + 1))
            return .delete(Array(ids[start..<min(ids.count, start + batch)]))
        }
    }
}
