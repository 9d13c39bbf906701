import Foundation

/// The serial executor of a ``SyncClient``: one thread of its own that runs the client's jobs in
/// order. LMDB's writer lock belongs to a thread and a download waits for it; on this thread the
/// wait blocks neither the cooperative pool nor the caller.
final class SyncThreadExecutor: SerialExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var thread: Thread?

    /// Starts the thread, named `name` for debuggers and crash logs.
    init(name: String) {
        let thread = Thread { [unowned self] in self.runJobs() }
        thread.name = name
        self.thread = thread
        thread.start()
    }

    /// Queues a job; the thread runs it after those queued before it.
    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    /// The executor as the runtime refers to it.
    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Runs jobs for ever: the client holds its executor for its whole life, and the thread
    /// waits without spinning when there are none.
    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
        }
    }
}
