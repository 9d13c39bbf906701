import CLMDBBench
import Foundation

/// An LMDB return code other than success.
struct LMDBError: Error, CustomStringConvertible {
    /// The return code.
    let code: Int32
    /// The call that failed.
    let operation: String

    /// The call and LMDB's message.
    var description: String { "\(operation): \(String(cString: mdb_strerror(code)))" }
}

/// Throws ``LMDBError`` unless `code` is 0.
@inline(__always)
func lmdbCheck(_ code: Int32, _ operation: @autoclosure () -> String) throws {
    if code != 0 { throw LMDBError(code: code, operation: operation()) }
}

/// Runs `body` with an `MDB_val` pointing at the 8 native bytes of `value`.
@inline(__always)
func withVal<T>(_ value: UInt64, _ body: (inout MDB_val) throws -> T) rethrows -> T {
    var copy = value
    return try withUnsafeMutableBytes(of: &copy) { bytes in
        var val = MDB_val(mv_size: 8, mv_data: bytes.baseAddress)
        return try body(&val)
    }
}

/// The hand-written row of the raw LMDB baseline: age (Int64), score and created (Float64 bits,
/// seconds since 1970), then the name's UTF-8 bytes; 24 + name length bytes, little-endian.
enum LMDBRecord {
    /// Bytes before the name.
    static let headerSize = 24

    /// The encoded size of a row whose name has `nameCount` UTF-8 bytes.
    static func size(nameCount: Int) -> Int { headerSize + nameCount }

    /// Writes `person`'s row (with its name already as UTF-8) into `row`.
    @inline(__always)
    static func encode(_ person: PersonData, name: UnsafeBufferPointer<UInt8>, into row: UnsafeMutableRawPointer) {
        row.storeBytes(of: Int64(person.age).littleEndian, toByteOffset: 0, as: Int64.self)
        row.storeBytes(of: person.score.bitPattern.littleEndian, toByteOffset: 8, as: UInt64.self)
        row.storeBytes(of: person.created.timeIntervalSince1970.bitPattern.littleEndian, toByteOffset: 16, as: UInt64.self)
        if let base = name.baseAddress { (row + headerSize).copyMemory(from: base, byteCount: name.count) }
    }

    /// The age of a row.
    @inline(__always)
    static func age(_ row: MDB_val) -> Int {
        Int(Int64(littleEndian: UnsafeRawPointer(row.mv_data!).loadUnaligned(as: Int64.self)))
    }

    /// The id of a main-table key.
    @inline(__always)
    static func id(_ key: MDB_val) -> Int {
        Int(UnsafeRawPointer(key.mv_data!).loadUnaligned(as: UInt64.self))
    }

    /// Decodes a whole row and its key into a person.
    @inline(__always)
    static func decode(key: MDB_val, row: MDB_val) -> PersonData { decode(id: id(key), row: row) }

    /// Decodes a whole row whose id is known into a person.
    @inline(__always)
    static func decode(id: Int, row: MDB_val) -> PersonData {
        let bytes = UnsafeRawPointer(row.mv_data!)
        let score = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let created = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        let name = UnsafeRawBufferPointer(start: bytes + headerSize, count: row.mv_size - headerSize)
        return PersonData(
            id: id, name: String(decoding: name, as: UTF8.self), age: age(row),
            score: Double(bitPattern: score), created: Date(timeIntervalSince1970: Double(bitPattern: created)))
    }
}

/// Writes one person's row under its id, reserved in place (`flags | MDB_RESERVE`), then its
/// entries in the age index and, if given, the name index.
@inline(__always)
func lmdbPutPerson(_ person: PersonData, _ txn: OpaquePointer, main: MDB_dbi, ages: MDB_dbi?, names: MDB_dbi?, flags: Int32) throws {
    var name = person.name
    try name.withUTF8 { utf8 in
        try withVal(UInt64(person.id)) { key in
            var row = MDB_val(mv_size: LMDBRecord.size(nameCount: utf8.count), mv_data: nil)
            try lmdbCheck(mdb_put(txn, main, &key, &row, UInt32(flags | MDB_RESERVE)), "mdb_put")
            LMDBRecord.encode(person, name: utf8, into: row.mv_data!)
            if let names {
                var nameKey = MDB_val(mv_size: utf8.count, mv_data: UnsafeMutableRawPointer(mutating: utf8.baseAddress))
                try lmdbCheck(mdb_put(txn, names, &nameKey, &key, 0), "mdb_put(person_name)")
            }
            if let ages {
                try withVal(UInt64(person.age)) { try lmdbCheck(mdb_put(txn, ages, &$0, &key, 0), "mdb_put(person_age)") }
            }
        }
    }
}
