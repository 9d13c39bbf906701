@_spi(Inspection) import ObjDB
import ObjDBStore
import ReferenceStore
import Foundation

/// The `--store` run: what `ObjDBStore`'s `Store` costs.
///
/// - Dispatch: N increments dispatched through one middleware to 10 subscribers selecting the
///   count (skipping repeats), against ``ReferenceStore``: ReSwift's design in the fewest lines,
///   without queueing, persistence or checks. The ratio is the cost the Store's features add.
/// - Persistence: a burst of 10,000 dispatches and the write that follows (`flush()`), against
///   the same burst without persistence; and the write transactions the burst produced.
/// - Subscribers: one dispatch notifying 3,000 subscribers (ReSwift's `PerformanceTests.testNotify`).
@MainActor
enum StoreBench {
    struct State: Codable, Equatable {
        var count = 0
        var todos: [Todo] = (0..<100).map { Todo(id: $0, title: "todo \($0)", done: $0 % 3 == 0) }
    }
    struct Todo: Codable, Equatable { var id: Int; var title: String; var done: Bool }
    struct Increment: Action {}

    static func reducer(_ action: any Action, _ state: State) -> State {
        guard action is Increment else { return state }
        var state = state
        state.count += 1
        return state
    }

    static let passThrough: Middleware<State> = { _, _ in { next in { action in next(action) } } }

    /// A subscriber that remembers the last count.
    final class Counter: StoreSubscriber {
        var last = 0
        func newState(state: Int) { last = state }
    }

    /// Dispatches `n` increments to `store`; the time.
    static func dispatchTime(_ n: Int, _ dispatch: (any Action) -> Void) -> UInt64 {
        let action = Increment()
        let start = monotonicNanoseconds()
        for _ in 0..<n { dispatch(action) }
        return monotonicNanoseconds() - start
    }

    static func run(n: Int, repetitions: Int) throws -> String {
        // Dispatch throughput.
        var ours: [UInt64] = [], minimal: [UInt64] = []
        for _ in 0..<repetitions {
            let store = Store(reducer: reducer, state: State(), middleware: [passThrough])
            let subscribers = (0..<10).map { _ in Counter() }
            for subscriber in subscribers { store.subscribe(subscriber) { $0.select { $0.count } } }
            ours.append(dispatchTime(n) { store.dispatch($0) })
            guard store.state.count == n, subscribers.allSatisfy({ $0.last == n }) else { throw CheckFailure(description: "Store: wrong count") }

            let reference = ReferenceStore(reducer: reducer, state: State(), middleware: [passThrough])
            let referenceSubscribers = (0..<10).map { _ in ReferenceSubscriber<Int>() }
            for subscriber in referenceSubscribers {
                reference.subscribe(subscriber) { $0.select { $0.count }.skipRepeats { $0 == $1 } }
            }
            minimal.append(dispatchTime(n) { reference.dispatch($0) })
            guard reference.state.count == n, referenceSubscribers.allSatisfy({ $0.last == n }) else {
                throw CheckFailure(description: "ReferenceStore: wrong count")
            }
        }
        var table = MarkdownTable(headers: ["Store", "ns per dispatch", "vs reference"])
        let minimalNS = median(minimal) / Double(n), oursNS = median(ours) / Double(n)
        table.append(["ReSwift-style reference store", fixed(minimalNS, 1), "1.00×"])
        table.append(["ObjDBStore, no persistence", fixed(oursNS, 1), fixed(oursNS / minimalNS, 2) + "×"])

        // Persistence: a burst of 10,000 dispatches, then the write.
        let burst = 10_000
        var plain: [UInt64] = [], persisted: [UInt64] = [], transactions: [Int] = []
        for _ in 0..<repetitions {
            let store = Store(reducer: reducer, state: State(), middleware: [passThrough])
            plain.append(dispatchTime(burst) { store.dispatch($0) })

            let directory = try TempDirectory()
            defer { directory.remove() }
            var configuration = ObjDB.Configuration(fileURL: URL(fileURLWithPath: directory.path + "/store.objdb"))
            configuration.durability = .noSync
            let db = try ObjDB.Database(configuration: configuration)
            let persistent = try Store(reducer: reducer, state: State(), middleware: [passThrough], persistence: .database(db, key: "bench"))
            let before = db.lastCommittedTransactionID
            let start = monotonicNanoseconds()
            for _ in 0..<burst { persistent.dispatch(Increment()) }
            try persistent.flush()
            persisted.append(monotonicNanoseconds() - start)
            transactions.append(db.lastCommittedTransactionID - before)
            guard db.object(ofType: StoreStateObject.self, forPrimaryKey: "bench")?.json.contains("\"count\":\(burst)") == true else {
                throw CheckFailure(description: "the persisted count is wrong")
            }
        }
        table.append([
            "\(formatCount(burst)) dispatches, no persistence (µs per burst)", fixed(median(plain) / 1_000, 1), "",
        ])
        table.append([
            "\(formatCount(burst)) dispatches persisted + flush, .noSync (µs per burst)", fixed(median(persisted) / 1_000, 1),
            fixed(median(persisted) / median(plain), 2) + "× the burst without persistence; \(transactions.max() ?? 0) write transaction(s)",
        ])

        // 3,000 subscribers.
        var notifyOurs: [UInt64] = [], notifyMinimal: [UInt64] = []
        for _ in 0..<repetitions {
            let store = Store(reducer: reducer, state: State(), automaticallySkipsRepeats: false)
            let subscribers = (0..<3_000).map { _ in Counter() }
            for subscriber in subscribers { store.subscribe(subscriber) { $0.select { $0.count } } }
            notifyOurs.append(dispatchTime(100) { store.dispatch($0) })
            let reference = ReferenceStore(reducer: reducer, state: State(), middleware: [])
            let referenceSubscribers = (0..<3_000).map { _ in ReferenceSubscriber<Int>() }
            for subscriber in referenceSubscribers { reference.subscribe(subscriber) { $0.select { $0.count } } }
            notifyMinimal.append(dispatchTime(100) { reference.dispatch($0) })
            guard subscribers.allSatisfy({ $0.last == 100 }), referenceSubscribers.allSatisfy({ $0.last == 100 }) else { throw CheckFailure(description: "subscribers missed a state") }
        }
        let oursNotify = median(notifyOurs) / 100 / 1_000, minimalNotify = median(notifyMinimal) / 100 / 1_000
        table.append(["one dispatch to 3,000 subscribers, reference store (µs)", fixed(minimalNotify, 1), "1.00×"])
        table.append(["one dispatch to 3,000 subscribers, ObjDBStore (µs)", fixed(oursNotify, 1), fixed(oursNotify / minimalNotify, 2) + "×"])
        return table.render()
    }
}

