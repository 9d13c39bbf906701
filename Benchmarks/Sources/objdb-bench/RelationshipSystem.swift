/// One database system under test in the `--relationships` scenarios, opened on a directory of
/// its own.
///
/// Each scenario has an untimed `prepare…` step that stores the data and keeps in memory what the
/// timed step starts from (ObjDB: the managed objects), the timed step, and untimed reads that
/// check the result.
protocol RelationshipSystem: AnyObject {
    /// The column title, as in the main table.
    static var name: String { get }
    /// Creates the database and its tables in `directory`.
    init(directory: String) throws

    /// Stores owner ``ListWorkload/ownerID`` with an empty list and the pets of `work`, and
    /// keeps what ``appendPets()`` appends.
    func prepareList(_ work: ListWorkload) throws
    /// Timed: appends every pet to the owner's list, one by one, in one write transaction.
    func appendPets() throws
    /// The owner's list, read back in order.
    func readList() throws -> ListChecksum
    /// How many of the pets `petIDs` are linked back to by exactly the one owner.
    func countBacklinked(_ petIDs: [Int]) throws -> Int

    /// Stores the pets and owners of `work` with their links, and keeps the targets.
    func prepareLinks(_ work: LinkWorkload) throws
    /// Timed: `lookups` times, reads the owners linking the next target and sums their ids.
    func sumLinkingOwners(lookups: Int) throws -> LinkSum

    /// Closes the database; the instance is not used afterwards.
    func close()
}

/// The three systems in the order they run in every round.
var allRelationshipSystems: [any RelationshipSystem.Type] {
    [ObjDBRelationships.self, LMDBRelationships.self, GRDBRelationships.self]
}

/// What each system stores and does in the `--relationships` scenarios, printed with the tables.
let relationshipSettings = """
    Same settings as above (durable commits, fresh database per run, setup untimed and followed by `sync`; the lookups timed after one untimed run of themselves).
    - ObjDB: `Owner` (`id` primary key, `name`, `favorite: Pet?`, `pets: List<Pet>`) and `Pet` (`id` primary key, \
    `name`, `owners: LinkingObjects<Owner>` of `pets`, `fans: LinkingObjects<Owner>` of `favorite`).
    - LMDB: `MDB_INTEGERKEY` tables `owner` (id → favorite pet id + name), `pet` (id → name), `owner_pets` \
    (owner id → the list as one value of 8-byte pet ids); backlink tables `pet_owners`, `pet_fans` \
    (`MDB_DUPSORT|MDB_INTEGERKEY|MDB_INTEGERDUP|MDB_DUPFIXED`, pet id → owner id).
    - GRDB: tables `pet(id INTEGER PRIMARY KEY, name)`, `owner(id INTEGER PRIMARY KEY, name, favorite_pet_id)` \
    indexed on `favorite_pet_id`, join table `owner_pet(owner_id, position, pet_id, PRIMARY KEY(owner_id, position))` \
    indexed on `pet_id`; no foreign keys.
    - Append: ObjDB `write { for pet in pets { owner.pets.append(pet) } }` with the managed pets fetched untimed; \
    LMDB one write txn: `mdb_put(MDB_RESERVE)` of the N × 8-byte list + one `mdb_put` per element into `pet_owners`; \
    GRDB one `write`: a cached prepared `INSERT INTO owner_pet … VALUES (?, ?, ?)`, `execute(arguments:)` per row.
    - LinkingObjects: 10,000 lookups cycling over 1,000 target pets (each linked by 10 owners through `favorite`, \
    spread over all ids), summing the owners' ids. ObjDB `for owner in target.fans` with the 1,000 managed targets fetched \
    untimed; LMDB one read txn, `MDB_SET_KEY` + `MDB_NEXT_DUP` on `pet_fans` and `mdb_get` of each owner row; \
    GRDB one `read`, cached prepared `SELECT * FROM owner WHERE favorite_pet_id = ?`, `Codable` record `fetchCursor`.
    """
