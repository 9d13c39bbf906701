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
