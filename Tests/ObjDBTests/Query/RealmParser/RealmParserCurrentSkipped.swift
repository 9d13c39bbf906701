// Port of the current realm-core test/test_parser.cpp (the version in the reference index, 255,438
// characters) into ObjDB's tests, for what the port of the old version (RealmParser*.swift, commit
// 004ce836, RP* models) does not cover: RealmParserCurrentCollectionTests (lists, sets and
// dictionaries of values and objects), RealmParserCurrentAggregateTests (aggregates, quantifiers,
// IN), RealmParserCurrentValueTests (numerics, ObjectId, UUID, Decimal128, arithmetic, changed
// substitution cases), RealmParserCurrentSyntaxTests (changed parse-only lists). Models in
// RealmParserCurrentModels.swift (RQ* classes). Only the first run of verify_query is ported, not
// the re-parse of its get_description().
//
// Skipped upstream tests and cases, with the reason:
// - Mixed (AnyRealmValue) and @type: RealmParserCurrentMixedTests ports Parser_Mixed, Parser_TypeOfValue,
//   Parser_list_of_primitive_mixed, Parser_SetMixed, the Mixed cases of Parser_Dictionary (on a
//   Map<String, MixedValue>; its integer part stays ported on Map<String, Int>) and `age + tag > 28` of
//   Parser_Arithmetic, read from the newest test_parser.cpp in the reference index (BarqDB/barq-core
//   7257512f), as this 255,438-character version is no longer reachable there. Cases ObjDB does not pass
//   yet run as known issues with their reasons. Not ported:
//   - Parser_Mixed: `mixed == $1` (the origins' mixed column holds a link, ObjLink); the error texts of
//     `link == $2` / `links == $2` (only that they throw is checked).
//   - Parser_TypeOfValue: objects 17 and 19 hold a dictionary and a link upstream, which a MixedValue
//     cannot; they hold ObjectIds in the port (a type no kept case counts, so the kept counts are
//     upstream's). So `mixed.@type == 'objectlink'` 1, `== 'object'` 1, `== $0` ($0 'object') 1, the
//     six-way OR ending `|| mixed.@type == 'null'` 100, and `links.@type == links.mixed.@type` 1 (a link in
//     a Mixed), and `link.@type == link.mixed.@type` 0 (@type of a link property: typed links).
//   - Parser_list_of_primitive_mixed: `values == {'one', 'two', 'three', '', null}` 1 and `values == {}` 1,
//     and Parser_SetMixed: `set == {}` 1, `set == {300}` 1, `set == {300, 3, 'hello'}` 0,
//     `set == {3, 300, 'hello'}` 1: ordered list matching (ObjDB reads a list on the right as ANY of its
//     values, see below). Their CHECK_EQUALs of a list's or set's min(), max(), sum(), avg() (Table API).
//   - TEST(Parser_CollectionsConsistency): aggregates of sets, lists and dictionaries of Mixed through
//     verify_query_sub with Mixed arguments; ObjDB refuses aggregates of collections of MixedValue (the
//     known issues of Parser_SetMixed and Parser_list_of_primitive_mixed stand for them).
//   - Parser_NestedDictionaryList, Parser_NestedListDictionary, Parser_NestedMixedDictionaryList,
//     Parser_NestedDictionaryDeep, Parser_NestedDictionaryMultipleLinks (newest version): collections
//     nested in a Mixed.
// - TEST(Parser_TimestampNullable), TEST(Parser_SortAndDistinctSerialisation), TEST(Parser_string_binary_encoding),
//   TEST(Parser_SubqueryVariableNames): get_description() serialisation only.
// - TEST(Parser_ConstrainedQuery), TEST(Parser_Object) (`link == O1` names a table key, `link == linkx`
//   compares two links of the Table API): Table-API-only constructions.
// - TEST(Parser_Threads): a frozen transaction shared between threads and `value == <object key>`
//   (Table API).
// - TEST(Parser_ClassPrefix), and the KeyPathMapping parts of Parser_Backlinks and Parser_SortAndDistinct:
//   key-path mapping aliases and class-name prefixes.
// - TEST(Parser_basic_serialisation): the `float\ fees` column (a property name with a space is not a Swift
//   identifier; 13 cases); Parser_Backlinks' `fav\ item` column, ported by the old port as fav_item.
// - TEST(Parser_NullableBinaries): the `nullable\tdata` column is ported by the old port as nullable_data
//   (a tab is not allowed in a Swift identifier); its cases are unchanged.
// - TEST(Parser_Decimal128): the values `inf` and `-infinity` (Foundation's Decimal has no infinities); so the
//   table has 22 rows instead of 24 and `dec <= infinity` / `dec >= -infinity` expect 22.
// - TEST(Parser_substitution): argument 5 is Timestamp(1512130073, 505); 505 nanoseconds cannot round-trip
//   through a Date's Double at that magnitude, so the fixture and the argument use Timestamp(1512130073, 0)
//   (both sides alike, the counts are unchanged). Its argument-count error texts are not compared.
// - TEST(Parser_Numerics): upstream prints each value with precision 100; the integer text is used for the
//   Decimal128 variants too.
// - Cases identical in the old and current versions (Parser_Subquery, Parser_BacklinkCount, Parser_Limit,
//   Parser_SortAndDistinct, Parser_ChainedStringEqualQueries, the unchanged parts of the others): covered by
//   the old-version port. The current cases of Parser_StringOperations, Parser_NullableBinaries,
//   Parser_Timestamps, Parser_ChainedIntEqualQueries, Parser_Backlinks and Parser_OperatorIN that differ
//   are added beside the old ones, marked "(current)".
// - What this version of the file does not contain (literal lists `{…}` with ANY/ALL/NONE, mixed-type IN,
//   typed links, geospatial, full-text search, INCLUDE) has nothing to port here. The newest test_parser.cpp
//   in the reference index (as carried by BarqDB/barq-core, a fork of realm-core) has the literal lists:
//   RealmParserListLiteralTests ports Parser_OperatorIN's constant-list cases and Parser_ListVsList,
//   RealmParserPrimitiveIntListTests ports Parser_list_of_primitive_ints in its newest form, and
//   RealmParserBetweenTests the newest BETWEEN cases and realm-core pull request #5509's refusal of
//   BETWEEN on a list of values without ALL.
// - Of the newest Parser_OperatorIN and Parser_ListVsList, not ported (ObjDB differs):
//   - "when neither side specifies ANY/ALL/NONE we do ordered list matching": `{5.5, 4.0, 9.5, 6.5} ==
//     items.price` 1, `items.name == {'milk', 'oranges', 'pizza', 'cereal'}` 1, `{} IN items.price` 0,
//     `{7, 3, 8, 0} < integers` 1 and the other 22 cases of that block compare a list with a list element
//     by element, in order. ObjDB refuses a list on the left without a quantifier, and reads a list on the
//     right as ANY of its values (`items.name == {'milk', …}` is 3), as the older versions did.
//   - "operators on a list": `ALL {8, 10} / 2 >= ANY items.price` 1 and 3 more: ObjDB's arithmetic takes
//     numbers, not lists (refused).
//   - "list property vs list property": `items.price IN items.price` 3, `ALL items.price * 2 > ALL
//     items.price` 2 and 6 more: two to-many sides are refused (the current version expected that too).
//   - `fav_item.name IN $3` with a list argument holding ObjKey and ObjLink values (Table API values).
//
// Notes for whoever reads the counts:
// - Parser_list_of_primitive_types: upstream's generator makes values from integers; here Int, Float,
//   Double, Decimal, Date (seconds), ObjectId and UUID (the integer in the last bytes). A non-null bool list
//   "reuses values": upstream's counts treat the default element as equal to the value made from 1, so 1
//   makes `false` here.
// - BETWEEN (Parser_basic_serialisation, Parser_Between): this version expects `fees BETWEEN {2, 3}` 3, `fees BETWEEN {2.20, 2.25}` 2 and
//   `age between {20, 25}` 1 on ages 24…26, which is what exclusive bounds give. ObjDB's BETWEEN is
//   inclusive (Docs/Queries.md), as Realm Swift's NSPredicate BETWEEN is and as the newest realm-core's
//   is (Parser_OddColumnNames: `age between {20, 25}` 2, ported in RealmParserBetweenTests); these cases
//   expect the inclusive counts (4, 3 and 2).
