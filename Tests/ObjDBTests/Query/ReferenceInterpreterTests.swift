import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// The reference interpreter (``ReferenceInterpreter``) shares no code with the general test of
/// queries (``QueryEvaluator``) it checks: a fault injected into each helper they once shared —
/// the comparison of two values, a string operator, the walk along a key path through a list,
/// an aggregate — gives the general test a wrong answer, and the internal check that compares
/// every query's answer with the reference interpreter catches it. Each faulty run is a child
/// process: the faults are read once per process (`OBJDB_INJECT_FAULTS`).
struct ReferenceInterpreterTests {
    /// The people of ``FastPathChecksTests/populate(_:)`` and one more whose name has capitals.
    static func people(_ directory: TemporaryDirectory) throws -> Database {
        let db = try FastPathChecksTests.populate(directory)
        try db.write { try db.add(person(1_000, "Late Riser", age: 30)) }
        return db
    }

    /// Ten owners, each with three pets (the last named "last") and the numbers 1, 2, 3.
    static func owners(_ directory: TemporaryDirectory) throws -> Database {
        let db = try directory.open([Owner.self, Pet.self, Address.self, Location.self])
        try db.write {
            for id in 1...10 {
                let owner = Owner()
                owner.id = id
                owner.name = "owner \(id)"
                for (index, name) in ["first", "middle", "last"].enumerated() {
                    let pet = Pet()
                    pet.id = id * 10 + index
                    pet.name = name
                    owner.pets.append(pet)
                }
                owner.numbers.append(contentsOf: [1, 2, 3])
                try db.add(owner)
            }
        }
        return db
    }

    /// Without faults, the queries the faults break give the right answers, and the internal
    /// check (which runs in this test process) agrees with them.
    @Test func theQueriesAnswerRightWithoutFaults() throws {
        #expect(internalChecksEnabled)
        #expect(InjectedFaults.active.isEmpty)
        let directory = TemporaryDirectory()
        let db = try Self.people(directory)
        // age < id: ids 90…200 (ages 0…20) and 291…300; not 1…89, whose age equals the id.
        #expect(try db.objects(Person.self).filter("age < id").count == 111 + 10 + 1)
        #expect(try db.objects(Person.self).filter("name CONTAINS[c] 'LATE'").count == 11)
        let ownerDirectory = TemporaryDirectory()
        let owners = try Self.owners(ownerDirectory)
        #expect(try owners.objects(Owner.self).filter("ANY pets.name == 'last'").count == 10)
        #expect(try owners.objects(Owner.self).filter("numbers.@sum == 6").count == 10)
    }

    /// SUBQUERY counts inside arithmetic, on both sides: the general test compiles each once (it
    /// ran the old reference interpreter for them), and the check agrees with its answers.
    @Test func subqueryCountsInArithmeticAgreeWithTheReference() throws {
        let directory = TemporaryDirectory()
        let db = try Self.owners(directory)
        let owners = db.objects(Owner.self)
        let last = "SUBQUERY(pets, $p, $p.name == 'last').@count"
        let first = "SUBQUERY(pets, $p, $p.name == 'first').@count"
        let all = "SUBQUERY(pets, $p, $p.id > 0).@count"
        #expect(try owners.filter("\(last) + \(first) == \(all) - 1").count == 10)
        #expect(try owners.filter("\(last) * 3 == \(all)").count == 10)
        #expect(try owners.filter("\(last) + \(first) > \(all)").count == 0)
    }

    /// `<` answering as `<=` in the comparison of two values.
    @Test func aWrongComparisonIsCaught() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_INJECT_FAULTS", "lessIsLessOrEqual", 1)
            guard InjectedFaults.active == .lessIsLessOrEqual else { exit(10) }
            let directory = TemporaryDirectory()
            let db = try ReferenceInterpreterTests.people(directory)
            _ = try db.objects(Person.self).filter("age < id").count
        }
        Self.expectCaught(result)
    }

    /// `CONTAINS[c]` comparing without folding case.
    @Test func aWrongStringOperatorIsCaught() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_INJECT_FAULTS", "foldedContains", 1)
            guard InjectedFaults.active == .foldedContains else { exit(10) }
            let directory = TemporaryDirectory()
            let db = try ReferenceInterpreterTests.people(directory)
            _ = try db.objects(Person.self).filter("name CONTAINS[c] 'LATE'").count
        }
        Self.expectCaught(result)
    }

    /// A key path through a list of objects that skips the list's last object (`ANY`).
    @Test func aWrongPathThroughAListIsCaught() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_INJECT_FAULTS", "listSkipsLastObject", 1)
            guard InjectedFaults.active == .listSkipsLastObject else { exit(10) }
            let directory = TemporaryDirectory()
            let db = try ReferenceInterpreterTests.owners(directory)
            _ = try db.objects(Owner.self).filter("ANY pets.name == 'last'").count
        }
        Self.expectCaught(result)
    }

    /// `@sum` of integers one too large.
    @Test func aWrongAggregateIsCaught() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_INJECT_FAULTS", "sumOffByOne", 1)
            guard InjectedFaults.active == .sumOffByOne else { exit(10) }
            let directory = TemporaryDirectory()
            let db = try ReferenceInterpreterTests.owners(directory)
            _ = try db.objects(Owner.self).filter("numbers.@sum == 6").count
        }
        Self.expectCaught(result)
    }

    /// The child process stopped on the check that compares a plan's answer with the reference
    /// interpreter's.
    static func expectCaught(_ result: ExitTest.Result?) {
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: the plan"), "\(message)")
        #expect(message.contains("the reference interpreter"), "\(message)")
    }

    /// `OBJDB_INJECT_FAULTS` names faults as `OBJDB_BREAK_FAST_PATHS` names fast paths.
    @Test func faultNamesParse() {
        #expect(InjectedFaults(names: "foldedContains, sumOffByOne") == [.foldedContains, .sumOffByOne])
        #expect(InjectedFaults(names: "nonsense,lessIsLessOrEqual") == .lessIsLessOrEqual)
        #expect(InjectedFaults(names: "") == [])
        #expect(InjectedFaults.named.count == 4)
    }

    /// The interpreter's own rules for values: numbers by exact value across kinds, NaN
    /// unordered (and last in sorts), nil equal to nil alone, -0.0 equal to 0.0.
    @Test func valuesOrderByTheirOwnRules() {
        let big: Int64 = (1 << 53) + 1
        #expect(ReferenceValue.order(.integer(big), .double(0x1p53)) == 1)
        #expect(ReferenceValue.order(.double(0x1p53), .integer(big)) == -1)
        #expect(ReferenceValue.order(.integer(.max), .double(0x1p63)) == -1)
        #expect(ReferenceValue.order(.integer(.min), .double(-0x1p63)) == 0)
        #expect(ReferenceValue.order(.double(.nan), .double(1)) == nil)
        #expect(ReferenceValue.order(.decimal(Decimal(string: "0.5") ?? 0), .double(0.5)) == 0)
        #expect(ReferenceValue.order(.decimal(1), .double(.infinity)) == -1)
        #expect(ReferenceValue.order(.bytes([1]), .integer(1)) == nil)
        #expect(ReferenceValue.equal(.double(-0.0), .double(0.0)))
        #expect(ReferenceValue.equal(.null, .null))
        #expect(!ReferenceValue.equal(.null, .integer(0)))
        #expect(ReferenceValue.sortOrder(.null, .double(.nan)) == -1)
        #expect(ReferenceValue.sortOrder(.double(.nan), .double(.infinity)) == 1)
        #expect(ReferenceValue.sameForDistinct(.double(.nan), .double(.nan)))
    }

    /// The interpreter's own string operators.
    @Test func textOperatorsFollowTheirOwnRules() {
        func utf8(_ s: String) -> [UInt8] { Array(s.utf8) }
        #expect(ReferenceText.like(utf8("Élan"), utf8("?lan")))
        #expect(ReferenceText.like(utf8("abc"), utf8("*")))
        #expect(ReferenceText.like(utf8(""), utf8("*")))
        #expect(!ReferenceText.like(utf8("abc"), utf8("a?")))
        #expect(ReferenceText.like(utf8("a*c"), utf8("a*c")))
        #expect(ReferenceText.contains(utf8("Late Riser"), utf8("Riser")))
        #expect(ReferenceText.contains(utf8("x"), []))
        #expect(!ReferenceText.contains(utf8("ab"), utf8("abc")))
        #expect(ReferenceText.begins(utf8("abc"), with: utf8("ab")))
        #expect(ReferenceText.ends(utf8("abc"), with: utf8("bc")))
        #expect(ReferenceText.fold(utf8("ÉLAN"), [.caseInsensitive, .diacriticInsensitive]) == utf8("elan"))
        #expect(ReferenceText.fold(utf8("ÉLAN"), []) == utf8("ÉLAN"))
        let options: QueryStringOptions = .caseInsensitive
        #expect(ReferenceInterpreter.holds(.contains, .bytes(utf8("Late Riser")), .bytes(utf8("late")), options, .string))
        #expect(ReferenceInterpreter.holds(.contains, .bytes(utf8("abc")), .null, [], .string))
        #expect(!ReferenceInterpreter.holds(.like, .bytes(utf8("abc")), .null, [], .string))
        #expect(ReferenceInterpreter.holds(.lessOrEqual, .null, .null, [], .int))
        #expect(!ReferenceInterpreter.holds(.less, .null, .integer(1), [], .int))
    }
}
