// Port of realm-core test/test_parser.cpp (the version stored at commit 004ce836a1d1c4ac6cb74f60994733acd6bd6608)
// into ObjDB's tests: the query strings and expected counts are upstream's, the tables are
// recreated with the RP* models of RealmParserModels.swift, and each case runs through
// `Results.filter(_:argumentArray:)` and `count`. Upstream runs every query twice, the second
// time on its get_description() serialisation; only the first run is ported.
//
// Files: RealmParserBasicTests (single-table), RealmParserLinkTests (links, lists, aggregates),
// RealmParserBacklinkTests (@links, linking objects), RealmParserSubqueryTests (SUBQUERY,
// ANY/SOME/ALL/NONE, IN), RealmParserSubstitutionTests ($n arguments), RealmParserOrderingTests
// (SORT/DISTINCT/LIMIT suffixes), RealmParserSyntaxTests (valid/invalid parse-only lists).
// Cases that fail today sit in the `knownFailing…` tables, wrapped in withKnownIssue.
//
// Skipped upstream tests and cases, with the reason:
// - TEST(Parser_grammar_analysis): checks upstream's PEGTL grammar object; no equivalent.
// - TEST(Parser_ConstrainedQuery): queries restricted to a TableView/LinkList through Realm's Table API
//   and get_description() throwing SerialisationError; no model equivalent of a query on a backlink view.
// - TEST(Parser_string_binary_encoding): tests the get_description() serialisation (base64 escaping) round trip.
// - TEST(Parser_SortAndDistinctSerialisation): tests get_descriptor_ordering_description() text only.
// - TEST(Parser_IncludeDescriptor), TEST(Parser_IncludeDescriptorMultiple),
//   TEST(Parser_IncludeDescriptorDeepLinks): INCLUDE is out of scope; also the INCLUDE entries of
//   valid_queries (11) and invalid_queries (11).
// - TEST(Parser_SubqueryVariableNames): tests the serialiser's choice of variable names.
// - Every get_description() comparison and the second, re-parsed run of verify_query.
// - Parser_basic_serialisation / LinksToSameTable / LinksToDifferentTable / Backlinks / SortAndDistinct /
//   IncludeDescriptor: the exact texts of error messages (we check the error code only).
// - Parser_Backlinks: the KeyPathMapping parts (set_allow_backlinks(false), backlink class prefix);
//   the mapping `purchasers` is ported as a declared LinkingObjects property, `money` as account_balance.
// - Parser_Timestamps: every case on the column `T2017-12-04` (not a Swift identifier; 12 cases per
//   separator). The current version's `birthday > 1800-12-31@23:59:59` (and `…:2020`, both
//   separators) must throw, and do: ObjDB refuses date literals before 1900 as Realm does.
// - Parser_OverColumnIndexChanges: removing a column (Realm's Table API); its three counts are ported.
// - Parser_TwoColumnExpressionBasics: the query built with the Table API (`ints == strings.size()`);
//   `doubles == ints` and `ints == doubles` must throw upstream (type mismatch), but Docs/Queries.md
//   compares numbers across types by exact value, as current Realm does.
// - Parser_TwoColumnAggregates: `name.@count > price` and `price < name.@size` must throw upstream
//   "due to a core implementation limitation" (its own words), not semantics.
// - Parser_substitution: the exact texts of the argument-count errors; the numeric cross-type
//   rejections `age > $1`, `age > $7`, `fees > $0`, `fees > $7`, `floats > $0`, `floats > $1` (numbers
//   compare across types by design, see above).
// - Parser_Limit: `get_num_results_excluded_by_limit()` and the TableView handover (Table API).
// - Parser_SortAndDistinct: the orders of the results (only their sizes are ported).
// - Parser_Object: the Table API query against an object (`link == O0`, a FIXME upstream).
// - Parser_Between: `age between {20, 25}` must throw upstream ("not supported yet" in this old
//   version); current Realm and ObjDB support BETWEEN (Docs/Queries.md).
// - Parser_ChainedStringEqualQueries / Parser_ChainedIntEqualQueries: upstream shuffles the 100 values
//   of the long OR at random; a fixed permutation is used.
//
// Cases of this old version that the current test_parser.cpp changed, taken out here (the current
// expectations are ported in RealmParserCurrent*):
// - Parser_AggregateShortcuts: `ALL/NONE items.name == fav_item.name`, `ANY/SOME fav_item.name ==
//   'milk'` and `ANY/SOME/ALL/NONE items.allergens.name == 'dairy'` had to throw; they now count.
// - Parser_OperatorIN: `'dairy' in items.allergens.name` had to throw; it now counts.
//   (`5.5 in fav_item.price` still throws in both versions: the key path after IN reaches one value.)
// - Parser_substitution: `name == $6` (a string against data) and `binary == $2` had to throw; they
//   now compare bytes. `age > $3`, `fees > $3`, `floats > $3` with a nil argument had to throw; an
//   ordered comparison with nil now evaluates (`nid >= nil` matches nil).
// - Parser_valid_queries: `a=b LIMIT(1) && c=d` and `a=b LIMIT(5) && c=d LIMIT(2)` (clauses in the
//   middle of a predicate) are gone; clauses end the query, so `a == b  sort(…) and c==d
//   DISTINCT(…) …` became `a == b  and c==d sort(…) DISTINCT(…) …`. `NOT NOT != 'NOT'`,
//   `AND == 'AND' AND OR == 'OR'`, `and=='AND'&&'or'=='||'` and `and == or && ORE > GRAND`
//   (keywords as property names) are commented out upstream now: the current parser rejects
//   them, as ObjDB does (%K names such a property). `a$a = a`, `$-1 = $0`, `$a = $0` and `$ = $`
//   moved to the valid list ("properties can contain '$'"), ported in RealmParserCurrentSyntaxTests.
//   Parser_invalid_queries: `(!!0=0)` is commented out upstream now.
// - Parser_Object: `link == link` had to throw; the current parser compares two links (the current
//   test compares `link == linkx`), which ObjDB does too.
// - Parser_substitution: `binary.@count > $0` and `binary.@size > $0` (2 rows with 2 bytes, $0 = 2)
//   expected 2; the current file has `>= $0` with the same 2.
// - Parser_TwoColumnAggregates: `items.@count == 3.1` expected 1 because the old parser truncated
//   3.1 to 3; the current version expects 0 (numbers compare by exact value).
// - Parser_StringOperations and Parser_NullableBinaries: `NULL CONTAINS name` and the other string
//   operators with nil on their left had to throw ("not commutative"); they now count (0, and
//   LIKE matches nil). Ported beside the old cases with a "(current)" comment.
// - Parser_Object: `link == NULL` expected 2 on this version's fixture; the current version links
//   rows differently (RealmParserCurrentObjectTests).
// Not ported: Parser_Timestamps `birthday == T0:0` (and its two date spellings) expect 3 because
// one row holds Timestamp(-1 s, 999,999,999 ns), one nanosecond before 1970; a Swift Date is a
// Double and reads that row as 1970 exactly.
