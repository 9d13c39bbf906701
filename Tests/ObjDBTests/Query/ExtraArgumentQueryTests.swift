import Testing
@testable import ObjDB
import ObjDBTestModels

/// Queries given more arguments than they use run as Realm runs them: the extra ones are
/// ignored (an app may share one argument list among many queries).
struct ExtraArgumentQueryTests {
    let directory = TemporaryDirectory()

    @Test func extraArgumentsAreIgnored() throws {
        let db = try directory.open([Person.self])
        try db.write {
            for (id, age) in [(1, 10), (2, 20), (3, 30), (4, 40)] { try db.add(person(id, "p\(id)", age: age)) }
        }
        let people = db.objects(Person.self)
        #expect(try people.filter("age > $0", 15, 99, "unused").count == 3)
        #expect(try people.filter("age > $1 AND age < $2", 0, 15, 35, 1_000).map(\.id) == [2, 3])
        #expect(try people.filter("age > %@", 25, 0).count == 2)
        #expect(try people.filter("age > 25", 7).count == 2)
    }
}
