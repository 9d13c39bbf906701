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
/// thread, but a waiting task is only woken to try again when the gate opens. Handing it to a
/// task whose executor is busy could deadlock — the executor may be blocked in ``enter()``
/// itself, by a `write { }` on the same actor while its `asyncWrite` waited. So threads go
/// first, and tasks take turns among themselves, oldest first.
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
    /// Suspended tasks, oldest first.
    private var tasks: [CheckedContinuation<Void, Never>] = []

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
    func enterSuspending() async {
        if tryTake() { return }
        var woken = false
        while true {
            var taken = false
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                taken = lock.withLock {
                    if !held {
                        held = true
                        return true
                    }
                    // A task woken to try again and beaten to it keeps its place at the front.
                    if woken { tasks.insert(continuation, at: 0) } else { tasks.append(continuation) }
                    return false
                }
                if taken { continuation.resume() }
            }
            if taken { return }
            woken = true
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

    /// Gives the gate to the thread that waited longest; else opens it and wakes the task that
    /// waited longest to try again.
    func leave() {
        let (thread, task): (DispatchSemaphore?, CheckedContinuation<Void, Never>?) = lock.withLock {
            if !threads.isEmpty { return (threads.removeFirst(), nil) }
            held = false
            return (nil, tasks.isEmpty ? nil : tasks.removeFirst())
        }
        thread?.signal()
        task?.resume()
    }

    /// Whether a writer holds the gate (for tests).
    var isHeld: Bool { lock.withLock { held } }
}
