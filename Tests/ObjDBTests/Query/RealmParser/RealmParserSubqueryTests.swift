import Foundation
import Testing
import ObjDB

// Counts ported from realm-core test/test_parser.cpp: SUBQUERY, ANY/SOME/ALL/NONE and IN over
// the shop (upstream's `class_Person`/`class_Items` are RPShopPerson/RPItem).

private func subquery(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_Subquery", on: "RPShopPerson", q, n, reason: reason)
}
private func shortcutPeople(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_AggregateShortcuts", on: "RPShopPerson", q, n, reason: reason)
}
private func shortcutItems(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_AggregateShortcuts", on: "RPItem", q, n, reason: reason)
}
private func inPeople(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_OperatorIN", on: "RPShopPerson", q, n, reason: reason)
}
private func inItems(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_OperatorIN", on: "RPItem", q, n, reason: reason)
}

struct RealmParserSubqueryTests {
    let directory = TemporaryDirectory()

    static let counts: [RPCase] = [
        // realm-core test_parser.cpp: TEST(Parser_Subquery)
        subquery(#"SUBQUERY(items, $x, TRUEPREDICATE).@count > 0"#, 3),
        subquery(#"!SUBQUERY(items, $x, TRUEPREDICATE).@count > 0"#, 0),
        subquery(#"SUBQUERY(items, $x, !TRUEPREDICATE).@count > 0"#, 0),
        subquery(#"SUBQUERY(items, $x, FALSEPREDICATE).@count == 0"#, 3),
        subquery(#"!SUBQUERY(items, $x, FALSEPREDICATE).@count == 0"#, 0),
        subquery(#"SUBQUERY(items, $x, !FALSEPREDICATE).@count == 0"#, 0),
        subquery(#"SUBQUERY(items, $x, 5.5 == $x.price ).@count > 0"#, 2),
        subquery(#"SUBQUERY(items, $x, $x.name CONTAINS[c] 'MILK').@count >= 1"#, 2),
        subquery(#"SUBQUERY(items, $x, $x.name CONTAINS[c] 'MILK' && $x.price == 5.5).@count >= 1"#, 2),
        subquery(#"SUBQUERY(items, $x, $x.name CONTAINS[c] 'MILK' || $x.price >= 5.5).@count >= 1"#, 3),
        subquery(#"SUBQUERY(items, $x, $x.allergens.@count > 1).@count > 0"#, 2),
        subquery(#"SUBQUERY(items, $x, $x.allergens.@min.population_affected < 0.10).@count > 0"#, 2),
        subquery(#"SUBQUERY(items, $x, $x.allergens.@max.population_affected > 0.50).@count > 0"#, 3),
        subquery(#"SUBQUERY(items, $x, $x.allergens.@sum.population_affected > 0.75).@count > 0"#, 2),
        subquery(#"SUBQUERY(items, $x, $x.allergens.@avg.population_affected > 0.50).@count > 0"#, 2),
        subquery(#"SUBQUERY(items, $x, $x.discount.promotion CONTAINS[c] $x.name).@count > 0"#, 2),
        subquery(#"SUBQUERY(items, $x, $x.discount.promotion CONTAINS[c] $x.name).@count < account_balance"#, 3),
        subquery(#"SUBQUERY(fav_item.allergens, $x, $x.name CONTAINS[c] 'dairy').@count > 0"#, 2),
        subquery(#"SUBQUERY(items, $x, SUBQUERY($x.allergens, $allergy, $allergy.name CONTAINS[c] 'dairy').@count > 0).@count > 0"#, 3),

        // realm-core test_parser.cpp: TEST(Parser_AggregateShortcuts)
        shortcutPeople(#"items.price == 5.5"#, 2),
        shortcutPeople(#"ANY items.price == 5.5"#, 2),
        shortcutPeople(#"SOME items.price == 5.5"#, 2),
        shortcutPeople(#"ALL items.price == 5.5"#, 1),
        shortcutPeople(#"NONE items.price == 5.5"#, 1),
        shortcutPeople(#"customer_id > 0 and ANY items.price == 5.5"#, 1),
        shortcutPeople(#"customer_id > 0 and SOME items.price == 5.5"#, 1),
        shortcutPeople(#"customer_id > 0 and ALL items.price == 5.5"#, 1),
        shortcutPeople(#"customer_id > 0 and NONE items.price == 5.5"#, 1),
        shortcutPeople(#"customer_id > 1 or ANY items.price == 5.5"#, 3),
        shortcutPeople(#"customer_id > 1 or SOME items.price == 5.5"#, 3),
        shortcutPeople(#"customer_id > 1 or ALL items.price == 5.5"#, 2),
        shortcutPeople(#"customer_id > 1 or NONE items.price == 5.5"#, 1),
        shortcutPeople(#"!(ANY items.price == 5.5)"#, 1),
        shortcutPeople(#"!(SOME items.price == 5.5)"#, 1),
        shortcutPeople(#"!(ALL items.price == 5.5)"#, 2),
        shortcutPeople(#"!(NONE items.price == 5.5)"#, 2),
        shortcutPeople(#"SUBQUERY(items, $x, $x.allergens.name CONTAINS[c] 'WHEAT').@count > 0"#, 2),
        shortcutPeople(#"SUBQUERY(items, $x, ANY $x.allergens.name CONTAINS[c] 'WHEAT').@count > 0"#, 2),
        shortcutPeople(#"SUBQUERY(items, $x, SOME $x.allergens.name CONTAINS[c] 'WHEAT').@count > 0"#, 2),
        shortcutPeople(#"SUBQUERY(items, $x, ALL $x.allergens.name CONTAINS[c] 'WHEAT').@count > 0"#, 1),
        shortcutPeople(#"SUBQUERY(items, $x, NONE $x.allergens.name CONTAINS[c] 'WHEAT').@count > 0"#, 2),
        shortcutPeople(#"ANY fav_item.allergens.name CONTAINS 'dairy'"#, 2),
        shortcutPeople(#"SOME fav_item.allergens.name CONTAINS 'dairy'"#, 2),
        shortcutPeople(#"ALL fav_item.allergens.name CONTAINS 'dairy'"#, 2),
        shortcutPeople(#"NONE fav_item.allergens.name CONTAINS 'dairy'"#, 1),
        shortcutPeople(#"ANY items.name == fav_item.name"#, 2),
        shortcutPeople(#"SOME items.name == fav_item.name"#, 2),

        // realm-core test_parser.cpp: TEST(Parser_OperatorIN)
        inPeople(#"5.5 IN items.price"#, 2),
        inPeople(#"!(5.5 IN items.price)"#, 1),
        inPeople(#"'milk' IN items.name"#, 2),
        inPeople(#"'MiLk' IN[c] items.name"#, 2),
        inPeople(#"NULL IN items.price"#, 0),
        inPeople(#"'dairy' IN fav_item.allergens.name"#, 2),
        inPeople(#"fav_item.price IN items.price"#, 2),
        subquery(#"SUBQUERY(items, $x, $x.name.@size == 4).@count > 0"#, 2),
        shortcutPeople(#"ANY items.price == items.@max.price"#, 3),
        shortcutPeople(#"SOME items.price == items.@max.price"#, 3),
        shortcutPeople(#"ANY items.price == items.@min.price"#, 3),
        shortcutPeople(#"SOME items.price == items.@min.price"#, 3),
        shortcutPeople(#"ANY items.price > items.@avg.price"#, 2),
        shortcutPeople(#"SOME items.price > items.@avg.price"#, 2),
        shortcutItems(#"ANY @links.RPShopPerson.items.account_balance > 15"#, 3),
        shortcutItems(#"SOME @links.RPShopPerson.items.account_balance > 15"#, 3),
        shortcutItems(#"ALL @links.RPShopPerson.items.account_balance > 15"#, 0),
        shortcutItems(#"NONE @links.RPShopPerson.items.account_balance > 15"#, 1),
        shortcutItems(#"ANY @links.RPShopPerson.items.fav_item.name CONTAINS 'milk'"#, 4),
        shortcutItems(#"SOME @links.RPShopPerson.items.fav_item.name CONTAINS 'milk'"#, 4),
        shortcutItems(#"ALL @links.RPShopPerson.items.fav_item.name CONTAINS 'milk'"#, 1),
        shortcutItems(#"NONE @links.RPShopPerson.items.fav_item.name CONTAINS 'milk'"#, 0),
        inItems(#"20 IN @links.RPShopPerson.items.account_balance"#, 1),
        subquery(#"SUBQUERY(items, $anyNAME_-0123456789, 5.5 == $anyNAME_-0123456789.price ).@count > 0"#, 2),
    ]

    static let knownFailingCounts: [RPCase] = [
    ]

    static let rejected: [RPCase] = [
        // realm-core test_parser.cpp: TEST(Parser_Subquery) — CHECK_THROW
        subquery(#"SUBQUERY(items, $x.y, 5.5 == $x.y.price ).@count > 0"#, nil),
        subquery(#"SUBQUERY(items, x, 5.5 == x.y.price ).@count > 0"#, nil),
        subquery(#"SUBQUERY(items, $x, SUBQUERY($x.discount.@links.RPItem.discount, $x, $x.price > 5).@count > 0).@count > 0"#, nil),
        subquery(#"SUBQUERY(account_balance, $x, TRUEPREDICATE).@count > 0"#, nil),
        subquery(#"SUBQUERY(fav_item, $x, TRUEPREDICATE).@count > 0"#, nil),
        // realm-core test_parser.cpp: TEST(Parser_AggregateShortcuts) — CHECK_THROW
        shortcutPeople(#"ALL fav_item.name == 'milk'"#, nil),
        shortcutPeople(#"NONE fav_item.name == 'milk'"#, nil),
        shortcutPeople(#"ANY 'milk' == fav_item.name"#, nil),
        shortcutPeople(#"SOME 'milk' == fav_item.name"#, nil),
        shortcutPeople(#"ALL 'milk' == fav_item.name"#, nil),
        shortcutPeople(#"NONE 'milk' == fav_item.name"#, nil),
        // realm-core test_parser.cpp: TEST(Parser_OperatorIN) — CHECK_THROW
        inPeople(#"ANY 5.5 IN items.price"#, nil),
        inPeople(#"SOME 5.5 IN items.price"#, nil),
        inPeople(#"ALL 5.5 IN items.price"#, nil),
        inPeople(#"NONE 5.5 IN items.price"#, nil),
        inPeople(#"items.price IN 5.5"#, nil),
        inPeople(#"items.price IN items.price"#, nil),
        // realm-core test_parser.cpp (old and current): TEST(Parser_OperatorIN) — CHECK_THROW: the key
        // path after IN reaches one value
        inPeople(#"5.5 in fav_item.price"#, nil),
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
