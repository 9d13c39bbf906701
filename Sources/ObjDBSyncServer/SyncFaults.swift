import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Faults the reliability tests inject into a service process through its environment, to show
/// what a crash at the worst moment leaves behind. Off unless the variable is set.
enum SyncFaults {
    /// `OBJDB_SYNC_FAULT=die-mid-batch`: the process kills itself (SIGKILL) after applying the
    /// first operation of an upload of several (the first such upload of its transaction, which
    /// may have joined uploads queued behind: `SyncStore.apply`), inside the transaction.
    static let diesMidBatch = ProcessInfo.processInfo.environment["OBJDB_SYNC_FAULT"] == "die-mid-batch"

    /// Ends the process at once, as a power cut or an out-of-memory kill would.
    static func die() -> Never {
        kill(getpid(), SIGKILL)
        // SIGKILL cannot be caught; this line is never reached.
        abort()
    }
}
