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

/// The state of the crash database after a number of transactions: which items are alive, at
/// which version, written by which transaction.
public struct CrashState: Sendable, Equatable {
    /// The sequence number of the last transaction applied (0: none).
    public var sequence = 0
    /// The id the next inserted item gets.
    public var nextItem = 1
    /// The ids of the living items, ascending.
    public private(set) var ids: [Int] = []
    /// Per living item: its version and the transaction that wrote it last.
    public private(set) var items: [Int: (version: Int, writtenBy: Int)] = [:]

    /// The state before any transaction.
    public init() {}

    /// A state read back from a database: items as (id, version, writtenBy).
    public init(sequence: Int, nextItem: Int, items: [(id: Int, version: Int, writtenBy: Int)]) {
        self.sequence = sequence
        self.nextItem = nextItem
        for item in items.sorted(by: { $0.id < $1.id }) {
            ids.append(item.id)
            self.items[item.id] = (item.version, item.writtenBy)
        }
    }

    /// Applies transaction `sequence`'s operation.
    public mutating func apply(_ operation: CrashOperation, sequence: Int) {
        self.sequence = sequence
        switch operation {
        case .insert(let first, let count):
            for id in first..<(first + count) {
                ids.append(id)
                items[id] = (0, sequence)
            }
            nextItem = first + count
        case .update(let updated):
            for id in updated {
                if let item = items[id] { items[id] = (item.version + 1, sequence) }
            }
        case .delete(let deleted):
            let gone = Set(deleted)
            for id in deleted { items[id] = nil }
            ids.removeAll { gone.contains($0) }
        }
    }

    /// A digest of the items (id, version, writer) in id order, and of the sequence number.
    public var digest: Digest {
        var digest = Digest()
        digest.line("sequence \(sequence) next \(nextItem)")
        for id in ids {
            if let item = items[id] { digest.line("\(id) \(item.version) \(item.writtenBy)") }
        }
        return digest
    }

    /// Whether two states hold the same sequence number, next id and items.
    public static func == (a: CrashState, b: CrashState) -> Bool {
        a.sequence == b.sequence && a.nextItem == b.nextItem && a.ids == b.ids
            && a.ids.allSatisfy { a.items[$0]?.version == b.items[$0]?.version && a.items[$0]?.writtenBy == b.items[$0]?.writtenBy }
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

/// What every property of a crash item holds, as a function of its id and version.
public enum CrashContent {
    /// The label of item `id` at `version`: non-ASCII text of varying length.
    public static func label(_ id: Int, _ version: Int) -> String {
        "item \(id) v\(version) " + String(repeating: "é", count: (id &* 7 &+ version) % 40)
    }

    /// The numbers of item `id` at `version`.
    public static func values(_ id: Int, _ version: Int) -> [Int] {
        (0..<((id + version) % 9)).map { id &* 31 &+ $0 &* (version + 1) }
    }

    /// The words of item `id` at `version`.
    public static func tags(_ id: Int, _ version: Int) -> [String] {
        (0..<((id + 2 * version) % 4)).map { "t\(id).\(version).\($0)" }
    }

    /// The part ids of item `id` (fixed when it is inserted).
    public static func parts(_ id: Int) -> [Int] {
        (0..<(id % 4)).map { id * 4 + $0 }
    }

    /// The name of part `id`.
    public static func partName(_ id: Int) -> String { "part \(id)" }

    /// Sets the properties of `item` for its id, `version` and writer.
    public static func fill(_ item: CrashItem, version: Int, writtenBy: Int) {
        let id = item.id
        item.version = version
        item.writtenBy = writtenBy
        item.label = label(id, version)
        let values = values(id, version)
        if Array(item.values) != values {
            item.values.removeAll()
            item.values.append(contentsOf: values)
        }
        let tags = tags(id, version)
        if Array(item.tags) != tags {
            item.tags.removeAll()
            item.tags.append(contentsOf: tags)
        }
    }

    /// The problems of a stored item against what its id and version say; empty if it is exact.
    public static func problems(_ item: CrashItem, expected: (version: Int, writtenBy: Int)?) -> [String] {
        let id = item.id
        guard let expected else { return ["item \(id) exists but should not"] }
        var problems: [String] = []
        if item.version != expected.version { problems.append("item \(id): version \(item.version), expected \(expected.version)") }
        if item.writtenBy != expected.writtenBy {
            problems.append("item \(id): written by \(item.writtenBy), expected \(expected.writtenBy)")
        }
        let version = expected.version
        if item.label != label(id, version) { problems.append("item \(id): label \(item.label.prefix(40))") }
        if Array(item.values) != values(id, version) { problems.append("item \(id): values \(Array(item.values))") }
        if Array(item.tags) != tags(id, version) { problems.append("item \(id): tags \(Array(item.tags))") }
        let parts = item.parts.map { ($0.id, $0.name) }
        if parts.map(\.0) != self.parts(id) || parts.contains(where: { $0.1 != partName($0.0) }) {
            problems.append("item \(id): parts \(parts)")
        }
        return problems
    }
}
