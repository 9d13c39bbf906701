import Foundation
import Testing
import ObjDB

// Counts ported from realm-core test/test_parser.cpp over backlinks: `@links.<Class>.<property>`
// paths (upstream's `class_Person` and `class_Items` are our RPShopPerson/RPItem in
// Parser_Backlinks and RPCountingPerson/RPCountedItem in Parser_BacklinkCount), `@links.@count`,
// and upstream's key-path mapping `purchasers`, declared here as linking objects.

private func backlinkItems(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_Backlinks", on: "RPItem", q, n, reason: reason)
}
private func backlinkPeople(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_Backlinks", on: "RPShopPerson", q, n, reason: reason)
}
private func countedItems(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_BacklinkCount", on: "RPCountedItem", q, n, reason: reason)
}
private func countingPeople(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_BacklinkCount", on: "RPCountingPerson", q, n, reason: reason)
}

struct RealmParserBacklinkTests {
    let directory = TemporaryDirectory()

    static let counts: [RPCase] = [
        // realm-core test_parser.cpp: TEST(Parser_Backlinks)
        // upstream's mapping purchasers → @links.class_Person.items (and money → account_balance)
        backlinkItems(#"purchasers.@max.account_balance >= 20"#, 3),

        // realm-core test_parser.cpp: TEST(Parser_BacklinkCount)
        backlinkItems(#"purchasers.@count > 2"#, 2),
        backlinkItems(#"@links.RPShopPerson.fav_item.account_balance > 20"#, 1),
        backlinkItems(#"@links.RPShopPerson.items.account_balance > 20"#, 2),
        backlinkItems(#"@links.RPShopPerson.items.name LIKE[c] 'j*'"#, 3),
        backlinkItems(#"@links.RPShopPerson.items.name BEGINSWITH 'J'"#, 3),
        backlinkItems(#"@links.RPShopPerson.items.@count > 2"#, 2),
        backlinkItems(#"@LINKS.RPShopPerson.items.@size > 2"#, 2),
        // realm-core test_parser.cpp (current): TEST(Parser_Backlinks) — spelled @links now
        backlinkItems(#"@links.RPShopPerson.items.@size > 2"#, 2),
        backlinkItems(#"@links.RPShopPerson.items.@min.account_balance <= 10"#, 4),
        backlinkItems(#"@links.RPShopPerson.items.@max.account_balance > 10"#, 3),
        backlinkItems(#"@links.RPShopPerson.items.@avg.account_balance > 20"#, 1),
        backlinkItems(#"@links.RPShopPerson.items.@sum.account_balance > 20"#, 3),
        backlinkItems(#"SUBQUERY(@links.RPShopPerson.items, $x, $x.account_balance >= 20).@count > 2"#, 1),
        backlinkPeople(#"fav_item.@links.RPShopPerson.fav_item.@count > 1"#, 0),
        countedItems(#"@links.@count == 0"#, 1),
        backlinkPeople(#"fav_item.@links.RPShopPerson.items.@count > 1 "#, 2),
        countedItems(#"@links.@count == 0 && item_id == 20"#, 1),
        countedItems(#"@links.@count == 1"#, 1),
        countedItems(#"@links.@count == 1 && item_id == 14"#, 1),
        countedItems(#"@links.@count == 5"#, 1),
        countedItems(#"@links.@count == 5 && item_id == 12"#, 1),
        countedItems(#"@links.@count == 3"#, 1),
        countedItems(#"@links.@count == 3 && item_id == 2"#, 1),
        countedItems(#"@links.@count == 13"#, 1),
        countedItems(#"@links.@count == 13 && item_id == 5"#, 1),
        countedItems(#"@links.@size == 0"#, 1),
        countedItems(#"@links.@size == 0 && item_id == 20"#, 1),
        countingPeople(#"fav_item.@links.@count == 5 && fav_item.item_id == 12"#, 1),
        countingPeople(#"fav_item.@links.@count == 3 && fav_item.item_id == 2"#, 1),
        countingPeople(#"fav_item.@links.@count == 13 && fav_item.item_id == 5"#, 1),
        countedItems(#"@links.RPCountedItem.self.@links.@count == 1 && item_id == 14"#, 1),
        countedItems(#"@links.RPCountingPerson.fav_item.fav_item.@links.@count == 3 && item_id == 2"#, 1),
        countedItems(#"@links.@count >= item_id"#, 2),
        countedItems(#"@links.@count == 0.0"#, 1),
        countedItems(#"@links.@count >= double_col"#, 3),
        countedItems(#"@links.@count >= self.@count"#, 5),
        countingPeople(#"items.@count >= fav_item.@links.@count"#, 1),
        countedItems(#"@links.@count == @links.RPCountingPerson.fav_item.@count"#, 1),
        countedItems(#"@links.@count == @links.RPCountingPerson.items.@count"#, 1),
        countedItems(#"@links.@count == @links.RPCountedItem.self.@count"#, 2),
        countingPeople(#"items.@links.@count == 21 && customer_id == 0"#, 1),
        countingPeople(#"items.@links.@count == 130 && customer_id == 1"#, 1),
        countingPeople(#"items.@links.@count == 10 && customer_id == 2"#, 1),
        countedItems(#"@links.RPCountingPerson.items.@links.@count == 0"#, 5),
        countedItems(#"@links.RPCountingPerson.fav_item.items.@links.@count == 130 && item_id == 2"#, 1),
        countedItems(#"@links.@count >= @links.RPCountingPerson.fav_item.customer_id"#, 3),
        countedItems(#"@links.@count >= @links.RPCountingPerson.fav_item.float_col"#, 3),
    ]

    static let knownFailingCounts: [RPCase] = [
    ]

    static let rejected: [RPCase] = [
        // realm-core test_parser.cpp: TEST(Parser_Backlinks) — CHECK_THROW
        backlinkItems(#"@links.RPShopPerson.items == NULL"#, nil),
        backlinkItems(#"@links.RPShopPerson.fav_item == NULL"#, nil),
        backlinkItems(#"@links.attr. > 0"#, nil),
        backlinkItems(#"@links.RPFactory.items > 0"#, nil),
        backlinkItems(#"@links.RPShopPerson.artifacts > 0"#, nil),
        // realm-core test_parser.cpp: TEST(Parser_BacklinkCount) — CHECK_THROW
        countedItems(#"@links.@count == 'string'"#, nil),
        countedItems(#"@links.@count == 2018-04-09@14:21:0"#, nil),
        countedItems(#"@links.@count.item_id == 0"#, nil),
        countedItems(#"@links.@count.@avg.items_id == 0"#, nil),
        countedItems(#"@links.@avg == 1"#, nil),
        countedItems(#"@links.@sum == 1"#, nil),
        countedItems(#"@links.@min == 1"#, nil),
        countedItems(#"@links.@max == 1"#, nil),
        countedItems(#"@links.@avg.item_id == 1"#, nil),
        countedItems(#"@links.@sum.item_id == 1"#, nil),
        countedItems(#"@links.@min.item_id == 1"#, nil),
        countedItems(#"@links.@max.item_id == 1"#, nil),
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
