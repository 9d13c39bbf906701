import Foundation
import Testing
@testable import ObjDB

/// An account whose email is unique (nil allowed, and never a conflict).
final class UniqueAccount: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(unique: true) var email: String? = nil
    @Persisted var name: String = ""
}

/// The same stored class as ``UniqueMember``, without the unique key.
final class PlainMember: Object {
    override class var className: String { "Member" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var code: Int = 0
}

/// The same stored class as ``PlainMember``, with `code` unique.
final class UniqueMember: Object {
    override class var className: String { "Member" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(unique: true) var code: Int = 0
}

/// The same stored class as ``UniqueLabel``, without the unique key.
final class PlainLabel: Object {
    override class var className: String { "Label" }
    @Persisted var text: String = ""
}

/// The same stored class as ``PlainLabel``, with `text` unique.
final class UniqueLabel: Object {
    override class var className: String { "Label" }
    @Persisted(unique: true) var text: String = ""
}

/// A person unique by first and last name together.
final class UniqueNamePerson: Object {
    override class var uniqueKeys: [[String]] { [["first", "last"]] }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var first: String = ""
    @Persisted var last: String? = nil
}

/// Two unique properties besides the primary key.
final class UniquePair: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(unique: true) var a: String = ""
    @Persisted(unique: true) var b: String = ""
}

/// A compound key that names a list: refused.
final class BadUniqueKey: Object {
    override class var uniqueKeys: [[String]] { [["tags"]] }
    @Persisted var tags: List<String>
}

/// `@Persisted(unique: true)`: a value held by one object is refused for another, at add,
/// create, property writes and when a property becomes unique over existing data.
struct UniqueKeyTests {
    let directory = TemporaryDirectory()

    private func account(_ id: Int, _ email: String?) -> UniqueAccount {
        let a = UniqueAccount()
        a.id = id
        a.email = email
        return a
    }

    private func person(_ id: Int, _ first: String, _ last: String?) -> UniqueNamePerson {
        let p = UniqueNamePerson()
        p.id = id
        p.first = first
        p.last = last
        return p
    }

    private func violation(_ body: () throws -> Void) -> ObjDBError? {
        do {
            try body()
        } catch let error as ObjDBError {
            return error
        } catch {
            return nil
        }
        return nil
    }

    @Test func addAndCreateRefuseATakenValue() throws {
        let db = try directory.open([UniqueAccount.self])
        try db.write {
            try db.add(account(1, "a@x"))
            try db.add(account(2, "b@x"))
            try db.add(account(3, nil))
            try db.add(account(4, nil))            // nil never conflicts
        }
        let error = try #require(violation { try db.write { try db.add(account(5, "a@x")) } })
        #expect(error.code == .uniqueConstraintViolation)
        #expect(error.message.contains("'UniqueAccount.email' is unique") && error.message.contains("'a@x'"), "\(error.message)")
        #expect(db.objects(UniqueAccount.self).count == 4)    // the transaction was rolled back
        let created = violation { try db.write { _ = try db.create(UniqueAccount.self, value: ["id": 6, "email": "b@x"]) } }
        #expect(created?.code == .uniqueConstraintViolation)
        #expect(db.objects(UniqueAccount.self).count == 4)
        // The schema says so.
        let property = try #require(db.schema["UniqueAccount"]?["email"])
        #expect(property.isUnique && property.isIndexed && property.description.contains("(unique)"))
    }

    @Test func propertyWritesAreCheckedAtCommit() throws {
        let db = try directory.open([UniqueAccount.self])
        let a = account(1, "a@x")
        let b = account(2, "b@x")
        try db.write {
            try db.add(a)
            try db.add(b)
        }
        let error = violation { try db.write { b.email = "a@x" } }
        #expect(error?.code == .uniqueConstraintViolation)
        #expect(b.email == "b@x" && a.email == "a@x")
        // Swapping through nil in one transaction is fine; so is writing one's own value again.
        try db.write {
            a.email = nil
            b.email = "a@x"
            a.email = "b@x"
            b.email = "a@x"
        }
        #expect(a.email == "b@x" && b.email == "a@x")
        // Deleting an object frees its value; the index still finds the right objects.
        try db.write { db.delete(b) }
        try db.write { try db.add(account(3, "a@x")) }
        #expect(db.objects(UniqueAccount.self).where { $0.email == "a@x" }.map(\.id) == [3])
    }

    /// The check at open walks the new index and reads only objects that share an index key:
    /// long texts whose index keys are cut to the same bytes are told apart on their rows.
    @Test func longValuesThatShareACutIndexKeyAreComparedWhole() throws {
        let prefix = String(repeating: "t", count: 700)
        do {
            let db = try directory.open([PlainLabel.self])
            try db.write {
                for i in 0..<5 {
                    let label = PlainLabel()
                    label.text = prefix + "\(i)"
                    try db.add(label)
                }
            }
        }
        do {
            let db = try directory.open([UniqueLabel.self])
            #expect(db.objects(UniqueLabel.self).count == 5)
        }
        let plain = try directory.open([PlainLabel.self], name: "dup.objdb")
        try plain.write {
            for text in [prefix + "a", prefix + "b", prefix + "a"] {
                let label = PlainLabel()
                label.text = text
                try plain.add(label)
            }
        }
        let error = violation { _ = try directory.open([UniqueLabel.self], name: "dup.objdb") }
        #expect(error?.code == .uniqueConstraintViolation)
        #expect(error?.message.contains("objects 1 and 3") == true, "\(error?.message ?? "")")
    }

    @Test func aPropertyThatBecomesUniqueOverDuplicatesIsRefusedAtOpen() throws {
        do {
            let db = try directory.open([PlainMember.self])
            try db.write {
                for (id, code) in [(1, 7), (2, 8), (3, 7)] {
                    let m = PlainMember()
                    m.id = id
                    m.code = code
                    try db.add(m)
                }
            }
        }
        let error = violation { _ = try directory.open([UniqueMember.self]) }
        #expect(error?.code == .uniqueConstraintViolation)
        #expect(error?.message.contains("objects 1 and 3") == true, "\(error?.message ?? "")")
        // Nothing changed: the file opens with the old model, and once the duplicate is gone,
        // with the unique one.
        do {
            let db = try directory.open([PlainMember.self])
            try db.write { db.object(ofType: PlainMember.self, forPrimaryKey: 3)?.code = 9 }
        }
        let db = try directory.open([UniqueMember.self])
        #expect(db.schema["Member"]?["code"]?.isUnique == true)
        let m = UniqueMember()
        m.id = 4
        m.code = 8
        #expect(violation { try db.write { try db.add(m) } }?.code == .uniqueConstraintViolation)
    }

    @Test func compoundKeysRefuseTheSameValuesTogether() throws {
        let db = try directory.open([UniqueNamePerson.self])
        let ann = person(1, "Ann", "Lee")
        try db.write {
            try db.add(ann)
            try db.add(person(2, "Ann", "Kim"))     // same first name, other last name
            try db.add(person(3, "Bob", "Lee"))
            try db.add(person(4, "Ann", nil))       // nil never conflicts
            try db.add(person(5, "Ann", nil))
        }
        let error = violation { try db.write { try db.add(person(6, "Ann", "Lee")) } }
        #expect(error?.code == .uniqueConstraintViolation)
        #expect(error?.message.contains("(first, last)") == true, "\(error?.message ?? "")")
        let bob = try #require(db.object(ofType: UniqueNamePerson.self, forPrimaryKey: 3))
        #expect(violation { try db.write { bob.first = "Ann" } }?.code == .uniqueConstraintViolation)   // Ann Lee again
        try db.write { bob.last = "Park" }
        #expect(db.objects(UniqueNamePerson.self).count == 5)
        // The key's properties are indexed, and the schema lists the key.
        let schema = try #require(db.schema["UniqueNamePerson"])
        #expect(schema.uniqueKeys == [["first", "last"]] && schema["first"]?.isIndexed == true)
        #expect(throws: ObjDBError.self) { _ = try directory.open([BadUniqueKey.self], name: "bad.objdb") }
    }

    /// The check looks candidates up through the key's most selective column: many people share
    /// a first name, few a last name. Last names longer than an index key (cut, so that their
    /// index keys are equal) are still told apart on the rows.
    @Test func compoundKeysLookUpTheMostSelectiveColumn() throws {
        let db = try directory.open([UniqueNamePerson.self])
        let prefix = String(repeating: "L", count: 600)
        try db.write {
            for i in 0..<300 { try db.add(person(i, "Ann", "Lee \(i)")) }
            for i in 0..<20 { try db.add(person(1_000 + i, "Ann", prefix + "\(i)")) }
            try db.add(person(2_000, "Bob", "Lee 7"))          // the same last name, another first name
        }
        #expect(violation { try db.write { try db.add(person(3_000, "Ann", "Lee 7")) } }?.code == .uniqueConstraintViolation)
        #expect(violation { try db.write { try db.add(person(3_001, "Ann", prefix + "5")) } }?.code == .uniqueConstraintViolation)
        #expect(violation { try db.write { try db.add(person(3_002, "Bob", "Lee 7")) } }?.code == .uniqueConstraintViolation)
        try db.write {
            try db.add(person(3_003, "Ann", prefix + "99"))
            try db.add(person(3_004, "Cy", "Lee 7"))
        }
        #expect(db.objects(UniqueNamePerson.self).count == 323)
        #expect(try db.verify().isHealthy)
    }

    /// A migration that leaves two objects with the same unique value fails, and the file stays
    /// as it was (the migration is one transaction).
    @Test func aMigrationThatLeavesDuplicatesFails() throws {
        do {
            let db = try directory.open([PlainMember.self])
            try db.write {
                for (id, code) in [(1, 7), (2, 8)] {
                    let m = PlainMember()
                    m.id = id
                    m.code = code
                    try db.add(m)
                }
            }
        }
        var configuration = directory.configuration([UniqueMember.self])
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            try migration.enumerateObjects(ofType: "Member") { _, new in new?["code"] = 5 }
        }
        let error = violation { _ = try Database(configuration: configuration) }
        #expect(error?.code == .uniqueConstraintViolation || error?.code == .migrationFailed, "\(String(describing: error))")
        #expect(error?.message.contains("Member.code") == true, "\(error?.message ?? "")")
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
        // A migration that keeps the codes distinct opens.
        configuration.migrationBlock = { migration, _ in
            try migration.enumerateObjects(ofType: "Member") { old, new in new?["code"] = ((old?["code"] as? Int) ?? 0) * 10 }
        }
        let db = try Database(configuration: configuration)
        #expect(db.objects(UniqueMember.self).map(\.code).sorted() == [70, 80])
    }

    /// A refused add leaves no entry behind: the primary key and the first unique value stay free
    /// (the check runs before anything is written), even when the transaction goes on and commits.
    @Test func aRefusedAddLeavesNoEntries() throws {
        let db = try directory.open([UniquePair.self])
        func pair(_ id: Int, _ a: String, _ b: String) -> UniquePair {
            let p = UniquePair()
            p.id = id
            p.a = a
            p.b = b
            return p
        }
        try db.write { try db.add(pair(1, "a1", "taken")) }
        try db.write {
            #expect(throws: ObjDBError.self) { try db.add(pair(7, "a7", "taken")) }
        }
        try db.write { try db.add(pair(7, "a7", "b7")) }            // id 7 and "a7" were not kept
        #expect(db.objects(UniquePair.self).map(\.id) == [1, 7])
        // An update refused on `b` keeps the object's other entries.
        let seven = try #require(db.object(ofType: UniquePair.self, forPrimaryKey: 7))
        try db.write {
            #expect(throws: ObjDBError.self) { try db.add(pair(7, "a7-new", "taken"), update: .modified) }
        }
        #expect(db.objects(UniquePair.self).where { $0.a == "a7" }.map(\.id) == [7] && seven.b == "b7")
        #expect(throws: ObjDBError.self) { try db.write { try db.add(pair(8, "a7", "b8")) } }
    }

    /// Long strings are compared whole, not by their cut index keys.
    @Test func longValuesAreComparedWhole() throws {
        let db = try directory.open([UniqueAccount.self])
        let prefix = String(repeating: "x", count: 600)
        try db.write {
            try db.add(account(1, prefix + "1"))
            try db.add(account(2, prefix + "2"))                     // same first 479 bytes: not equal
        }
        #expect(violation { try db.write { try db.add(account(3, prefix + "1")) } }?.code == .uniqueConstraintViolation)
        #expect(db.objects(UniqueAccount.self).count == 2)
    }
}
