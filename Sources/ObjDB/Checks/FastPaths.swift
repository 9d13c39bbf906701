import Foundation

/// ObjDB's fast paths, each of which can be switched off on its own, so that a wrong answer can
/// be traced to one of them (see `Docs/Architecture.md`, "Fast paths and their checks").
///
/// Every fast path has a slow twin that gives the same answer: switching one off makes ObjDB use
/// the twin. Set the environment variable `OBJDB_DISABLE_FAST_PATHS` to a comma-separated list of
/// names (or `all`) before the process first uses ObjDB:
///
/// ```sh
/// OBJDB_DISABLE_FAST_PATHS=leafPages,rowKernels swift test --filter QueryDifferentialTests
/// ```
///
/// Builds with internal checks (`OBJDB_INTERNAL_CHECKS`, on in debug builds, so `swift test`
/// runs with them; see ``internalChecksEnabled``) also compare each fast path with its twin where
/// it runs and stop with "Internal check failed" on any difference
/// (``internalCheck(_:_:file:line:)``).
package struct FastPaths: OptionSet, Sendable {
    package let rawValue: UInt32

    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Table scans read LMDB's leaf pages in place (``LeafPage``, ``RowWalk``) rather than
    /// stepping the cursor row by row.
    static let leafPages = FastPaths(rawValue: 1 << 0)
    /// Integer primary-key lookups read the row at a guessed object key (``KeyDistanceHint``)
    /// rather than searching the primary-key table.
    static let keyGuesses = FastPaths(rawValue: 1 << 1)
    /// Row tests run in loops compiled for the filter's shape (``RowFilter/Kernel``) rather than
    /// through the filter's general loop.
    static let rowKernels = FastPaths(rawValue: 1 << 2)
    /// Full scans gather keys without a branch on each row's outcome (``MatchingKeys``) rather
    /// than appending matches one by one.
    static let branchFreeScans = FastPaths(rawValue: 1 << 3)
    /// Large table scans split among threads (``ParallelScan``).
    static let parallelScans = FastPaths(rawValue: 1 << 4)
    /// Iteration re-points an object nobody else holds at the next row (``ResultsIterator``)
    /// rather than allocating a new one.
    static let objectRecycling = FastPaths(rawValue: 1 << 5)
    /// A write transaction logs new index entries and writes them grouped by value
    /// (``PendingIndexEntries``) rather than one put each.
    static let groupedIndexWrites = FastPaths(rawValue: 1 << 6)
    /// Observed results in key order whose filter reads each object's own row are updated from
    /// a commit's change set (``IncrementalKeys``) rather than evaluated again.
    static let incrementalResults = FastPaths(rawValue: 1 << 7)
    /// A migration rewrites a class's rows as `enumerateObjects` reaches them (``FusedRewrite``)
    /// rather than all of them before the block.
    static let fusedMigrations = FastPaths(rawValue: 1 << 8)
    /// An equality answered by one index key, when only the first match is wanted, reads that
    /// key's first entry with one `mdb_get` (``QueryPlanner/firstKeyOfPointLookup(_:txn:limit:)``)
    /// rather than through a cursor.
    static let indexPointLookups = FastPaths(rawValue: 1 << 9)
    /// Observed results sorted by columns of their class, whose filter reads each object's own
    /// row, place the objects a commit changed by binary search (``IncrementalSortedKeys``)
    /// rather than evaluating and sorting again.
    static let incrementalSortedResults = FastPaths(rawValue: 1 << 10)
    /// A sync download writes plain values of plain-typed columns from their ``SyncValue``
    /// directly (``ClassInfo/typedSyncBytes(_:column:into:)``) rather than converting each
    /// through `Any` as ``Database/createDynamicObject(_:value:update:)`` does.
    static let typedDownloads = FastPaths(rawValue: 1 << 11)
    /// An encrypted file's values are sealed and opened, and index keys hashed, by BoringSSL's
    /// C functions with a key schedule prepared once and no allocation (``DirectCipher``), rather
    /// than through swift-crypto's API, which prepares the key and allocates at every call.
    static let directCipher = FastPaths(rawValue: 1 << 12)
    /// Observed sections whose objects are consecutive follow a commit from the results' change
    /// alone (``IncrementalSections``) rather than through one pass over the results.
    static let incrementalSections = FastPaths(rawValue: 1 << 13)
    /// The sync service's fan-out selects the sessions a changed object goes to by looking its
    /// values up among theirs (`FanoutSelector`, in ObjDBSyncServer) rather than testing each
    /// session's view.
    package static let fanoutLookups = FastPaths(rawValue: 1 << 14)
    /// The sync service encodes an upload's runs of creates straight into the columns of their
    /// multi-row insert (`InsertColumns`, in ObjDBSyncServer) rather than each operation's
    /// cells first and the columns from them.
    package static let insertColumns = FastPaths(rawValue: 1 << 15)
    /// An encrypted file's primary-key and index entries wait in the write transaction and are
    /// written sorted when their table is next used or at commit (``DeferredKeyPuts``), rather
    /// than each put at once at a random place of the table.
    static let deferredKeyPuts = FastPaths(rawValue: 1 << 16)
    /// An encrypted file's short values of tables keyed by integers (rows, the change log, the
    /// outbox) are sealed sixteen consecutive keys to an AES-GCM message (``RowBucket``,
    /// ``BucketWrites``) rather than each on its own. Both are valid in one file; the switch
    /// decides how values are written, never how they are read.
    static let rowBuckets = FastPaths(rawValue: 1 << 17)

    /// Every fast path, with the name `OBJDB_DISABLE_FAST_PATHS` knows it by.
    static let named: [(name: String, path: FastPaths)] = [
        ("leafPages", .leafPages), ("keyGuesses", .keyGuesses), ("rowKernels", .rowKernels),
        ("branchFreeScans", .branchFreeScans), ("parallelScans", .parallelScans),
        ("objectRecycling", .objectRecycling), ("groupedIndexWrites", .groupedIndexWrites),
        ("incrementalResults", .incrementalResults), ("fusedMigrations", .fusedMigrations),
        ("indexPointLookups", .indexPointLookups), ("incrementalSortedResults", .incrementalSortedResults),
        ("typedDownloads", .typedDownloads),
        ("directCipher", .directCipher), ("incrementalSections", .incrementalSections), ("fanoutLookups", .fanoutLookups),
        ("insertColumns", .insertColumns), ("deferredKeyPuts", .deferredKeyPuts),
        ("rowBuckets", .rowBuckets),
    ]

    /// Every fast path.
    static let all = FastPaths(named.map(\.path))

    /// The fast paths from a comma-separated list of names (`all` for every one); unknown names
    /// are ignored.
    init(names list: String) {
        var paths: FastPaths = []
        for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if name == "all" { paths = .all }
            if let found = Self.named.first(where: { $0.name == name }) { paths.insert(found.path) }
        }
        self = paths
    }

    /// The fast paths in use: all but those `OBJDB_DISABLE_FAST_PATHS` names, read once.
    package static let enabled: FastPaths = {
        let disabled = ProcessInfo.processInfo.environment["OBJDB_DISABLE_FAST_PATHS"].map { FastPaths(names: $0) } ?? []
        return FastPaths.all.subtracting(disabled)
    }()

    /// Tests only: fast paths made to give a wrong answer, so that a test can see the internal
    /// check catch it (`OBJDB_BREAK_FAST_PATHS`, same names). Empty without internal checks.
    static let broken: FastPaths = {
        #if OBJDB_INTERNAL_CHECKS
        guard internalChecksEnabled else { return [] }
        return ProcessInfo.processInfo.environment["OBJDB_BREAK_FAST_PATHS"].map { FastPaths(names: $0) } ?? []
        #else
        return []
        #endif
    }()
}

/// Whether this process compares fast paths with their slow twins and checks ObjDB's invariants
/// (``FastPaths``, ``internalCheck(_:_:file:line:)``), read once.
///
/// The checks are compiled into builds with `OBJDB_INTERNAL_CHECKS` (ObjDB's debug builds) and
/// run in ObjDB's own test process, `ObjDBPackageTests`. An application's debug build compiles
/// ObjDB with them too but leaves them off, since they cost far more than the paths they check;
/// set the environment variable `OBJDB_INTERNAL_CHECKS=1` to run them there (`0` turns them off
/// in ObjDB's tests).
package let internalChecksEnabled: Bool = {
    #if OBJDB_INTERNAL_CHECKS
    if let value = ProcessInfo.processInfo.environment["OBJDB_INTERNAL_CHECKS"] { return value != "0" }
    return CommandLine.arguments.contains { $0.contains("ObjDBPackageTests") }
    #else
    return false
    #endif
}()

/// Stops the program with "Internal check failed" and `message` unless `condition` holds: a fast
/// path disagreed with its slow twin, or an invariant the code relies on did not hold — an ObjDB
/// bug. Call it only inside `#if OBJDB_INTERNAL_CHECKS` and where ``internalChecksEnabled``, so
/// release builds pay nothing and applications' debug builds next to nothing.
@inline(__always)
package func internalCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if _slowPath(!condition()) {
        objdbFatal("Internal check failed: \(message()) (an ObjDB bug; please report it)", file: file, line: line)
    }
}
