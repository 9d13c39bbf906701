/// One version of a file, pinned for frozen databases, objects and collections.
///
/// Every frozen thing of one version shares one instance: one LMDB read transaction (one
/// reader slot), released when the last of them goes away. It is immutable and `Sendable`:
/// each read through it runs in a frozen ``Database`` instance of its own (``makeView()``),
/// so that the per-instance caches of a `Database` are never shared between threads, while
/// the transaction and the class information are (read-only).
final class FrozenVersion: @unchecked Sendable {
    /// The pinned transaction, prepared for reads from several threads at once; `nil` if none
    /// could begin (every reader slot taken), and then the version reads as empty.
    let transaction: ReadTransaction?
    /// Keeps the environment open.
    let lease: EnvironmentLease
    /// The version id (the LMDB transaction id); -1 without a transaction.
    let id: Int
    /// The configuration of the database that was frozen.
    let configuration: Configuration
    /// The canonical path of the file.
    let path: String
    /// The `meta` table.
    let metaTable: Table
    /// The file-format version of that database.
    let formatVersion: UInt32
    /// The classes as that version has them, with class information shared by every view
    /// (``ClassInfo/isShared``: no hint is written after this).
    let catalog: Catalog

    /// Pins the version `database` reads through `transaction` (its snapshot).
    convenience init(_ database: Database, transaction: ReadTransaction?) {
        self.init(
            transaction: transaction, lease: database.lease, configuration: database.configuration, path: database.path,
            meta: database.metaTable, formatVersion: database.formatVersion, sharedCatalog: database.catalog.copy(shared: true))
    }

    /// Pins the version `transaction` reads, with `catalog` (its class information shared).
    init(
        transaction: ReadTransaction?, lease: EnvironmentLease, configuration: Configuration, path: String, meta: Table,
        formatVersion: UInt32, sharedCatalog catalog: Catalog
    ) {
        transaction?.prepareForSharedReads()
        self.transaction = transaction
        self.lease = lease
        id = transaction?.id ?? -1
        self.configuration = configuration
        self.path = path
        metaTable = meta
        self.formatVersion = formatVersion
        self.catalog = catalog
    }

    /// A frozen `Database` instance reading this version, for use in one isolation domain.
    ///
    /// - Complexity: O(number of classes) for the copy of the catalog's tables of contents; no
    ///   read of the file.
    func makeView() -> Database {
        Database(
            configuration: configuration, path: path, lease: lease, meta: metaTable,
            formatVersion: formatVersion, catalog: catalog, frozen: self)
    }
}
