import Foundation

/// The decrypted values of the newest version this process reads of an encrypted file, shared
/// by every snapshot of that version: snapshots of one version read the same bytes, so a value
/// one of them decrypted serves the others rather than being decrypted again into memory of
/// their own. `Database` instances on several threads, the snapshots of a parallel scan, and a
/// write transaction opening the row buckets of the version it starts from
/// (``BucketWrites``) all read it.
///
/// One version is shared at a time, the one whose snapshot began last, except that a snapshot of
/// an older version never displaces the live values of a newer one (it keeps its own). The values
/// live as long as the last snapshot of their version (each holds them), and not longer: this
/// object holds them weakly. So a snapshot that reads nothing, such as an idle instance's, keeps
/// what the other snapshots of its version decrypted until it ends or moves to a newer version.
final class SharedSnapshotValues: @unchecked Sendable {
    /// The lock of ``version`` and ``values``.
    private let lock = NSLock()
    /// The version ``values`` belong to; -1 for none.
    private var version = -1
    /// The shared values, while a snapshot holds them.
    private weak var values: DecryptedValues?

    /// The values a new snapshot of `version` reads: those of a live snapshot of it, else new
    /// ones, shared from now on unless a newer version's are live (a snapshot that began just
    /// before another thread's commit may ask after a snapshot of that commit did).
    func forSnapshot(of version: Int) -> DecryptedValues {
        lock.withLock {
            if self.version == version, let values { return values }
            let made = DecryptedValues(remembers: true)
            if self.version > version, values != nil { return made }
            self.version = version
            values = made
            return made
        }
    }

    /// The values of the live snapshots of `version`, if any.
    func ofLiveSnapshots(of version: Int) -> DecryptedValues? {
        lock.withLock { self.version == version ? values : nil }
    }
}
