import Foundation
import Testing
import ObjDB

/// The models and call sites of `shared/docs/API.md` ("Models" and "Writing"), compiled and run
/// as written there.
enum APIContract {
    final class Person: Object {
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted(indexed: true) var name: String = ""
        @Persisted var age: Int? = nil
        @Persisted var dogs: List<Dog>                       // to-many link
        @Persisted var tags: List<String>                    // list of primitives
        @Persisted var nicknames: MutableSet<String>
        @Persisted var scores: Map<String, Double>
        @Persisted var address: Address?                    // embedded object, owned
        @Persisted var kind: Kind = .regular                 // enum
        var cache = 0                                        // not persisted
    }

    final class Dog: Object {
        @Persisted(primaryKey: true) var id: ObjectId        // random default
        @Persisted var name: String = ""
        @Persisted var born: Date = .distantPast
        @Persisted var owner: Person?                        // to-one link
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    }

    final class Address: EmbeddedObject {
        @Persisted var city: String = ""
    }

    enum Kind: String, PersistableEnum { case regular, vip }
}

struct APIContractTests {
    let directory = TemporaryDirectory()

    @Test func modelsAndWritesOfTheContract() throws {
        typealias Person = APIContract.Person
        typealias Dog = APIContract.Dog
        var config = Configuration(fileURL: directory.file("contract.objdb"))
        config.objectTypes = [Person.self]                   // Dog and Address are found through links
        let db = try Database(configuration: config)
        let otherPerson = Person(); otherPerson.id = 2; otherPerson.name = "Bob"
        let people = [Person(), Person()]
        people[0].id = 3
        people[1].id = 4
        try db.write {
            let p = Person(); p.id = 1; p.name = "Ann"
            try db.add(p)
            try db.add(otherPerson, update: .modified)
            try db.add(people, update: .all)
            let d = try db.create(Dog.self, value: ["name": "Rex"], update: .error)
            p.dogs.append(d)
            p.tags.append("friendly")
            p.nicknames.insert("Annie")
            p.scores["math"] = 9
            p.address = { let a = APIContract.Address(); a.city = "Oslo"; return a }()
            d.owner = p
        }
        let ann = db.object(ofType: Person.self, forPrimaryKey: 1)
        #expect(ann?.dogs.first?.name == "Rex")
        #expect(ann?.dogs.first?.owners.first?.name == "Ann")
        #expect(ann?.dogs.first?.owner?.id == 1)
        #expect(ann?.address?.city == "Oslo")
        #expect(ann?.scores["math"] == 9)
        #expect(db.objects(Dog.self).first?.born == .distantPast)
        let n: Int = try db.write { db.objects(Person.self).count }
        #expect(n == 4)
        try db.write {
            if let rex = db.objects(Dog.self).first { db.delete(rex) }
            db.delete(db.objects(Dog.self))
            db.deleteAll()
        }
        #expect(db.objects(Person.self).isEmpty)
    }
}
