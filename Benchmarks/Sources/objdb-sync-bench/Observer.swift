import Foundation
import ObjDB

/// The change an observer waits for: object `id` with `name`, seen by the app instance of
/// client `client`, for sample `sample`.
struct Expected: Sendable {
    var sample: Int
    var client: Int
    var id: String
    var name: String
}

/// Where observers report an arrival and the measuring code waits for it (with a timeout),
/// without blocking a thread of the cooperative pool.
final class Arrivals: @unchecked Sendable {
    private let lock = NSLock()
    private var expected: Expected?
    private var arrived: [Int: UInt64] = [:]
    private var waiter: (Int, CheckedContinuation<UInt64?, Never>)?

    /// Sets what counts as the arrival of sample `e.sample`.
    func expect(_ e: Expected) { lock.withLock { expected = e } }

    /// Called by client `client`'s observer with an object's id and name as it sees them.
    func saw(client: Int, id: String, name: String) {
        let now = monotonicNanoseconds()
        lock.lock()
        guard let e = expected, e.client == client, e.id == id, e.name == name else {
            lock.unlock()
            return
        }
        expected = nil
        if let (sample, continuation) = waiter, sample == e.sample {
            waiter = nil
            lock.unlock()
            continuation.resume(returning: now)
        } else {
            arrived[e.sample] = now
            lock.unlock()
        }
    }

    /// The time sample `sample` arrived, or nil after `timeout`.
    func wait(_ sample: Int, timeout: Duration = .seconds(10)) async -> UInt64? {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.timeOut(sample)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            lock.lock()
            if let time = arrived.removeValue(forKey: sample) {
                lock.unlock()
                continuation.resume(returning: time)
            } else {
                waiter = (sample, continuation)
                lock.unlock()
            }
        }
    }

    private func timeOut(_ sample: Int) {
        lock.lock()
        guard let (s, continuation) = waiter, s == sample else {
            lock.unlock()
            return
        }
        waiter = nil
        lock.unlock()
        continuation.resume(returning: nil)
    }
}

/// A client's app instance: a `Database` of the client's file opened on this actor, so that
/// commits by other instances (the `SyncClient` applying a download) are delivered to its
/// observer on the actor's executor. The observer watches every `BenchItem` and reports the
/// objects inserted or modified.
actor AppObserver {
    let client: Int
    let arrivals: Arrivals
    private var database: Database?
    private var token: NotificationToken?

    init(client: Int, arrivals: Arrivals) {
        self.client = client
        self.arrivals = arrivals
    }

    /// Opens the file on this actor and observes; returns once the initial state was delivered.
    func start(_ configuration: Configuration) async throws {
        let db = try Database(configuration: configuration)
        database = db
        let arrivals = self.arrivals
        let client = self.client
        let (initial, initialDone) = AsyncStream<Void>.makeStream()
        token = db.objects(BenchItem.self).observe { change in
            switch change {
            case .initial:
                initialDone.yield()
                initialDone.finish()
            case .update(let results, _, let insertions, let modifications):
                for index in insertions + modifications where index < results.count {
                    let item = results[index]
                    arrivals.saw(client: client, id: item.id, name: item.name)
                }
            case .error(let error):
                progress("observer \(client): \(error)")
            }
        }
        db.refresh()
        for await _ in initial { break }
    }

    func stop() {
        token?.invalidate()
        token = nil
        database = nil
    }
}
