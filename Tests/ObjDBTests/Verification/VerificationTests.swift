import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `Database.verify()` finds each kind of damage, made through the raw storage layer, and calls
/// healthy files healthy; reads report damaged rows through the read-failure channel.
@Suite(.serialized)
struct VerificationTests {
    let directory = TemporaryDirectory()

    /// A database with every kind of table: primary keys, an index, links, lists, sets, maps,
    /// embedded objects.
    func populated() throws -> Database {
        let db = try directory.open([Person.self, Owner.self, Note.self])
        try db.write {
            for i in 1...200 { try db.add(person(i, "name \(i % 17)", age: i % 5 == 0 ? nil : i)) }
            for i in 1...20 {
                let owner = Owner()
                owner.id = i
                owner.name = "owner \(i)"
                for j in 0..<3 {
                    let pet = Pet()
                    pet.id = i * 10 + j
                    pet.name = "pet \(j)"
                    owner.pets.append(pet)
                }
                owner.favorite = owner.pets.first
                owner.tags.append(contentsOf: ["a", "b\(i)"])
                owner.numbers.append(contentsOf: [1, nil, i])
                owner.nicknames.insert("nick \(i)")
                owner.scores["x"] = Double(i)
                owner.petsByName["first"] = owner.pets.first
                let address = Address()
                address.city = "city \(i)"
                owner.address = address
                try db.add(owner)
            }
        }
        return db
    }

    /// Runs `change` in a raw write transaction on the file of `db` (bypassing ObjDB's writes).
    func damage(_ db: Database, _ change: (Txn, Database) throws -> Void) throws {
        let write = try WriteTransaction(db.environment)
        try change(write.txn, db)
        try write.commit()
        db.refresh()
    }

    func info(_ db: Database, _ type: ObjectBase.Type) throws -> ClassInfo {
        try #require(try db.classInfo(for: type))
    }

    @Test func aPopulatedDatabaseIsHealthy() throws {
        let db = try populated()
        let report = try db.verify()
        #expect(report.isHealthy, "\(report)")
        #expect(report.objectsChecked["Person"] == 200)
        #expect(report.objectsChecked["Owner"] == 20)
        #expect(report.objectsChecked["Pet"] == 60)
        #expect(report.objectsChecked["Address"] == 20)
        #expect(report.rowsWithoutChecksum == 0)
        #expect(report.pagesChecked > 10)
        // The same through the file, without the database.
        #expect(try Database.verify(fileAt: directory.file()).isHealthy)
    }

    @Test func aChangedValueFailsItsChecksum() throws {
        let db = try populated()
        let people = try info(db, Person.self)
        try damage(db) { txn, _ in
            let bytes = try #require(try txn.get(people.objectsTable, key: 7))
            var row = Array(bytes)
            // "name 7" → "name 8": still a valid string, only the checksum can tell.
            let index = try #require(row.lastIndex(of: UInt8(ascii: "7")))
            row[index] = UInt8(ascii: "8")
            try row.withUnsafeBytes { _ = try txn.put(people.objectsTable, key: 7, value: $0) }
        }
        let report = try db.verify()
        #expect(report.problems.contains { $0.kind == .checksum && $0.className == "Person" && $0.objectKey == 7 }, "\(report)")
    }

    @Test func aMissingIndexEntryAndAnExtraOneAreFound() throws {
        let db = try populated()
        let people = try info(db, Person.self)
        let column = try people.column(named: "name")
        let index = try #require(people.tables.indexes[column])
        try damage(db) { txn, _ in
            var key: [UInt8] = [KeyEncoding.valueTag] + Array("name 3".utf8)
            var objectKey: UInt64 = 3
            _ = try key.withUnsafeBytes { k in try withUnsafeBytes(of: &objectKey) { try txn.delete(index, key: k, value: $0) } }
            key = [KeyEncoding.valueTag] + Array("nobody".utf8)
            objectKey = 5
            try key.withUnsafeBytes { k in try withUnsafeBytes(of: &objectKey) { _ = try txn.put(index, key: k, value: $0) } }
        }
        let problems = try db.verify().problems.filter { $0.kind == .index }
        #expect(problems.contains { $0.message.contains("missing") && $0.objectKey == 3 }, "\(problems)")
        #expect(problems.contains { $0.message.contains("does not give") && $0.objectKey == 5 }, "\(problems)")
    }

    @Test func aMissingPrimaryKeyEntryIsFound() throws {
        let db = try populated()
        let people = try info(db, Person.self)
        let table = try #require(people.primaryKeyTable)
        try damage(db) { txn, _ in
            _ = try KeyEncoding.integerKey(42).withUnsafeBytes { try txn.delete(table, key: $0, value: nil) }
        }
        let problems = try db.verify().problems
        #expect(problems.contains { $0.kind == .primaryKey && $0.objectKey == 42 }, "\(problems)")
    }

    @Test func aRemovedBacklinkAndALinkToNothingAreFound() throws {
        let db = try populated()
        let owners = try info(db, Owner.self)
        let pets = try info(db, Pet.self)
        let column = try owners.column(named: "favorite")
        let backlinks = try #require(owners.tables.backlinks[column])
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 4))
        let favorite = try #require(owner.favorite)
        let (ownerKey, petKey) = (owner._objdbKey, favorite._objdbKey)
        try damage(db) { txn, _ in
            var target = petKey
            var origin = ownerKey
            _ = try withUnsafeBytes(of: &target) { t in try withUnsafeBytes(of: &origin) { try txn.delete(backlinks, key: t, value: $0) } }
            // A pet row deleted behind ObjDB's back: links to it now point to nothing.
            try txn.delete(pets.objectsTable, key: 1)
        }
        let problems = try db.verify().problems
        #expect(problems.contains { $0.kind == .backlink && $0.message.contains("missing") && $0.objectKey == ownerKey }, "\(problems)")
        #expect(problems.contains { $0.kind == .link && $0.message.contains("does not exist") }, "\(problems)")
    }

    @Test func anEmbeddedObjectWithoutParentIsFound() throws {
        let db = try populated()
        let owners = try info(db, Owner.self)
        let column = try owners.column(named: "address")
        try damage(db) { txn, db in
            // Owner 2's row rewritten with a null address, through the row builder.
            let key = try #require(db.object(ofType: Owner.self, forPrimaryKey: 2))._objdbKey
            let bytes = try #require(try txn.get(owners.objectsTable, key: key))
            let row = try #require(RowView(bytes))
            let builder = RowBuilder()
            for c in 0..<owners.columnCount { c == column ? builder.append(raw: nil) : builder.append(row.column(c)) }
            try builder.encoded(key: key).withUnsafeBytes { _ = try txn.put(owners.objectsTable, key: key, value: $0) }
        }
        let problems = try db.verify().problems
        #expect(problems.contains { $0.kind == .link && $0.className == "Address" && $0.message.contains("no parent") }, "\(problems)")
    }

    @Test func aDamagedSchemaOrCounterIsFound() throws {
        let db = try populated()
        try damage(db) { txn, db in
            try FileMeta.writeUInt64(txn, db.metaTable, FileMeta.Key.nextKey(1), 3)
        }
        let problems = try Database.verify(fileAt: directory.file()).problems
        #expect(problems.contains { $0.kind == .meta && $0.message.contains("checksum") }, "\(problems)")
        #expect(problems.contains { $0.kind == .meta && $0.message.contains("key counter") }, "\(problems)")
    }

    /// Damage inside LMDB's pages: a leaf page's flags, and a node offset pointing outside the
    /// page. LMDB's cursor would assert on both; the walk reports them.
    @Test(arguments: [10, 16])
    func damagedPagesAreReportedNotCrashedOn(_ offsetInPage: Int) throws {
        // The leaf page of the Person table that holds its last row, found through LMDB in the
        // current version (a page found by its flags alone could be a free one).
        let (page, pageSize): (Int, Int) = try {
            let db = try populated()
            let info = try #require(try db.classInfo(for: Person.self))
            let txn = try db.requireReadableTxn()
            let entry = try #require(try Cursor(txn, info.tables.objects).last())
            let nodeAddress = UInt(bitPattern: entry.key.baseAddress) - 8
            let pageStart = try #require(UnsafeRawPointer(bitPattern: nodeAddress & ~UInt(txn.environment.pageSize - 1)))
            #expect(pageStart.loadUnaligned(fromByteOffset: 10, as: UInt16.self) == 0x02)  // a leaf
            return (Int(pageStart.loadUnaligned(as: UInt64.self)), txn.environment.pageSize)
        }()
        let url = directory.file()
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[page * pageSize + offsetInPage] ^= 0xFF
        try Data(bytes).write(to: url)
        let report = try Database.verify(fileAt: url)
        #expect(!report.isHealthy)
        #expect(report.problems.contains { [.page, .keyOrder, .accounting].contains($0.kind) }, "\(report)")
    }

    @Test func verifiesFileOnOpenRefusesADamagedFileAndOpensAHealthyOne() throws {
        do { _ = try populated() }
        var config = directory.configuration([Person.self, Owner.self, Note.self])
        config.verifiesFileOnOpen = true
        do { _ = try Database(configuration: config) }
        // A byte of a row changed on disk: the open that verifies refuses the file.
        let url = directory.file()
        var bytes = [UInt8](try Data(contentsOf: url))
        let needle = Array("owner 13".utf8)
        let at = try #require((0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) })
        bytes[at + needle.count - 1] = UInt8(ascii: "4")
        try Data(bytes).write(to: url)
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: config) }
        #expect(error.code == .corruptFile)
        #expect(error.message.contains("checksum"), "\(error.message)")
        // Without the check it opens, and reading the row reports the damage.
        let failures = FailureBox()
        var plain = directory.configuration([Person.self, Owner.self, Note.self])
        plain.readFailureHandler = { failures.append($0) }
        let db = try Database(configuration: plain)
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 13))
        #expect(owner.name == "owner 14")
        #expect(failures.errors.contains { $0.code == .corruptFile && $0.className == "Owner" && $0.message.contains("checksum") })
    }

    @Test func readingADamagedRowReportsItThroughTheHandler() throws {
        let failures = FailureBox()
        var config = directory.configuration([Person.self])
        config.readFailureHandler = { failures.append($0) }
        let db = try Database(configuration: config)
        try db.write { try db.add(person(1, "Ann", age: 30)) }
        let people = try info(db, Person.self)
        let ann = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        // Not a row at all: every property reads as its default, and the failure is reported.
        try damage(db) { txn, _ in
            try [UInt8](repeating: 0xEE, count: 40).withUnsafeBytes { _ = try txn.put(people.objectsTable, key: ann._objdbKey, value: $0) }
        }
        #expect(ann.name == "")
        #expect(failures.errors.contains { $0.code == .corruptFile && $0.className == "Person" && $0.key == "\(ann._objdbKey)" })
        // A row whose age column holds 3 bytes (no integer has 3): the getter reports that property.
        failures.removeAll()
        try damage(db) { txn, _ in
            let builder = RowBuilder()
            [UInt8]([1]).withUnsafeBytes { builder.append(raw: $0) }           // id 1
            Array("Ann".utf8).withUnsafeBytes { builder.append(raw: $0) }      // name
            [UInt8]([1, 2, 3]).withUnsafeBytes { builder.append(raw: $0) }     // age: 3 bytes
            Array("regular".utf8).withUnsafeBytes { builder.append(raw: $0) }  // kind
            try builder.encoded(key: ann._objdbKey).withUnsafeBytes { _ = try txn.put(people.objectsTable, key: ann._objdbKey, value: $0) }
        }
        #expect(ann.name == "Ann")
        #expect(ann.age == nil)
        #expect(failures.errors.contains { $0.propertyName == "age" && $0.className == "Person" })
        #expect(failures.errors.count == 1)
    }

    /// Scans read the columns they test without the checksum, but bytes that are not a row at
    /// all are reported, by filters, counts and sorts alike, and the row counts as all defaults.
    @Test func aScanOverBytesThatAreNotARowReportsThem() throws {
        let failures = FailureBox()
        var config = directory.configuration([Person.self])
        config.readFailureHandler = { failures.append($0) }
        let db = try Database(configuration: config)
        try db.write { for i in 1...300 { try db.add(person(i, "p\(i)", age: i)) } }
        let people = try info(db, Person.self)
        let victim = try #require(db.object(ofType: Person.self, forPrimaryKey: 150))._objdbKey
        try damage(db) { txn, _ in
            try [UInt8](repeating: 0xEE, count: 40).withUnsafeBytes { _ = try txn.put(people.objectsTable, key: victim, value: $0) }
        }
        let all = db.objects(Person.self)
        #expect(try all.filter("age > 100").count == 199)  // 101…300 but the damaged 150
        #expect(failures.errors.contains { $0.code == .corruptFile && $0.message.contains("object key \(victim)") && $0.message.contains("not a row") },
                "\(failures.errors)")
        failures.removeAll()
        #expect(all.sorted(by: \.age).prefix(2).map(\.id) == [0, 1])  // the damaged row sorts as age nil
        #expect(failures.errors.contains { $0.code == .corruptFile }, "\(failures.errors)")
    }
}

/// Collects errors from a `@Sendable` handler.
final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [ObjDBError] = []

    func append(_ error: ObjDBError) { lock.withLock { stored.append(error) } }
    func removeAll() { lock.withLock { stored.removeAll() } }
    var errors: [ObjDBError] { lock.withLock { stored } }
}
