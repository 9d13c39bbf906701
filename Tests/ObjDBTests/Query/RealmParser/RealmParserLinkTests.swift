import Foundation
import Testing
import ObjDB

// Counts ported from realm-core test/test_parser.cpp through to-one links, lists and
// collection aggregates.

private func sameTable(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_LinksToSameTable", on: "RPChainPerson", q, n, reason: reason)
}
private func differentTable(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_LinksToDifferentTable", on: "RPShopPerson", q, n, reason: reason)
}
private func twoColumnPeople(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_TwoColumnAggregates", on: "RPShopPerson", q, n, reason: reason)
}
private func twoColumnItems(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_TwoColumnAggregates", on: "RPItem", q, n, reason: reason)
}
private func students(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_collection_aggregates", on: "RPStudent", q, n, reason: reason)
}

struct RealmParserLinkTests {
    let directory = TemporaryDirectory()

    static let counts: [RPCase] = [
        // realm-core test_parser.cpp: TEST(Parser_LinksToSameTable)
        sameTable(#"age > 0"#, 4),
        sameTable(#"buddy.age > 0"#, 4),
        sameTable(#"buddy.buddy.age > 0"#, 3),
        sameTable(#"buddy.buddy.buddy.age > 0"#, 2),
        sameTable(#"buddy.buddy.buddy.buddy.age > 0"#, 1),
        sameTable(#"buddy.buddy.buddy.buddy.buddy.age > 0"#, 0),

        // realm-core test_parser.cpp: TEST(Parser_LinksToDifferentTable)
        differentTable(#"items.@count > 2"#, 3),
        differentTable(#"items.price > 3.0"#, 3),
        differentTable(#"items.name ==[c] 'milk'"#, 2),
        differentTable(#"items.discount.active == true"#, 3),
        differentTable(#"items.discount.reduced_by > 2.0"#, 2),
        differentTable(#"items.@sum.price > 50"#, 1),
        differentTable(#"items.@avg.price > 7"#, 1),

        // realm-core test_parser.cpp: TEST(Parser_TwoColumnAggregates)
        twoColumnPeople(#"items.@sum.price > account_balance"#, 2),
        twoColumnPeople(#"items.@min.price > account_balance"#, 0),
        twoColumnPeople(#"items.@max.price > account_balance"#, 0),
        twoColumnPeople(#"items.@avg.price > account_balance"#, 0),
        twoColumnPeople(#"items.@count < account_balance"#, 3),
        twoColumnPeople(#"items.@count > 3"#, 2),
        twoColumnItems(#"discount.promotion == name"#, 0),
        twoColumnItems(#"discount.promotion != name"#, 4),
        twoColumnItems(#"discount.promotion CONTAINS name"#, 1),
        twoColumnItems(#"discount.promotion BEGINSWITH name"#, 1),
        twoColumnItems(#"discount.promotion ENDSWITH name"#, 0),
        twoColumnItems(#"discount.promotion LIKE name"#, 0),
        twoColumnItems(#"discount.promotion ==[c] name"#, 0),
        twoColumnItems(#"discount.promotion !=[c] name"#, 4),
        twoColumnItems(#"discount.promotion CONTAINS[c] name"#, 1),
        twoColumnItems(#"discount.promotion BEGINSWITH[c] name"#, 1),
        twoColumnItems(#"discount.promotion ENDSWITH[c] name"#, 0),
        twoColumnItems(#"discount.promotion LIKE[c] name"#, 0),

        // realm-core test_parser.cpp: TEST(Parser_collection_aggregates)
        students(#"courses_taken.@min.hours_required <= 41"#, 2),
        students(#"courses_taken.@max.hours_required >= 45"#, 2),
        students(#"courses_taken.@sum.hours_required <= 100"#, 3),
        students(#"courses_taken.@avg.hours_required > 41"#, 3),
        students(#"courses_taken.@min.credits == 4.5"#, 2),
        students(#"courses_taken.@max.credits == 5.0"#, 2),
        students(#"courses_taken.@sum.credits > 8.6"#, 2),
        students(#"courses_taken.@avg.credits > 4.0"#, 3),
        students(#"courses_taken.@min.failure_percentage < 0.10"#, 1),
        students(#"courses_taken.@max.failure_percentage > 0.40"#, 2),
        students(#"courses_taken.@sum.failure_percentage > 0.5"#, 3),
        students(#"courses_taken.@avg.failure_percentage > 0.40"#, 1),
        students(#"courses_taken.@count > 2"#, 2),
        students(#"courses_taken.@size > 2"#, 2),
        students(#"courses_taken.@count == 0"#, 1),
        students(#"courses_taken.@size == 0"#, 1),
        twoColumnPeople(#"customer_id < items.@count"#, 3),
        twoColumnPeople(#"customer_id < items.@size"#, 3),
        twoColumnPeople(#"items.@min.price > items.@count"#, 1),
        twoColumnPeople(#"items.@min.price > items.@size"#, 1),
        twoColumnItems(#"discount.@count < name.@count"#, 4),
        twoColumnItems(#"discount.promotion.@count > name.@count"#, 3),
        students(#"name.@count == 0"#, 0),
        students(#"name.@size == 0"#, 0),
        students(#"name.@count > 3"#, 3),
        students(#"name.@size > 3"#, 3),
        students(#"hash.@count == 0"#, 1),
        students(#"hash.@size == 0"#, 1),
        students(#"hash.@count > 2"#, 2),
        students(#"hash.@size > 2"#, 2),
    ]

    static let knownFailingCounts: [RPCase] = [
    ]

    static let rejected: [RPCase] = [
        // realm-core test_parser.cpp: TEST(Parser_LinksToSameTable) — CHECK_THROW
        sameTable(#"buddy.buddy.missing_property > 2"#, nil),
        // realm-core test_parser.cpp: TEST(Parser_LinksToDifferentTable) — CHECK_THROW
        differentTable(#"missing_property > 2"#, nil),
        differentTable(#"items.absent_property > 2"#, nil),
        differentTable(#"items.discount.nonexistent_property > 2"#, nil),
        differentTable(#"customer_id.property > 2"#, nil),
        differentTable(#"items.price.property > 2"#, nil),
        // realm-core test_parser.cpp: TEST(Parser_TwoColumnAggregates) — CHECK_THROW
        twoColumnPeople(#"items.@min.name > account_balance"#, nil),
        twoColumnPeople(#"items.@max.name > account_balance"#, nil),
        twoColumnPeople(#"items.@sum.name > account_balance"#, nil),
        twoColumnPeople(#"items.@avg.name > account_balance"#, nil),
        twoColumnPeople(#"items.@min.discount > account_balance"#, nil),
        twoColumnPeople(#"items.@max.discount > account_balance"#, nil),
        twoColumnPeople(#"items.@sum.discount > account_balance"#, nil),
        twoColumnPeople(#"items.@avg.discount > account_balance"#, nil),
        // realm-core test_parser.cpp: TEST(Parser_collection_aggregates) — CHECK_THROW
        students(#"courses_taken.@min.title <= 41"#, nil),
        students(#"courses_taken.@max.title <= 41"#, nil),
        students(#"courses_taken.@sum.title <= 41"#, nil),
        students(#"courses_taken.@avg.title <= 41"#, nil),
        students(#"courses_taken.@min <= 41"#, nil),
        students(#"courses_taken.@max <= 41"#, nil),
        students(#"courses_taken.@sum <= 41"#, nil),
        students(#"courses_taken.@avg <= 41"#, nil),
        students(#"name.@min.hours_required <= 41"#, nil),
        students(#"name.@max.hours_required <= 41"#, nil),
        students(#"name.@sum.hours_required <= 41"#, nil),
        students(#"name.@avg.hours_required <= 41"#, nil),
        students(#"name.@count.hours_required <= 2"#, nil),
        students(#"name.@size.hours_required <= 2"#, nil),
        students(#"age.@size <= 2"#, nil),
        RPCase("Parser_collection_aggregates", on: "RPCourse", #"credits.@size == 2"#, nil),
        RPCase("Parser_collection_aggregates", on: "RPCourse", #"failure_percentage.@size <= 2"#, nil),
        differentTable(#"items != NULL"#, nil),
        differentTable(#"items == NULL"#, nil),
    ]

    static let knownFailingRejected: [RPCase] = [
    ]

    @Test(arguments: counts) func count(_ testCase: RPCase) {
        rpCheck(testCase, in: directory)
    }

    @Test(arguments: knownFailingCounts) func knownFailingCount(_ testCase: RPCase) {
        rpCheckKnownFailing(testCase, in: directory)
    }

    @Test(arguments: rejected) func rejects(_ testCase: RPCase) {
        rpCheck(testCase, in: directory)
    }

    @Test(arguments: knownFailingRejected) func knownFailingRejects(_ testCase: RPCase) {
        rpCheckKnownFailing(testCase, in: directory)
    }
}
