import Foundation
import Testing
import ObjDB

/// One ported query: the upstream TEST it comes from (which also names the fixture it runs on),
/// the class it runs on, the query, and the number of matches upstream expects, or `nil` when
/// upstream expects the query to be rejected (CHECK_THROW). `reason` says why a known-failing
/// case fails today.
struct RPCase: Sendable, CustomTestStringConvertible {
    let upstream: String
    let on: String
    let query: String
    let expected: Int?
    let reason: String
    /// How many of the fixture's arguments are passed (`nil`: all), for Parser_substitution.
    let argumentCount: Int?

    init(_ upstream: String, on: String, _ query: String, _ expected: Int?, argumentCount: Int? = nil, reason: String = "") {
        self.upstream = upstream
        self.on = on
        self.query = query
        self.expected = expected
        self.reason = reason
        self.argumentCount = argumentCount
    }

    var testDescription: String { "\(upstream): \(query) → \(expected.map(String.init) ?? "throws")" }
}

/// A Realm `Timestamp(seconds, nanoseconds)` as a `Date`.
func rpDate(_ seconds: Int, _ nanoseconds: Int) -> Date {
    Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
}

/// The arguments of upstream's Parser_substitution: Int(2), Double(2.22), String("oe"), null,
/// Bool(true), Timestamp(1512130073, 505), Binary("oe"), Float(2.33), Int(1), Int(3), Int(4), Bool(false).
func rpSubstitutionArguments() -> [Any?] {
    [2, 2.22, "oe", nil, true, rpDate(1512130073, 505), Data("oe".utf8), Float(2.33), 1, 3, 4, false]
}

/// Runs one case: checks the count, or that the query is rejected with `.invalidQuery`.
/// Every mismatch is recorded with a line starting `RPRESULT` (upstream | query | expected | what we do).
func rpCheck(_ testCase: RPCase, in directory: TemporaryDirectory) {
    let expected = testCase.expected.map(String.init) ?? "throws"
    let prefix = "RPRESULT \(testCase.upstream) | \(testCase.query) | \(expected) |"
    let count: Int
    do {
        let db = try rpFixture(testCase.upstream, in: directory)
        let arguments = testCase.upstream == "Parser_substitution"
            ? Array(rpSubstitutionArguments().prefix(testCase.argumentCount ?? 12)) : []
        count = try rpCount(db, on: testCase.on, testCase.query, arguments)
    } catch let error as ObjDBError {
        if testCase.expected == nil {
            #expect(error.code == .invalidQuery, "\(prefix) threw code \(error.code): \(error.message)")
        } else {
            Issue.record("\(prefix) threw: \(error.message)")
        }
        return
    } catch {
        Issue.record("\(prefix) threw a non-ObjDB error: \(error)")
        return
    }
    if let expectedCount = testCase.expected {
        #expect(count == expectedCount, "\(prefix) count \(count)")
    } else {
        Issue.record("\(prefix) no error, count \(count)")
    }
}

/// Runs a known-failing case: its failure is expected, and its passing is reported.
func rpCheckKnownFailing(_ testCase: RPCase, in directory: TemporaryDirectory) {
    withKnownIssue(Comment(rawValue: testCase.reason)) {
        rpCheck(testCase, in: directory)
    }
}

/// The number of objects of the class named `on` that match `query`.
func rpCount(_ db: Database, on className: String, _ query: String, _ arguments: [Any?]) throws -> Int {
    func count<T: Object>(_ type: T.Type) throws -> Int {
        try db.objects(type).filter(query, argumentArray: arguments).count
    }
    switch className {
    case "RPIntRow": return try count(RPIntRow.self)
    case "RPBasicPerson": return try count(RPBasicPerson.self)
    case "RPChainPerson": return try count(RPChainPerson.self)
    case "RPFamilyPerson": return try count(RPFamilyPerson.self)
    case "RPTimesRow": return try count(RPTimesRow.self)
    case "RPBinItem": return try count(RPBinItem.self)
    case "RPBinPerson": return try count(RPBinPerson.self)
    case "RPColumnsRow": return try count(RPColumnsRow.self)
    case "RPTwoColumnRow": return try count(RPTwoColumnRow.self)
    case "RPDiscount": return try count(RPDiscount.self)
    case "RPItem": return try count(RPItem.self)
    case "RPShopPerson": return try count(RPShopPerson.self)
    case "RPCourse": return try count(RPCourse.self)
    case "RPStudent": return try count(RPStudent.self)
    case "RPCountedItem": return try count(RPCountedItem.self)
    case "RPCountingPerson": return try count(RPCountingPerson.self)
    case "RPArgPerson": return try count(RPArgPerson.self)
    case "RPObjectRow": return try count(RPObjectRow.self)
    case "RPBetweenRow": return try count(RPBetweenRow.self)
    case "RPChainedStrings": return try count(RPChainedStrings.self)
    case "RPChainedInts": return try count(RPChainedInts.self)
    case "RPAccountHolder": return try count(RPAccountHolder.self)
    case "RPAccount": return try count(RPAccount.self)
    default: throw RPFixtureError(description: "no class \(className) in the fixtures")
    }
}

struct RPFixtureError: Error, CustomStringConvertible {
    let description: String
}

/// Opens a database in `directory` holding the objects the upstream TEST builds.
func rpFixture(_ upstream: String, in directory: TemporaryDirectory) throws -> Database {
    let names = ["Billy", "Bob", "Joe", "Jane", "Joel"]
    switch upstream {
    case "Parser_empty_input":
        let db = try directory.open([RPIntRow.self])
        try db.write { for _ in 0..<5 { try db.add(RPIntRow()) } }
        return db

    case "Parser_basic_serialisation":
        let db = try directory.open([RPBasicPerson.self])
        let fees = [2.0, 2.23, 2.22, 2.25, 3.73]
        let times: [Date?] = [nil, rpDate(1512130073, 0), rpDate(1512130073, 505), rpDate(1, 2), rpDate(0, 0)]
        let people = (0..<5).map { i in
            let p = RPBasicPerson()
            p.age = i
            p.name = names[i]
            p.fees = fees[i]
            p.licensed = i % 2 == 0
            p.time = times[i]
            return p
        }
        people[0].buddy = people[1]
        try db.write { for p in people { try db.add(p) } }
        return db

    case "Parser_LinksToSameTable":
        let db = try directory.open([RPChainPerson.self])
        let people = (0..<5).map { i in
            let p = RPChainPerson()
            p.age = i
            p.name = names[i]
            return p
        }
        for i in 0..<4 { people[i].buddy = people[i + 1] }
        try db.write { for p in people { try db.add(p) } }
        return db

    case "Parser_StringOperations":
        let db = try directory.open([RPFamilyPerson.self])
        let people = ["Billy", "Bob", "Joe", "Jake", "Joel"].map { name in
            let p = RPFamilyPerson()
            p.name = name
            return p
        }
        for i in 0..<4 { people[i].father = people[i + 1] }
        try db.write {
            for p in people { try db.add(p) }
            try db.add(RPFamilyPerson())
        }
        return db

    case "Parser_Timestamps":
        let db = try directory.open([RPTimesRow.self])
        let rows = (0..<5).map { _ in RPTimesRow() }
        rows[0].birthday = rpDate(-1, -1)
        rows[1].birthday = rpDate(0, -1)
        for i in 2..<5 { rows[i].birthday = rpDate(0, 0) }
        let internalTimes: [Date?] = [nil, rpDate(1512130073, 0), rpDate(1512130073, 505), rpDate(1, 2), rpDate(0, 0)]
        for i in 0..<5 { rows[i].T399 = internalTimes[i] }
        rows[0].linked = rows[1]
        rows[2].linked = rows[0]
        try db.write { for r in rows { try db.add(r) } }
        return db

    case "Parser_NullableBinaries":
        let db = try directory.open([RPBinItem.self, RPBinPerson.self])
        let items = (0..<5).map { _ in RPBinItem() }
        for (i, text) in ["knife", "plate", "fork"].enumerated() {
            items[i].data = Data(text.utf8)
            items[i].nullable_data = Data(text.utf8)
        }
        let people = items.map { item in
            let p = RPBinPerson()
            p.fav_item = item
            return p
        }
        try db.write { for p in people { try db.add(p) } }
        return db

    case "Parser_OverColumnIndexChanges":
        let db = try directory.open([RPColumnsRow.self])
        try db.write {
            for i in 0..<3 {
                let r = RPColumnsRow()
                r.ints = i
                r.doubles = Double(i)
                r.strings = String(repeating: "a", count: i)
                try db.add(r)
            }
        }
        return db

    case "Parser_TwoColumnExpressionBasics":
        let db = try directory.open([RPTwoColumnRow.self])
        let rows = (0..<3).map { i in
            let r = RPTwoColumnRow()
            r.ints = i
            r.doubles = Double(i)
            r.strings = String(repeating: "a", count: i)
            return r
        }
        rows[1].link = rows[0]
        try db.write { for r in rows { try db.add(r) } }
        return db

    case "Parser_LinksToDifferentTable", "Parser_TwoColumnAggregates":
        return try rpShop(
            in: directory, promotions: upstream == "Parser_TwoColumnAggregates", balances: upstream == "Parser_TwoColumnAggregates",
            discounts: true, allergens: false, favourites: false, bread: false, names: false)
    case "Parser_Backlinks":
        return try rpShop(
            in: directory, promotions: false, balances: true, discounts: false, allergens: false, favourites: true, bread: true,
            names: true)
    case "Parser_Subquery":
        return try rpShop(
            in: directory, promotions: true, balances: true, discounts: true, allergens: true, favourites: true, bread: false,
            names: false)
    case "Parser_AggregateShortcuts", "Parser_OperatorIN":
        return try rpShop(
            in: directory, promotions: false, balances: true, discounts: false, allergens: true, favourites: true, bread: false,
            names: false)

    case "Parser_collection_aggregates":
        let db = try directory.open([RPStudent.self, RPCourse.self])
        let courses = [
            ("Math", 5.0, 42, Float(0.36)), ("Comp Sci", 4.5, 45, Float(0.25)), ("Chemistry", 4.0, 41, Float(0.40)),
            ("English", 3.5, 40, Float(0.07)), ("Physics", 4.5, 42, Float(0.42)),
        ].map { title, credits, hours, failure in
            let c = RPCourse()
            c.title = title
            c.credits = credits
            c.hours_required = hours
            c.failure_percentage = failure
            return c
        }
        let students = [("Billy", 18), ("Bob", 17), ("Joe", 19), ("Jane", 20), ("Joel", 18)].enumerated().map { j, info in
            let s = RPStudent()
            s.name = info.0
            s.age = info.1
            s.hash = Data(String(repeating: "a", count: j).utf8)
            return s
        }
        for (s, taken) in zip(students, [[0, 1, 4], [0, 1, 1], [3], [2, 4], []]) {
            s.courses_taken.append(contentsOf: taken.map { courses[$0] })
        }
        try db.write {
            for c in courses { try db.add(c) }
            for s in students { try db.add(s) }
        }
        return db

    case "Parser_BacklinkCount":
        let db = try directory.open([RPCountedItem.self, RPCountingPerson.self])
        let items = [5, 2, 12, 14, 20].enumerated().map { i, id in
            let item = RPCountedItem()
            item.item_id = id
            item.double_col = Double(i) + 0.5
            return item
        }
        for i in 0..<4 { items[i].`self` = items[i] }
        let people = (0..<3).map { i in
            let p = RPCountingPerson()
            p.customer_id = i
            p.fav_item = items[2 - i]
            p.float_col = Float(i) + 0.5
            return p
        }
        people[0].items.append(contentsOf: [items[0], items[1], items[2]])
        for _ in 0..<10 { people[1].items.append(items[0]) }
        people[2].items.append(contentsOf: [items[2], items[2]])
        try db.write {
            for item in items { try db.add(item) }
            for p in people { try db.add(p) }
        }
        return db

    case "Parser_substitution":
        let db = try directory.open([RPArgPerson.self])
        let fees = [2.0, 2.23, 2.22, 2.25, 3.73]
        let people = (0..<5).map { i in
            let p = RPArgPerson()
            p.age = i
            p.name = names[i]
            p.fees = fees[i]
            return p
        }
        people[0].paid = true
        people[1].paid = false
        people[1].time = rpDate(1512130073, 505)
        people[0].binary = Data("oe".utf8)
        people[1].binary = Data("eo".utf8)
        people[0].floats = 2.33
        people[1].floats = 2.22
        people[0].nuldouble = 2.33
        people[1].nuldouble = 2.22
        people[0].links = people[1]
        people[1].links = people[0]
        people[0].list.append(contentsOf: [people[0], people[1], people[2]])
        people[1].list.append(people[0])
        try db.write { for p in people { try db.add(p) } }
        return db

    case "Parser_Object":
        let db = try directory.open([RPObjectRow.self])
        let rows = (0..<3).map { i in
            let r = RPObjectRow()
            r.ints = i
            return r
        }
        rows[1].link = rows[0]
        try db.write { for r in rows { try db.add(r) } }
        return db

    case "Parser_Between":
        let db = try directory.open([RPBetweenRow.self])
        try db.write {
            for i in 0..<3 {
                let r = RPBetweenRow()
                r.age = i + 24
                r.between = i
                try db.add(r)
            }
        }
        return db

    case "Parser_ChainedStringEqualQueries":
        let db = try directory.open([RPChainedStrings.self])
        try db.write {
            for i in 0..<100 {
                let r = RPChainedStrings()
                r.a = String(i)
                r.b = String(i)
                r.c = String(i)
                r.d = String(i)
                try db.add(r)
            }
            try db.add(RPChainedStrings())
        }
        return db

    case "Parser_ChainedIntEqualQueries", "Parser_ChainedIntEqualQueries (default object removed)":
        let db = try directory.open([RPChainedInts.self])
        try db.write {
            for i in 0..<100 {
                let r = RPChainedInts()
                r.a = i
                r.b = i
                r.c = i
                r.d = i
                try db.add(r)
            }
            if upstream == "Parser_ChainedIntEqualQueries" { try db.add(RPChainedInts()) }
        }
        return db

    case "Parser_SortAndDistinct", "Parser_Limit":
        let db = try directory.open([RPAccountHolder.self, RPAccount.self])
        let accounts = [(50.55, 2), (50.55, 73), (98.92, 17)].map { balance, transactions in
            let a = RPAccount()
            a.balance = balance
            a.num_transactions = transactions
            return a
        }
        let people = [("Adam", 28), ("Frank", 30), ("Ben", 28)].enumerated().map { i, info in
            let p = RPAccountHolder()
            p.name = info.0
            p.age = info.1
            if upstream == "Parser_SortAndDistinct" { p.account = accounts[i] }
            return p
        }
        try db.write { for p in people { try db.add(p) } }
        return db

    default:
        throw RPFixtureError(description: "no fixture for \(upstream)")
    }
}

/// The shop (discounts, allergens, items, people) shared by several upstream tests, each with
/// its own variations.
private func rpShop(
    in directory: TemporaryDirectory, promotions: Bool, balances: Bool, discounts: Bool, allergens: Bool, favourites: Bool,
    bread: Bool, names: Bool
) throws -> Database {
    let db = try directory.open([RPShopPerson.self, RPItem.self, RPDiscount.self, RPAllergen.self])
    let offers = [(3.0, false), (2.5, true), (0.50, true), (1.50, true)].map { reducedBy, active in
        let d = RPDiscount()
        d.reduced_by = reducedBy
        d.active = active
        return d
    }
    if promotions {
        for (d, text) in zip(offers, ["back to school", "pizza lunch special", "manager's special"]) { d.promotion = text }
    }
    let ingredients = [("dairy", 0.75), ("nuts", 0.01), ("wheat", 0.01), ("soy", 0.005)].map { name, affected in
        let a = RPAllergen()
        a.name = name
        a.population_affected = affected
        return a
    }
    var stock = [("milk", 5.5), ("oranges", 4.0), ("pizza", 9.5), ("cereal", 6.5)]
    if bread { stock.append(("bread", 3.5)) }
    let items = stock.map { name, price in
        let item = RPItem()
        item.name = name
        item.price = price
        return item
    }
    if discounts {
        items[0].discount = offers[2]   // milk -0.50
        items[2].discount = offers[1]   // pizza -2.5
        items[3].discount = offers[0]   // cereal -3.0, inactive
    }
    if allergens {
        items[0].allergens.append(ingredients[0])
        items[2].allergens.append(contentsOf: [ingredients[0], ingredients[2], ingredients[3]])
        items[3].allergens.append(contentsOf: [ingredients[0], ingredients[1], ingredients[2]])
    }
    let people = (0..<3).map { i in
        let p = RPShopPerson()
        p.customer_id = i
        if balances { p.account_balance = Double(i + 1) * 10 }
        if favourites { p.fav_item = items[i] }
        if names { p.name = ["Adam", "James", "John"][i] }
        return p
    }
    people[0].items.append(contentsOf: [items[0], items[1], items[2], items[3]])
    for _ in 0..<10 { people[1].items.append(items[0]) }
    people[2].items.append(contentsOf: [items[2], items[2], items[3]])
    try db.write {
        for d in offers { try db.add(d) }
        for a in ingredients { try db.add(a) }
        for item in items { try db.add(item) }
        for p in people { try db.add(p) }
    }
    return db
}
