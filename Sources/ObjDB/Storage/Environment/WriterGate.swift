import Foundation

/// The order in which this process's writers take a file's writer lock: one writer at a time,
/// with a waiting task suspended instead of holding a thread.
///
/// LMDB's writer lock is a robust mutex in the lock file, owned by the thread that took it: a
/// write transaction must begin and end on one thread, and a thread waiting for the lock is
/// blocked. In front of it, the gate lets ``Database/asyncWrite(isolation:_:)`` wait for the
/// other writers *of this process* without blocking its executor. A writer holding the gate
/// then waits in `mdb_txn_begin` only for writers of other processes.
///
/// The gate is held only by code that runs: it is handed from a leaving writer to a blocked
/// thread, but waiting tasks are only woken to try again when the gate opens, and a task takes
/// it on its own executor. Handing it to a task whose executor is busy could deadlock — the
/// executor may be blocked in ``enter()`` itself, by a `write { }` on the same actor while its
/// `asyncWrite` waited. So threads go first, and tasks take turns among themselves.
///
/// Every write transaction of the process passes it
/// (``Environment/beginTransaction(readOnly:parent:gateEntered:)`` enters,
/// ``Environment/writeTransactionEnded(committed:)`` leaves): uncontended, that is one lock and
/// unlock each way.
final class WriterGate: @unchecked Sendable {
    private let lock = NSLock()
    /// Whether a writer holds the gate (or it was handed to a blocked thread not yet awake).
    private var held = false
    /// Blocked threads, oldest first.
    private var threads: [DispatchSemaphore] = []
    /// Suspended tasks by ticket, oldest first; a task woken to try again keeps its ticket.
    private var tasks: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    private var nextTicket: UInt64 = 0

    /// Takes the gate, blocking the thread while another writer of the process holds it.
    func enter() {
        let turn: DispatchSemaphore? = lock.withLock {
            if !held {
                held = true
                return nil
            }
            let semaphore = DispatchSemaphore(value: 0)
            threads.append(semaphore)
            return semaphore
        }
        turn?.wait()  // handed over: `held` stayed set
    }

    /// Takes the gate, suspending the task while another writer of the process holds it.
    ///
    /// The gate is taken on `isolation`'s executor, and the caller begins its transaction there
    /// without suspending again: a task that took the gate elsewhere and then waited to get
    /// back to its actor could wait behind a `write { }` of that actor blocked in ``enter()``.
    func enterSuspending(isolation: isolated (any Actor)? = #isolation) async {
        if tryTake() { return }
        var ticket: UInt64?
        while true {
            var taken = false
            await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
                taken = lock.withLock {
                    if !held {
                        held = true
                        return true
                    }
                    let mine = ticket ?? nextTicket
                    if ticket == nil { nextTicket += 1 }
                    ticket = mine
                    tasks.insert((mine, continuation), at: tasks.firstIndex { $0.ticket > mine } ?? tasks.endIndex)
                    return false
                }
                // Resumed before the closure returns: the task goes on without suspending.
                if taken { continuation.resume() }
            }
            if taken { return }
        }
    }

    /// Takes the gate if it is open.
    private func tryTake() -> Bool {
        lock.withLock {
            if held { return false }
            held = true
            return true
        }
    }

    /// Gives the gate to the thread that waited longest; else opens it and wakes every waiting
    /// task to try again (the first to run on its executor takes it; the others wait again in
    /// their order), so that a task whose executor is busy holds up no other.
    func leave() {
        let (thread, woken): (DispatchSemaphore?, [CheckedContinuation<Void, Never>]) = lock.withLock {
            if !threads.isEmpty { return (threads.removeFirst(), []) }
            held = false
            defer { tasks.removeAll(keepingCapacity: true) }
            return (nil, tasks.map(\.continuation))
        }
        thread?.signal()
        for continuation in woken { continuation.resume() }
    }

    /// Whether a writer holds the gate (for tests).
    var isHeld: Bool { lock.withLock { held } }

    /// How many threads and tasks wait (for tests).
    var waiting: (threads: Int, tasks: Int) { lock.withLock { (threads.count, tasks.count) } }
}
