import Foundation

/// The serial executor of a ``SyncClient``: one thread of its own that runs the client's jobs in
/// order. LMDB's writer lock belongs to a thread and a download waits for it; on this thread the
/// wait blocks neither the cooperative pool nor the caller.
///
/// The thread holds the executor until ``shutdown()``, which the client calls when it goes
/// away; it then runs the jobs already queued and ends.
final class SyncThreadExecutor: SerialExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false

    /// Starts the thread, named `name` for debuggers and crash logs.
    init(name: String) {
        let thread = Thread { [self] in self.runJobs() }
        thread.name = name
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

    /// Lets the thread end once the jobs queued so far have run.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    /// Runs jobs until ``shutdown()``; waits without spinning when there are none.
    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
        }
    }
}
