import Foundation
import Testing
@_spi(Inspection) @testable import ObjDB
import ObjDBTestModels

struct QuerySmokeTests {
    let directory = TemporaryDirectory()

    func filled() throws -> Database {
        let db = try directory.open([Person.self, Owner.self])
        try db.write {
            for (id, name, age) in [(1, "Ann", 30), (2, "Bob", 17), (3, "Cy", 45), (4, "ann", 22)] {
                try db.add(person(id, name, age: age))
            }
            try db.add(person(5, "Dee"))
        }
        return db
    }

    @Test func stringAndDSLFilters() throws {
        let db = try filled()
        let people = db.objects(Person.self)
        #expect(try people.filter("age >= %@", 18).map(\.id) == [1, 3, 4])
        #expect(people.where { $0.age >= 18 }.map(\.id) == [1, 3, 4])
        #expect(try people.filter("name BEGINSWITH[c] %@", "a").map(\.id) == [1, 4])
        #expect(people.where { $0.name.starts(with: "a", options: .caseInsensitive) }.map(\.id) == [1, 4])
        #expect(try people.filter("age == nil").map(\.id) == [5])
        #expect(people.where { $0.age == nil }.map(\.id) == [5])
        #expect(try people.filter("age BETWEEN {20, 40}").map(\.id) == [1, 4])
        #expect(people.where { $0.age.contains(20...40) }.map(\.id) == [1, 4])
        #expect(try people.filter("name IN {'Bob', 'Cy'}").map(\.id) == [2, 3])
        #expect(people.where { $0.name.in(["Bob", "Cy"]) }.map(\.id) == [2, 3])
        #expect(try people.filter("NOT (age > 18) AND age != nil").map(\.id) == [2])
        #expect(try people.filter("name LIKE 'A?n'").map(\.id) == [1])
        #expect(try people.filter("TRUEPREDICATE").count == 5)
        #expect(try people.filter("FALSEPREDICATE").isEmpty)
    }

    @Test func sortingDistinctLimitAndAggregates() throws {
        let db = try filled()
        let people = db.objects(Person.self)
        #expect(people.sorted(by: \.age, ascending: false).map(\.id) == [3, 1, 4, 2, 5])
        #expect(people.sorted(byKeyPath: "age").map(\.id) == [5, 2, 4, 1, 3])
        #expect(people.sorted(by: [SortDescriptor(keyPath: "kind"), SortDescriptor(keyPath: "name")]).map(\.name) == ["Ann", "Bob", "Cy", "Dee", "ann"])
        #expect(people.prefix(2).map(\.id) == [1, 2])
        #expect(people.sorted(byKeyPath: "age").prefix(2).map(\.id) == [5, 2])
        #expect(people.distinct(by: ["kind"]).count == 1)
        #expect(people.min(of: \.age) == 17)
        #expect(people.max(of: \.age) == 45)
        #expect(people.max(ofProperty: "age") as Int? == 45)
        #expect(people.sum(of: \.age) == 114)
        #expect(people.average(of: \.age) == 28.5)
        #expect(people.where { $0.age > 100 }.min(of: \.age) == nil)
    }

    @Test func queriesThroughLinksAndCollections() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1, "Ann")
        let rex = pet(10, "Rex")
        let bo = pet(11, "Bo")
        ann.pets.append(contentsOf: [rex, bo])
        ann.tags.append(contentsOf: ["x", "y"])
        rex.owner = ann
        let bob = owner(2, "Bob")
        bob.pets.append(bo)
        try db.write { try db.add([ann, bob]) }
        let owners = db.objects(Owner.self)
        #expect(try owners.filter("ANY pets.name == 'Rex'").map(\.id) == [1])
        #expect(owners.where { $0.pets.name == "Rex" }.map(\.id) == [1])
        #expect(try owners.filter("pets.@count > 1").map(\.id) == [1])
        #expect(owners.where { $0.pets.count == 1 }.map(\.id) == [2])
        #expect(try owners.filter("SUBQUERY(pets, $p, $p.name BEGINSWITH 'B').@count == 1").map(\.id) == [1, 2])
        #expect(owners.where { $0.pets.where { $0.name.starts(with: "B") }.count == 1 }.map(\.id) == [1, 2])
        #expect(try owners.filter("'x' IN tags").map(\.id) == [1])
        #expect(try owners.filter("ALL pets.name BEGINSWITH 'B'").map(\.id) == [2])
        #expect(try owners.filter("NONE pets.name == 'Rex'").map(\.id) == [2])
        #expect(try db.objects(Pet.self).filter("owner.name == 'Ann'").map(\.id) == [10])
        #expect(db.objects(Pet.self).where { $0.owner.name == "Ann" }.map(\.id) == [10])
        #expect(try db.objects(Pet.self).filter("owners.@count == 2").map(\.id) == [11])
        #expect(ann.pets.where { $0.name == "Bo" }.map(\.id) == [11])
        #expect(ann.pets.sorted(by: \.name).map(\.id) == [11, 10])
        #expect(bo.owners.where { $0.name == "Bob" }.map(\.id) == [2])
        #expect(bo.owners.max(of: \.id) == 2)
    }

    @Test func indexesAreUsed() throws {
        let db = try filled()
        let people = db.objects(Person.self)
        #expect(try people.filter("id == 3").plan.description.contains("primary key"))
        #expect(try people.filter("id IN {1, 3}").map(\.id) == [1, 3])
        #expect(try people.filter("name == 'Cy'").queryPlan.contains("index lookup on name"))
        #expect(try people.filter("name BEGINSWITH 'A'").queryPlan.contains("index prefix"))
        #expect(try people.filter("name BEGINSWITH 'A'").map(\.id) == [1])
        #expect(try people.filter("age > 3").queryPlan == "table scan")
        #expect(try people.filter("name > 'B' AND name < 'D'").map(\.id) == [2, 3])
    }

    @Test func limitedLookupsOnARepeatedIndexedValueGiveTheFirstMatchesInKeyOrder() throws {
        let db = try directory.open([Person.self])
        // Long names share their first 600 characters, past the longest index key: their keys
        // are cut to the same bytes, and only the rows can tell them apart.
        let stem = String(repeating: "x", count: 600)
        try db.write {
            for id in 1...60 {
                let name = id % 3 == 0 ? "dup" : (id % 3 == 1 ? stem + "a" : stem + "b")
                try db.add(person(id, name, age: id))
            }
        }
        let people = db.objects(Person.self)
        let dups = people.where { $0.name == "dup" }
        #expect(dups.queryPlan.contains("index lookup on name"))
        #expect(dups.first?.id == 3)
        #expect(dups.prefix(4).map(\.id) == [3, 6, 9, 12])
        #expect(dups.count == 20)
        // The index answers only part of a conjunction: its rows are checked, so all are needed.
        #expect(people.where { $0.name == "dup" && $0.age > 10 }.first?.id == 12)
        // The cut key holds both long names: a limited lookup still checks the rows.
        let longB = people.where { $0.name == stem + "b" }
        #expect(longB.first?.id == 2)
        #expect(longB.prefix(3).map(\.id) == [2, 5, 8])
        #expect(longB.count == 20)
        #expect(people.where { $0.name == "none" }.first == nil)
    }

    @Test func badPredicatesThrow() throws {
        let db = try filled()
        let people = db.objects(Person.self)
        for (text, fragment) in [
            ("agee > 3", "no property 'agee'"), ("age == 'x'", "cannot be compared"), ("(age > 3", "position"),
            ("age > %@", "argument"), ("name CONTAINS 3", "cannot be compared"), ("age CONTAINS 3", "CONTAINS"),
        ] {
            let error = try #require(throws: ObjDBError.self) { try people.filter(text) }
            #expect(error.code == .invalidQuery)
            #expect(error.message.contains(fragment), "\(text): \(error.message)")
        }
    }

    @Test func dynamicObjects() throws {
        let db = try filled()
        let people = db.dynamicObjects("Person")
        #expect(people.count == 5)
        #expect(try people.filter("age > 20").sorted(byKeyPath: "age").map { $0["name"] as? String } == ["ann", "Ann", "Cy"])
        #expect(people.first?.name as? String == "Ann")
        #expect(db.dynamicObjects("Nope").isEmpty)
    }

    @Test func dynamicObjectsReadRelationships() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1, "Ann")
        ann.favorite = pet(10, "Rex")
        ann.tags.append(contentsOf: ["a", "b"])
        ann.scores["x"] = 2
        try db.write { try db.add(ann) }
        let raw = try #require(db.dynamicObjects("Owner").first)
        #expect(raw.className == "Owner")
        #expect((raw.favorite as? DynamicObject)?["name"] as? String == "Rex")
        #expect((raw.tags as? [Any?])?.compactMap { $0 as? String } == ["a", "b"])
        #expect((raw.scores as? [String: Any?])?["x"] as? Double == 2)
        try db.write {
            try raw.setValue(["c"], forKey: "tags")   // by name, as createDynamicObject takes it
            try raw.setValue("Annie", forKey: "name")
        }
        #expect(ann.name == "Annie")
        #expect(Array(ann.tags) == ["c"])
    }
}
