import CLMDBBench
import Foundation

/// The raw LMDB baseline of the relationship scenarios: what ObjDB must do, written by hand.
///
/// Rows are keyed by id (native `UInt64`, `MDB_INTEGERKEY`): `owner` → favorite pet id (8 bytes,
/// 0 for none) + UTF-8 name, `pet` → UTF-8 name, `owner_pets` → the owner's list as one value of
/// 8-byte pet ids. The inverse of each link property is a backlink table (see
/// ``lmdbDuplicateIntegerFlags``): `pet_owners` for the lists, `pet_fans` for `favorite`.
final class LMDBRelationships: RelationshipSystem {
    /// The column title.
    static let name = LMDBSystem.name
    /// The environment; `nil` once closed.
    private var env: OpaquePointer?
    /// Owner id → favorite pet id + name.
    private let owners: MDB_dbi
    /// Pet id → name.
    private let pets: MDB_dbi
    /// Owner id → list of pet ids.
    private let ownerPets: MDB_dbi
    /// Pet id → ids of the owners whose list holds it.
    private let petOwners: MDB_dbi
    /// Pet id → ids of the owners whose favorite it is.
    private let petFans: MDB_dbi
    /// The pet keys the append scenario appends, prepared untimed.
    private var appendKeys: [UInt64] = []
    /// The target pet keys of the linking-objects scenario.
    private var targets: [UInt64] = []

    /// Creates `links.mdb` in `directory` with its five tables.
    init(directory: String) throws {
        let integer = MDB_INTEGERKEY
        let (env, dbis) = try lmdbCreate(directory: directory, file: "links.mdb", tables: [
            ("owner", integer), ("pet", integer), ("owner_pets", integer),
            ("pet_owners", lmdbDuplicateIntegerFlags), ("pet_fans", lmdbDuplicateIntegerFlags),
        ])
        self.env = env
        (owners, pets, ownerPets, petOwners, petFans) = (dbis[0], dbis[1], dbis[2], dbis[3], dbis[4])
    }

    /// Writes `name` as the value of `key` in `dbi` after an 8-byte `prefix` when given, with `flags`.
    private func putRow(_ txn: OpaquePointer, _ dbi: MDB_dbi, key: Int, prefix: UInt64?, name: String, flags: Int32) throws {
        var name = name
        try name.withUTF8 { utf8 in
            try withVal(UInt64(key)) { key in
                let offset = prefix == nil ? 0 : 8
                var row = MDB_val(mv_size: offset + utf8.count, mv_data: nil)
                try lmdbCheck(mdb_put(txn, dbi, &key, &row, UInt32(flags | MDB_RESERVE)), "mdb_put")
                let bytes = row.mv_data!
                if let prefix { bytes.storeBytes(of: prefix, as: UInt64.self) }
                if let base = utf8.baseAddress { (bytes + offset).copyMemory(from: base, byteCount: utf8.count) }
            }
        }
    }

    /// Writes the owner (no favorite) and the pets in one transaction, appending in id order.
    func prepareList(_ work: ListWorkload) throws {
        try lmdbTransaction(env, readOnly: false) { txn in
            try putRow(txn, owners, key: ListWorkload.ownerID, prefix: 0, name: "Owner \(ListWorkload.ownerID)", flags: MDB_APPEND)
            for id in work.petIDs { try putRow(txn, pets, key: id, prefix: nil, name: "Pet \(id)", flags: MDB_APPEND) }
        }
        appendKeys = work.petIDs.map { UInt64($0) }
    }

    /// One write transaction: the list as one `MDB_RESERVE`d value, then one backlink put per element.
    func appendPets() throws {
        let keys = appendKeys
        try lmdbTransaction(env, readOnly: false) { txn in
            try withVal(UInt64(ListWorkload.ownerID)) { ownerKey in
                var list = MDB_val(mv_size: keys.count * 8, mv_data: nil)
                try lmdbCheck(mdb_put(txn, ownerPets, &ownerKey, &list, UInt32(MDB_RESERVE)), "mdb_put(owner_pets)")
                keys.withUnsafeBytes { list.mv_data!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                for key in keys {
                    try withVal(key) { try lmdbCheck(mdb_put(txn, petOwners, &$0, &ownerKey, 0), "mdb_put(pet_owners)") }
                }
            }
        }
    }

    /// `mdb_get` of the owner's list, read in order.
    func readList() throws -> ListChecksum {
        try lmdbTransaction(env, readOnly: true) { txn in
            var sum = ListChecksum()
            var list = MDB_val()
            let rc = withVal(UInt64(ListWorkload.ownerID)) { mdb_get(txn, ownerPets, &$0, &list) }
            if rc == MDB_NOTFOUND { return sum }
            try lmdbCheck(rc, "mdb_get(owner_pets)")
            let ids = UnsafeRawBufferPointer(start: list.mv_data, count: list.mv_size)
            for offset in stride(from: 0, to: ids.count, by: 8) {
                sum.add(Int(ids.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            }
            return sum
        }
    }

    /// For each pet, the duplicates of its `pet_owners` entry must be exactly the owner.
    func countBacklinked(_ petIDs: [Int]) throws -> Int {
        try lmdbTransaction(env, readOnly: true) { txn in
            try lmdbWithCursor(txn, petOwners) { cursor in
                var count = 0
                for id in petIDs {
                    var key = MDB_val()
                    var value = MDB_val()
                    let rc = withVal(UInt64(id)) { wanted -> Int32 in
                        key = wanted
                        return mdb_cursor_get(cursor, &key, &value, MDB_SET_KEY)
                    }
                    if rc == MDB_NOTFOUND { continue }
                    try lmdbCheck(rc, "mdb_cursor_get(pet_owners)")
                    var duplicates = 0
                    try lmdbCheck(mdb_cursor_count(cursor, &duplicates), "mdb_cursor_count")
                    if duplicates == 1, lmdbUInt64(value) == UInt64(ListWorkload.ownerID) { count += 1 }
                }
                return count
            }
        }
    }

    /// One transaction: the pets, then each owner's row and its `pet_fans` entry.
    func prepareLinks(_ work: LinkWorkload) throws {
        try lmdbTransaction(env, readOnly: false) { txn in
            for id in 1...work.pets { try putRow(txn, pets, key: id, prefix: nil, name: "Pet \(id)", flags: MDB_APPEND) }
            for (index, favorite) in work.favorites.enumerated() {
                let id = index + 1
                try putRow(txn, owners, key: id, prefix: UInt64(favorite), name: "Owner \(id)", flags: MDB_APPEND)
                try withVal(UInt64(favorite)) { petKey in
                    try withVal(UInt64(id)) { try lmdbCheck(mdb_put(txn, petFans, &petKey, &$0, 0), "mdb_put(pet_fans)") }
                }
            }
        }
        targets = work.targets.map { UInt64($0) }
    }

    /// One read transaction: per lookup `MDB_SET_KEY` + `MDB_NEXT_DUP` on `pet_fans`, and
    /// `mdb_get` of each owner row (whose favorite must be the target).
    func sumLinkingOwners(lookups: Int) throws -> LinkSum {
        let targets = self.targets
        return try lmdbTransaction(env, readOnly: true) { txn in
            try lmdbWithCursor(txn, petFans) { cursor in
                var sum = LinkSum()
                var key = MDB_val()
                var value = MDB_val()
                var row = MDB_val()
                for lookup in 0..<lookups {
                    let target = targets[lookup % targets.count]
                    var rc = withVal(target) { wanted -> Int32 in
                        key = wanted
                        return mdb_cursor_get(cursor, &key, &value, MDB_SET_KEY)
                    }
                    while rc == 0 {
                        var ownerKey = value
                        try lmdbCheck(mdb_get(txn, owners, &ownerKey, &row), "mdb_get(owner)")
                        guard lmdbUInt64(row) == target else {
                            throw CheckFailure(description: "LMDB: owner \(lmdbUInt64(value)) does not link pet \(target)")
                        }
                        sum.add(Int(lmdbUInt64(value)))
                        rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT_DUP)
                    }
                    if rc != MDB_NOTFOUND { try lmdbCheck(rc, "mdb_cursor_get(pet_fans)") }
                }
                return sum
            }
        }
    }

    /// Closes the environment.
    func close() {
        if let env { mdb_env_close(env) }
        env = nil
    }
}
