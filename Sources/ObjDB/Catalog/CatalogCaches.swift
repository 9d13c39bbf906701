/// What a ``Database`` instance derives from its ``Catalog`` and keeps between calls.
///
/// ``forgetDerived()`` drops what a new catalog makes stale; the `ClassInfo` objects stay, since
/// managed objects point at theirs without retaining them.
struct CatalogCaches {
    /// Per class name: the link columns pointing to it (see ``Database/incomingLinks(_:)``).
    var incomingLinks: [String: [(origin: ClassInfo, column: Int)]] = [:]
    /// Classes by id, for the links of mixed values (see ``Database/classInfo(id:)``).
    var classesByID: [UInt32: ClassInfo] = [:]
    /// The mixed columns that track links, of every class (see ``Database/mixedLinkOrigins()``).
    var mixedLinkOrigins: [(origin: ClassInfo, column: Int)]?
    /// The last class found by ``Database/classInfo(for:)``: most calls ask for the same class again.
    var lastClassLookup: (type: ObjectIdentifier, info: ClassInfo)?
    /// The cache of the last class whose every object `objects(_:)` handed out: the query
    /// layer's, held here without knowing its type.
    var lastTableResultsCache: (type: ObjectIdentifier, cache: AnyObject)?
    /// Every `ClassInfo` the instance created, kept alive because objects do not retain theirs.
    var allClassInfos: [ClassInfo]

    /// Empty caches that keep `infos` alive.
    init(keeping infos: [ClassInfo]) { allClassInfos = infos }

    /// Forgets what was derived from the previous catalog.
    mutating func forgetDerived() {
        lastClassLookup = nil
        lastTableResultsCache = nil
        incomingLinks = [:]
        classesByID = [:]
        mixedLinkOrigins = nil
    }
}
