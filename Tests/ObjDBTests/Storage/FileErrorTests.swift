import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Files that are not ObjDB databases, newer, truncated or damaged give errors, never crashes,
/// and are left unchanged.
@Suite(.serialized)
struct FileErrorTests {
    let directory = TemporaryDirectory()

    func contents(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    /// Creates a database file with `count` notes and closes it.
    func makeDatabase(notes count: Int) throws -> URL {
        let db = try directory.open([Note.self])
        try db.write {
            for i in 0..<count {
                let note = Note()
                note.text = String(repeating: "n\(i)", count: 20)
                try db.add(note)
            }
        }
        return directory.file()
    }

    @Test func garbageFileIsRefusedAndLeftAlone() throws {
        let url = directory.file()
        var generator = SystemRandomNumberGenerator()
        let garbage = Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try garbage.write(to: url)
        let error = try #require(throws: ObjDBError.self) { try directory.open() }
        #expect(error.code == .notAnObjDBFile)
        #expect(error.path == url.path)
        #expect(error.description.contains("not an ObjDB"))
        #expect(try contents(url) == garbage)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-lock"))
    }

    @Test func textFileIsRefused() throws {
        let url = directory.file()
        let text = Data(String(repeating: "hello, world\n", count: 1000).utf8)
        try text.write(to: url)
        #expect(throws: ObjDBError.self) { try directory.open() }
        #expect(try contents(url) == text)
    }

    @Test func foreignLMDBFileIsRefusedAndLeftAlone() throws {
        let url = directory.file()
        do {
            // An LMDB file with a table ObjDB did not create.
            let lease = try EnvironmentRegistry.shared.acquire(path: url.path, options: EnvironmentOptions(mapSize: 1 << 24))
            let write = try WriteTransaction(lease.environment)
            let table = try write.openTable(named: "somebody-elses", flags: .plain)
            try [UInt8]([1, 2, 3]).withUnsafeBytes { key in
                _ = try write.txn.put(table, key: key, value: key)
            }
            try write.commit()
        }
        let before = try contents(url)
        let error = try #require(throws: ObjDBError.self) { try directory.open() }
        #expect(error.code == .notAnObjDBFile)
        #expect(try contents(url) == before)
    }

    @Test func newerFormatIsRefusedAndLeftAlone() throws {
        let url = try makeDatabase(notes: 3)
        do {
            let lease = try EnvironmentRegistry.shared.acquire(path: url.path, options: EnvironmentOptions(mapSize: 1 << 24))
            let meta = try #require(try lease.environment.existingTable(named: TableName.meta, flags: .plain))
            let write = try WriteTransaction(lease.environment)
            try withUnsafeBytes(of: UInt32(99).littleEndian) { try FileMeta.put(write.txn, meta, FileMeta.Key.format, Array($0)) }
            try write.commit()
        }
        let before = try contents(url)
        let error = try #require(throws: ObjDBError.self) { try directory.open([Note.self]) }
        #expect(error.code == .newerFileFormat)
        #expect(error.message.contains("format version 99"))
        #expect(try contents(url) == before)
    }

    @Test(arguments: [100, 4096, 8192, 12288])
    func truncatedFileIsRefused(_ length: Int) throws {
        let url = try makeDatabase(notes: 2_000)
        let full = try contents(url)
        #expect(full.count > 3 * 12288)
        try full.prefix(length).write(to: url)
        let error = try #require(throws: ObjDBError.self) { try directory.open([Note.self]) }
        #expect([.corruptFile, .notAnObjDBFile].contains(error.code))
        #expect(try contents(url) == full.prefix(length))
    }

    @Test func fileCutInHalfIsRefused() throws {
        let url = try makeDatabase(notes: 2_000)
        let full = try contents(url)
        try full.prefix(full.count / 2).write(to: url)
        let error = try #require(throws: ObjDBError.self) { try directory.open([Note.self]) }
        #expect(error.code == .corruptFile)
        #expect(error.message.contains("truncated"))
    }

    @Test func unreadableStoredSchemaIsAClearError() throws {
        let url = try makeDatabase(notes: 1)
        let schemas: [(String, String)] = [
            ("{not json", "cannot be read"),
            (#"{"classes":[{"id":1,"name":"Note","nextPropertyID":2,"properties":[{"id":1,"name":"x","type":"complex","optional":false,"primaryKey":false,"indexed":false}]}],"nextClassID":2}"#, "cannot be read"),
            (#"{"classes":[{"id":1,"name":"Note","nextPropertyID":2,"properties":[{"id":1,"name":"x","type":"double","optional":false,"primaryKey":true,"indexed":false}]}],"nextClassID":2}"#, "primary keys must be"),
            (#"{"classes":[{"id":1,"name":"Note","nextPropertyID":2,"properties":[{"id":1,"name":"x","type":"data","optional":false,"primaryKey":false,"indexed":true}]}],"nextClassID":2}"#, "only integers"),
            (#"{"classes":[{"id":1,"name":"A","nextPropertyID":1,"properties":[]},{"id":1,"name":"B","nextPropertyID":1,"properties":[]}],"nextClassID":2}"#, "twice"),
        ]
        for (json, expected) in schemas {
            do {
                let lease = try EnvironmentRegistry.shared.acquire(path: url.path, options: EnvironmentOptions(mapSize: 1 << 24))
                let meta = try #require(try lease.environment.existingTable(named: TableName.meta, flags: .plain))
                let write = try WriteTransaction(lease.environment)
                try FileMeta.put(write.txn, meta, FileMeta.Key.schema, Array(json.utf8))
                try FileMeta.seal(write.txn, meta)
                try write.commit()
            }
            let error = try #require(throws: ObjDBError.self) { try directory.open(nil) }
            #expect(error.code == .invalidSchema)
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test func damagedRowsReadAsDefaultsInsteadOfCrashingAndAreReported() throws {
        let failures = FailureBox()
        var config = directory.configuration([AllTypes.self])
        config.readFailureHandler = { failures.append($0) }
        let db = try Database(configuration: config)
        let object = AllTypes()
        object.id = 1
        object.string = "fine"
        try db.write { try db.add(object) }
        let info = try #require(try db.classInfo(for: AllTypes.self))
        var generator = SystemRandomNumberGenerator()
        var notRows = 0
        for round in 0..<300 {
            let length = round % 3 == 0 ? Int.random(in: 0...8, using: &generator) : Int.random(in: 0...400, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if round % 2 == 0, length > 3 { bytes[0] = 0; bytes[1] = 33; bytes[2] = 0 }   // plausible header
            try db.write {
                let txn = try #require(db.writeContext?.transaction.txn)
                try bytes.withUnsafeBytes { _ = try txn.put(info.tables.objects, key: object._objdbKey, value: $0) }
                db.generation &+= 1
            }
            failures.removeAll()
            // Every read returns some value without crashing.
            _ = (object.string, object.optString, object.int, object.optDecimal, object.kind, object.data, object.uuid, object.objectId)
            // Bytes that are not a row are reported, naming the class and the key.
            if bytes.withUnsafeBytes({ RowView($0) }) == nil {
                notRows += 1
                #expect(failures.errors.contains { $0.code == .corruptFile && $0.className == "AllTypes" && $0.key == "1" })
            }
        }
        #expect(notRows > 50)
    }
}
