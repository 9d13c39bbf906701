import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `where { $0.name == x }.first` on an indexed property reads the key's first index entry with
/// one `mdb_get` (``QueryPlanner/firstKeyOfPointLookup(_:txn:limit:)``). Every answer here is
/// the first person added with that name (object keys ascend with insertion), known from how
/// the file was filled; the internal checks also compare each lookup with the index walk.
@Suite(.serialized)
struct QueryPointLookupTests {
    let directory = TemporaryDirectory()
    /// A name longer than an index key holds: its key is cut, so rows decide.
    static let long = String(repeating: "x", count: 600)

    /// Ids 1…300 named `name (id % 10)`; 301…900 all named `crowd` (one index key with 600
    /// entries, kept by LMDB on pages of their own); 901 and 902 share a cut key.
    func people() throws -> Database {
        let db = try directory.open([Person.self])
        try db.write {
            for i in 1...300 { try db.add(person(i, "name \(i % 10)")) }
            for i in 301...900 { try db.add(person(i, "crowd")) }
            try db.add(person(901, Self.long + "a"))
            try db.add(person(902, Self.long + "b"))
        }
        return db
    }

    @Test func theFirstMatchIsTheFirstObjectAddedWithTheValue() throws {
        let db = try people()
        let all = db.objects(Person.self)
        for digit in 0..<10 {
            let expected = digit == 0 ? 10 : digit
            #expect(all.where { $0.name == "name \(digit)" }.first?.id == expected)
        }
        #expect(all.where { $0.name == "crowd" }.first?.id == 301)
        #expect(all.where { $0.name == "nobody" }.first == nil)
        #expect(try all.filter("name == %@", "name 4").first?.id == 4)
        #expect(all.where { $0.id == 250 }.first?.name == "name 0")
        #expect(all.where { $0.id == 5_000 }.first == nil)
    }

    @Test func aCutKeyIsCheckedOnTheRows() throws {
        let db = try people()
        let all = db.objects(Person.self)
        #expect(all.where { $0.name == Self.long + "b" }.first?.id == 902)
        #expect(all.where { $0.name == Self.long + "a" }.first?.id == 901)
        #expect(all.where { $0.name == Self.long }.first == nil)
    }

    /// In a write transaction the lookup reads the transaction's own index entries.
    @Test func insideAWriteItSeesTheTransactionsChanges() throws {
        let db = try people()
        try db.write {
            try db.add(person(1_000, "fresh"))
            let freshID = db.objects(Person.self).where { $0.name == "fresh" }.first?.id
            #expect(freshID == 1_000)
            if let first = db.objects(Person.self).where({ $0.name == "name 3" }).first { db.delete(first) }
            #expect(db.objects(Person.self).where { $0.name == "name 3" }.first?.id == 13)
            for i in 301...899 {
                if let crowd = db.object(ofType: Person.self, forPrimaryKey: i) { db.delete(crowd) }
            }
            #expect(db.objects(Person.self).where { $0.name == "crowd" }.first?.id == 900)
        }
        #expect(db.objects(Person.self).where { $0.name == "name 3" }.first?.id == 13)
        #expect(db.objects(Person.self).where { $0.name == "crowd" }.first?.id == 900)
        #expect(db.objects(Person.self).where { $0.name == "fresh" }.first?.id == 1_000)
    }

    /// Only `.first` of a lone equality takes the fast path: a limit of two, another condition
    /// or a sort read the index as before and still answer by their own rules.
    @Test func otherShapesStillAnswer() throws {
        let db = try people()
        let all = db.objects(Person.self)
        #expect(all.where { $0.name == "name 7" }.prefix(2).map(\.id) == [7, 17])
        #expect(all.where { $0.name == "name 7" && $0.id > 100 }.first?.id == 107)
        #expect(all.where { $0.name == "name 7" }.sorted(by: \.id, ascending: false).first?.id == 297)
        #expect(all.where { $0.name == "crowd" }.count == 600)
        // Later stages run after the limit: the first two by key, then sorted descending.
        #expect(try all.filter("name == 'name 7' LIMIT(2) SORT(id DESC)").first?.id == 17)
    }

    /// `isEmpty`, `prefix(1)` and `LIMIT(1)` stop at the first match too.
    @Test func otherFirstMatchReadsAnswer() throws {
        let db = try people()
        let all = db.objects(Person.self)
        #expect(!all.where { $0.name == "name 5" }.isEmpty)
        #expect(all.where { $0.name == "nobody" }.isEmpty)
        #expect(all.where { $0.name == "name 5" }.prefix(1).map(\.id) == [5])
        #expect(try all.filter("name == 'crowd' LIMIT(1)").map(\.id) == [301])
        #expect(all.where { $0.id == 42 }.prefix(1).map(\.name) == ["name 2"])
    }

    /// Results of every object of a class share one cache: each still answers for the version
    /// it is read in, across writes, a rollback and another class asked for in between.
    @Test func wholeTableResultsStayRightWhileSharingACache() throws {
        let db = try directory.open([Person.self, Note.self])
        try db.write { for i in 1...5 { try db.add(person(i, "p\(i)")) } }
        let first = db.objects(Person.self)
        let second = db.objects(Person.self)
        #expect(first.map(\.id) == [1, 2, 3, 4, 5])
        #expect(second[4].id == 5)
        try db.write {
            try db.add(person(6, "p6"))
            #expect(first.count == 6)
            #expect(second[5].id == 6)
        }
        _ = db.objects(Note.self).count
        let third = db.objects(Person.self)
        db.beginWrite()
        if let one = db.object(ofType: Person.self, forPrimaryKey: 1) { db.delete(one) }
        #expect(third.map(\.id) == [2, 3, 4, 5, 6])
        db.cancelWrite()
        #expect(first.map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(second[0].id == 1)
        #expect(third.count == 6)
    }
}
