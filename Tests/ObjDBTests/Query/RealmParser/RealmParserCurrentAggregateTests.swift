import Foundation
import Testing
import ObjDB

// Counts ported from the current realm-core test/test_parser.cpp: aggregates, quantifiers and IN
// over the shop (upstream's `class_Person`/`class_Items` are RQShopPerson/RQItem), and the new
// timestamp aggregates of Parser_collection_aggregates.

/// The shop: discounts (3.0 inactive, 2.5, 0.50, 1.50 with promotions), allergens, items milk 5.5,
/// oranges 4.0, pizza 9.5, cereal 6.5 (negated for Parser_NegativeAgg) in Double, Float and Decimal
/// columns, created at T(price·10):0; three people with balances 10, 20, 30 created at T30, T50,
/// T70, favourite item i, and lists [milk, oranges, pizza, cereal], [milk × 10], [pizza, pizza, cereal].
func rqShop(_ directory: TemporaryDirectory, negative: Bool = false) throws -> Database {
    let db = try directory.open([RQShopPerson.self, RQItem.self, RQDiscount.self, RQAllergen.self])
    let discounts = [(3.0, false), (2.5, true), (0.50, true), (1.50, true)].map { reducedBy, active in
        let d = RQDiscount()
        d.reduced_by = reducedBy
        d.active = active
        return d
    }
    for (d, text) in zip(discounts, ["back to school", "pizza lunch special", "manager's special"]) { d.promotion = text }
    let allergens = [("dairy", 0.75), ("nuts", 0.01), ("wheat", 0.01), ("soy", 0.005)].map { name, affected in
        let a = RQAllergen()
        a.name = name
        a.population_affected = affected
        return a
    }
    let items = [("milk", 5.5), ("oranges", 4.0), ("pizza", 9.5), ("cereal", 6.5)].map { name, price in
        let item = RQItem()
        let signed = negative ? -price : price
        item.name = name
        item.price = signed
        item.price_float = Float(signed)
        item.price_decimal = Decimal(string: String(signed)) ?? 0
        item.creation_date = rqSeconds(Int(price * 10))
        return item
    }
    if !negative {
        items[0].discount = discounts[2]
        items[2].discount = discounts[1]
        items[3].discount = discounts[0]
        items[0].allergens.append(allergens[0])
        items[2].allergens.append(contentsOf: [allergens[0], allergens[2], allergens[3]])
        items[3].allergens.append(contentsOf: [allergens[0], allergens[1], allergens[2]])
    }
    let people = (0..<3).map { i in
        let p = RQShopPerson()
        p.customer_id = i
        p.account_balance = Double(i + 1) * 10
        p.account_balance_float = Float(i + 1) * 10
        p.account_balance_decimal = Decimal((i + 1) * 10)
        p.account_creation_date = rqSeconds(30 + 20 * i)
        if !negative { p.fav_item = items[i] }
        return p
    }
    people[0].items.append(contentsOf: items)
    for _ in 0..<10 { people[1].items.append(items[0]) }
    people[2].items.append(contentsOf: [items[2], items[2], items[3]])
    try db.write {
        for d in discounts { try db.add(d) }
        for a in allergens { try db.add(a) }
        for item in items { try db.add(item) }
        for p in people { try db.add(p) }
    }
    return db
}

struct RealmParserCurrentAggregateTests {
    let directory = TemporaryDirectory()

    // realm-core test_parser.cpp (current): TEST(Parser_NegativeAgg)
    static let negative: [RQCase] = [
        RQCase("items.@min.price == -9.5", 2),
        RQCase("items.@max.price == -4.0", 1),
        RQCase("items.@sum.price == -25.5", 2),
        RQCase("items.@avg.price == -6.375", 1),
        RQCase("items.@min.price_float == -9.5", 2),
        RQCase("items.@max.price_float == -4.0", 1),
        RQCase("items.@sum.price_float == -25.5", 2),
        RQCase("items.@avg.price_float == -6.375", 1),
        RQCase("items.@min.price_decimal == -9.5", 2),
        RQCase("items.@max.price_decimal == -4.0", 1),
        RQCase("items.@sum.price_decimal == -25.5", 2),
        RQCase("items.@avg.price_decimal == -6.375", 1),
    ]
    static let knownFailingNegative: [RQCase] = []

    @Test(arguments: rqExcluding(negative, knownFailingNegative)) func negativeAggregate(_ c: RQCase) {
        rqCheck("Parser_NegativeAgg", RQShopPerson.self, c) { try rqShop(directory, negative: true) }
    }
    @Test(arguments: knownFailingNegative) func knownFailingNegativeAggregate(_ c: RQCase) {
        rqCheckKnownFailing("Parser_NegativeAgg", RQShopPerson.self, c) { try rqShop(directory, negative: true) }
    }

    // realm-core test_parser.cpp (current): TEST(Parser_TwoColumnAggregates) — the Double cases on
    // class_Person, and the Float, Decimal128 and Timestamp columns added since the old version
    static let twoColumnPeople: [RQCase] = [
        RQCase("items.@sum.price == 25.5", 2),
        RQCase("items.@min.price == 4.0", 1),
        RQCase("items.@max.price == 9.5", 2),
        RQCase("items.@avg.price == 6.375", 1),
        // no integer promotion: a count equals 3.0 and never 3.1
        RQCase("items.@count == 3.0", 1),
        RQCase("items.@count == 3.1", 0),
        RQCase("items.@sum.price_float == 25.5", 2),
        RQCase("items.@min.price_float == 4.0", 1),
        RQCase("items.@max.price_float == 9.5", 2),
        RQCase("items.@avg.price_float == 6.375", 1),
        RQCase("items.@sum.price_float > account_balance_float", 2),
        RQCase("items.@min.price_float > account_balance_float", 0),
        RQCase("items.@max.price_float > account_balance_float", 0),
        RQCase("items.@avg.price_float > account_balance_float", 0),
        RQCase("items.@sum.price_decimal == 25.5", 2),
        RQCase("items.@min.price_decimal == 4.0", 1),
        RQCase("items.@max.price_decimal == 9.5", 2),
        RQCase("items.@avg.price_decimal == 6.375", 1),
        RQCase("items.@sum.price_decimal > account_balance_decimal", 2),
        RQCase("items.@min.price_decimal > account_balance_decimal", 0),
        RQCase("items.@max.price_decimal > account_balance_decimal", 0),
        RQCase("items.@avg.price_decimal > account_balance_decimal", 0),
        RQCase("items.@min.creation_date == T40:0", 1),
        RQCase("items.@max.creation_date == T95:0", 2),
        RQCase("items.@min.creation_date > account_creation_date", 2),
        RQCase("items.@max.creation_date > account_creation_date", 3),
        // CHECK_THROW: no @sum or @avg of timestamps
        RQCase("items.@sum.creation_date > account_creation_date", nil),
        RQCase("items.@avg.creation_date > account_creation_date", nil),
    ]
    static let knownFailingTwoColumnPeople: [RQCase] = []
    // realm-core test_parser.cpp (current): TEST(Parser_TwoColumnAggregates) — expectations changed since the
    // old version (which expected both to throw): a string's length against a double
    static let twoColumnItems: [RQCase] = [
        RQCase("name.@count > price", 1),
        RQCase("price < name.@size", 1),
    ]
    static let knownFailingTwoColumnItems: [RQCase] = [
    ]

    @Test(arguments: rqExcluding(twoColumnPeople, knownFailingTwoColumnPeople)) func twoColumnPerson(_ c: RQCase) {
        rqCheck("Parser_TwoColumnAggregates", RQShopPerson.self, c) { try rqShop(directory) }
    }
    @Test(arguments: knownFailingTwoColumnPeople) func knownFailingTwoColumnPerson(_ c: RQCase) {
        rqCheckKnownFailing("Parser_TwoColumnAggregates", RQShopPerson.self, c) { try rqShop(directory) }
    }
    @Test(arguments: rqExcluding(twoColumnItems, knownFailingTwoColumnItems)) func twoColumnItem(_ c: RQCase) {
        rqCheck("Parser_TwoColumnAggregates", RQItem.self, c) { try rqShop(directory) }
    }
    @Test(arguments: knownFailingTwoColumnItems) func knownFailingTwoColumnItem(_ c: RQCase) {
        rqCheckKnownFailing("Parser_TwoColumnAggregates", RQItem.self, c) { try rqShop(directory) }
    }

    // realm-core test_parser.cpp (current): TEST(Parser_AggregateShortcuts) — cases added or changed since the
    // old version (which expected the multi-list and single-link quantifiers to throw)
    static let shortcuts: [RQCase] = [
        RQCase("ANY items.name == 'milk'", 2),
        RQCase("SOME items.name == 'milk'", 2),
        RQCase("ALL items.name == 'milk'", 1),
        RQCase("NONE items.name == 'milk'", 1),
        RQCase("ALL items.name == fav_item.name", 0),
        RQCase("NONE items.name == fav_item.name", 1),
        RQCase("ANY fav_item.name == 'milk'", 1),
        RQCase("SOME fav_item.name == 'milk'", 1),
        RQCase("ANY items.allergens.name == 'dairy'", 3),
        RQCase("SOME items.allergens.name == 'dairy'", 3),
        RQCase("ALL items.allergens.name == 'dairy'", 1),
        RQCase("NONE items.allergens.name == 'dairy'", 0),
        // realm-core test_parser.cpp (current): TEST(Parser_OperatorIN) — changed: no longer throws
        RQCase("'dairy' in items.allergens.name", 3),
        // realm-core test_parser.cpp (current): TEST(Parser_LinksToDifferentTable) — CHECK_THROW added:
        // null cannot be compared to a list
        RQCase("items.discount == NULL", nil),
    ]
    static let knownFailingShortcuts: [RQCase] = [
    ]

    @Test(arguments: rqExcluding(shortcuts, knownFailingShortcuts)) func shortcut(_ c: RQCase) {
        rqCheck("Parser_AggregateShortcuts", RQShopPerson.self, c) { try rqShop(directory) }
    }
    @Test(arguments: knownFailingShortcuts) func knownFailingShortcut(_ c: RQCase) {
        rqCheckKnownFailing("Parser_AggregateShortcuts", RQShopPerson.self, c) { try rqShop(directory) }
    }
}

// MARK: - Parser_collection_aggregates

struct RealmParserCurrentCollectionAggregateTests {
    let directory = TemporaryDirectory()

    /// Courses Math, Comp Sci, Chemistry, English, Physics starting at T10 … T14; students Billy
    /// [0, 1, 4], Bob [0, 1, 1], Joe [3], Jane [2, 4], Joel [].
    func fixture() throws -> Database {
        let db = try directory.open([RQStudent.self, RQCourse.self])
        let courses = [("Math", 5.0, 42, Float(0.36)), ("Comp Sci", 4.5, 45, Float(0.25)), ("Chemistry", 4.0, 41, Float(0.40)),
                       ("English", 3.5, 40, Float(0.07)), ("Physics", 4.5, 42, Float(0.42))].enumerated().map { i, info in
            let c = RQCourse()
            c.title = info.0
            c.credits = info.1
            c.hours_required = info.2
            c.failure_percentage = info.3
            c.start_date = rqSeconds(10 + i)
            return c
        }
        let students = [("Billy", 18), ("Bob", 17), ("Joe", 19), ("Jane", 20), ("Joel", 18)].enumerated().map { j, info in
            let s = RQStudent()
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
    }

    // realm-core test_parser.cpp (current): TEST(Parser_collection_aggregates) — the timestamp cases
    static let cases: [RQCase] = [
        RQCase("courses_taken.@min.start_date < T12:0", 2),
        RQCase("courses_taken.@max.start_date > T12:0", 3),
    ]
    static let knownFailingCases: [RQCase] = []

    @Test(arguments: rqExcluding(cases, knownFailingCases)) func check(_ c: RQCase) {
        rqCheck("Parser_collection_aggregates", RQStudent.self, c, fixture: fixture)
    }
    @Test(arguments: knownFailingCases) func knownFailing(_ c: RQCase) {
        rqCheckKnownFailing("Parser_collection_aggregates", RQStudent.self, c, fixture: fixture)
    }
}
