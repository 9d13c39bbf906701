import Foundation
import Testing
import ObjDB

// Model classes recreating the tables that realm-core's test/test_parser.cpp builds. Property
// names are upstream's column names (snake_case included) so that the query strings are the
// same; class names carry an `RP` prefix, and `@links.<Class>.<property>` paths name them.

// MARK: Parser_empty_input

final class RPIntRow: Object {
    @Persisted var int_col: Int = 0
}

// MARK: Parser_basic_serialisation

final class RPBasicPerson: Object {
    @Persisted(indexed: true) var age: Int = 0
    @Persisted var name: String = ""
    @Persisted var fees: Double? = nil
    @Persisted var licensed: Bool? = nil
    @Persisted var buddy: RPBasicPerson?
    @Persisted var time: Date? = nil
}

// MARK: Parser_LinksToSameTable

final class RPChainPerson: Object {
    @Persisted var age: Int = 0
    @Persisted var name: String = ""
    @Persisted var buddy: RPChainPerson?
}

// MARK: Parser_StringOperations

final class RPFamilyPerson: Object {
    @Persisted var name: String? = nil
    @Persisted var father: RPFamilyPerson?
}

// MARK: Parser_Timestamps (the column `T2017-12-04` is not a Swift identifier and is left out)

final class RPTimesRow: Object {
    /// Realm's non-null timestamps default to the 1970 epoch; every object sets it explicitly.
    @Persisted var birthday: Date = Date(timeIntervalSince1970: 0)
    @Persisted var T399: Date? = nil
    @Persisted var linked: RPTimesRow?
}

// MARK: Parser_NullableBinaries

final class RPBinItem: Object {
    @Persisted var data: Data = Data()
    @Persisted var nullable_data: Data? = nil
}

final class RPBinPerson: Object {
    @Persisted var fav_item: RPBinItem?
}

// MARK: Parser_OverColumnIndexChanges

final class RPColumnsRow: Object {
    @Persisted var to_remove: Int = 0
    @Persisted var ints: Int = 0
    @Persisted var doubles: Double = 0
    @Persisted var strings: String = ""
}

// MARK: Parser_TwoColumnExpressionBasics

final class RPTwoColumnRow: Object {
    @Persisted var ints: Int? = nil
    @Persisted var doubles: Double = 0
    @Persisted var strings: String = ""
    @Persisted var link: RPTwoColumnRow?
}

// MARK: The shop of Parser_LinksToDifferentTable, Parser_TwoColumnAggregates, Parser_Backlinks,
// Parser_Subquery, Parser_AggregateShortcuts and Parser_OperatorIN

final class RPDiscount: Object {
    @Persisted var promotion: String? = nil
    @Persisted var reduced_by: Double = 0
    @Persisted var active: Bool = false
}

final class RPAllergen: Object {
    @Persisted var name: String = ""
    @Persisted var population_affected: Double = 0
}

final class RPItem: Object {
    @Persisted var name: String = ""
    @Persisted var price: Double = 0
    @Persisted var discount: RPDiscount?
    @Persisted var allergens: List<RPAllergen>
    /// Upstream's key-path mapping `purchasers` → `@links.class_Person.items`, as a declared inverse.
    @Persisted(originProperty: "items") var purchasers: LinkingObjects<RPShopPerson>
}

final class RPShopPerson: Object {
    @Persisted var customer_id: Int = 0
    @Persisted var name: String = ""
    @Persisted var account_balance: Double = 0
    @Persisted var items: List<RPItem>
    @Persisted var fav_item: RPItem?
}

// MARK: Parser_collection_aggregates

final class RPCourse: Object {
    @Persisted var title: String = ""
    @Persisted var credits: Double = 0
    @Persisted var hours_required: Int = 0
    @Persisted var failure_percentage: Float = 0
}

final class RPStudent: Object {
    @Persisted var age: Int = 0
    @Persisted var name: String = ""
    @Persisted var courses_taken: List<RPCourse>
    @Persisted var hash: Data = Data()
}

// MARK: Parser_BacklinkCount

final class RPCountedItem: Object {
    @Persisted var item_id: Int = 0
    @Persisted var `self`: RPCountedItem?
    @Persisted var double_col: Double = 0
}

final class RPCountingPerson: Object {
    @Persisted var customer_id: Int = 0
    @Persisted var items: List<RPCountedItem>
    @Persisted var fav_item: RPCountedItem?
    @Persisted var float_col: Float = 0
}

// MARK: Parser_substitution

final class RPArgPerson: Object {
    @Persisted var age: Int = 0
    @Persisted var name: String = ""
    @Persisted var fees: Double = 0
    @Persisted var paid: Bool? = nil
    @Persisted var time: Date? = nil
    @Persisted var binary: Data? = nil
    @Persisted var floats: Float? = nil
    /// Upstream declares it as a nullable float despite its name.
    @Persisted var nuldouble: Float? = nil
    @Persisted var links: RPArgPerson?
    @Persisted var list: List<RPArgPerson>
}

// MARK: Parser_Object

final class RPObjectRow: Object {
    @Persisted var ints: Int? = nil
    @Persisted var link: RPObjectRow?
}

// MARK: Parser_Between

final class RPBetweenRow: Object {
    @Persisted var age: Int? = nil
    @Persisted var between: Int? = nil
}

// MARK: Parser_ChainedStringEqualQueries

final class RPChainedStrings: Object {
    @Persisted var a: String = ""
    @Persisted var b: String? = nil
    @Persisted(indexed: true) var c: String = ""
    @Persisted(indexed: true) var d: String? = nil
}

// MARK: Parser_ChainedIntEqualQueries

final class RPChainedInts: Object {
    @Persisted var a: Int = 0
    @Persisted var b: Int? = nil
    @Persisted(indexed: true) var c: Int = 0
    @Persisted(indexed: true) var d: Int? = nil
}

// MARK: Parser_SortAndDistinct and Parser_Limit

final class RPAccount: Object {
    @Persisted var balance: Double = 0
    @Persisted var num_transactions: Int = 0
}

final class RPAccountHolder: Object {
    @Persisted var name: String = ""
    @Persisted var age: Int = 0
    @Persisted var account: RPAccount?
}
