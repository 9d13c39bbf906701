/// How much of a commit is on disk when ``Database/commitWrite()`` (or `write { }`) returns.
///
/// A commit writes the changed pages of the file, then its meta page, which makes the new version
/// the current one. What each mode promises when the machine loses power or the operating system
/// crashes (a crash of the app alone never loses a committed transaction, in any mode: the
/// operating system still writes what the app wrote):
///
/// | mode | flushes per commit | after a power loss |
/// |---|---|---|
/// | ``full`` (default) | 2: pages, then meta page | every committed transaction is there |
/// | ``normal`` | 1: pages | the file is intact; the last committed transaction may be missing |
/// | ``noSync`` | 0 | the last transactions may be missing; the file is intact only if the file system wrote the pages in the order ObjDB wrote them |
///
/// Each flush (`fdatasync`) waits for the disk, so the modes differ most for many small
/// transactions; the benchmark's `--durability` run measures one object per commit (see
/// `Docs/Performance.md`). Batching writes into fewer transactions helps in every mode.
///
/// Durability is a property of the open file: every instance on one file in one process must
/// use the same one (``ObjDBError/Code/incompatibleConfiguration`` otherwise). In-memory
/// databases use ``noSync``.
public enum Durability: Sendable, Hashable {
    /// Flush the changed pages, then the meta page, before a commit returns (LMDB's default):
    /// a committed transaction survives a power loss, as far as the disk honours flushes.
    case full
    /// Flush the changed pages before a commit returns, but not the meta page (LMDB's
    /// `MDB_NOMETASYNC`; like SQLite's `synchronous = NORMAL`): one flush per commit instead of
    /// two. The file's integrity is kept — the meta page only ever points to pages already on
    /// disk — but a power loss may undo the last committed transaction: its meta page reaches
    /// the disk with the next commit's flush, or whenever the operating system writes it back.
    case normal
    /// Flush nothing (LMDB's `MDB_NOSYNC`): the fastest commits. After a power loss or an
    /// operating-system crash the last transactions may be lost, and LMDB keeps the file
    /// consistent only on file systems that write pages to disk in the order they were written,
    /// which few promise: otherwise a meta page can reach the disk before the pages it points to,
    /// and the file can be damaged. Use it for data you can rebuild (caches, imports you can
    /// restart); or for files you can afford to lose.
    case noSync

    /// The LMDB sync flags of the mode.
    var syncMode: SyncMode {
        switch self {
        case .full: .full
        case .normal: .noMetaSync
        case .noSync: .noSync
        }
    }
}
