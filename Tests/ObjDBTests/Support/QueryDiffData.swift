import Foundation
import ObjDB

// The data set of the query differential tests (QueryDifferentialTests.swift): model classes, a
// seeded random generator, the objects, and a snapshot of them in plain Swift structs that the
// brute force (QueryBruteForce.swift) evaluates predicates on.

// MARK: - Models

/// An item with indexed properties, links and lists: the class the query tests filter.
final class QItem: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(indexed: true) var name: String = ""
    @Persisted(indexed: true) var nickname: String? = nil
    @Persisted(indexed: true) var age: Int? = nil
    @Persisted(indexed: true) var rank: Int = 0
    @Persisted var score: Double = 0
    @Persisted(indexed: true) var flag: Bool = false
    @Persisted(indexed: true) var born: Date? = nil
    @Persisted var owner: QOwner?
    @Persisted var tags: List<String>
    @Persisted var nums: List<Int?>
    @Persisted var friends: List<QItem>
}

/// The same properties as ``QItem`` without any index or primary key: every query on it scans.
final class QPlainItem: Object {
    @Persisted var id: Int = 0
    @Persisted var name: String = ""
    @Persisted var nickname: String? = nil
    @Persisted var age: Int? = nil
    @Persisted var rank: Int = 0
    @Persisted var score: Double = 0
    @Persisted var flag: Bool = false
    @Persisted var born: Date? = nil
    @Persisted var owner: QOwner?
    @Persisted var tags: List<String>
    @Persisted var nums: List<Int?>
    @Persisted var friends: List<QPlainItem>
}

/// The properties ``QItem`` and ``QPlainItem`` share, so that one piece of code writes and
/// reads both.
protocol QDItemFields: Object {
    var id: Int { get set }
    var name: String { get set }
    var nickname: String? { get set }
    var age: Int? { get set }
    var rank: Int { get set }
    var score: Double { get set }
    var flag: Bool { get set }
    var born: Date? { get set }
    var owner: QOwner? { get set }
    var tags: List<String> { get }
    var nums: List<Int?> { get }
    var friends: List<Self> { get }
}

extension QItem: QDItemFields {}
extension QPlainItem: QDItemFields {}

/// The target of the items' to-one link.
final class QOwner: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var name: String = ""
    @Persisted var level: Int = 0
}

// MARK: - Value pools

/// The values the data set and the generated predicates draw from.
enum QDPools {
    /// Strings that stress comparisons: case and diacritic pairs, both spellings of "é", emoji,
    /// ZWJ sequences, quotes, backslashes, wildcard characters, NUL, a leading combining mark.
    static let strings: [String] = [
        "", " ", "a", "A", "ab", "Ann", "ann", "ANN", "Anne", "anna", "Bob", "bob", "b", "Z", "z", "zoë", "Zoë",
        "zoe\u{308}", "é", "e\u{301}", "É", "E\u{301}", "café", "cafe\u{301}", "CAFÉ", "naïve", "ß", "SS", "ss",
        "straße", "İ", "i", "ǅ", "Ω", "ω", "日本語", "日本", "🐶", "🐶🐱", "👨‍👩‍👧", "a'b", "q\"q", "back\\slash",
        "tab\there", "line\nbreak", "*", "a*b", "a?c", "100%", "%@", "x\u{0}y", "\u{301}lead", "Ænne", "ñandú",
    ]

    /// Doubles, with negative zero, infinities and values near the ends of the range (no NaN).
    static let doubles: [Double] = [
        0, -0.0, 0.5, -0.5, 1, -1, 1.25, -1.25, 2.5, 3, 17.5, 100.25, -100.25, 1e300, -1e300, 1e-300,
        .infinity, -.infinity, 42, 0.1,
    ]

    /// Seconds since 1970 of the dates: before and after 1970, the reference date of 2001, fractions.
    static let seconds: [Double] = [
        0, -86_400, -86_400.75, 978_307_200, 1_704_189_600, 1_704_189_600.25, 1_712_345_678, 1_000_000_000,
        -1_000_000_000, 946_684_800, 1_234_567_890.5, 2_000_000_000,
    ]

    /// The dates of the data set; one of them is the reference date spelled with `-0.0`.
    static let dates: [Date] = seconds.map { Date(timeIntervalSince1970: $0) } + [Date(timeIntervalSinceReferenceDate: -0.0)]

    /// Integers near the ends of the range, for `rank`.
    static let extremeInts: [Int] = [Int.min, Int.min + 1, Int.max, Int.max - 1, Int(Int32.min), Int(UInt32.max), -1, 0, 1]

    /// A prefix longer than an index key (480 bytes), shared by the long strings.
    static let longPrefix = String(repeating: "long-prefix/", count: 45)

    /// Strings longer than an index key, sharing ``longPrefix``, and strings around the cut
    /// (479 and 480 bytes, a two-byte character straddling byte 479).
    static let longStrings: [String] = [
        longPrefix, longPrefix + "a", longPrefix + "b", longPrefix + "é", longPrefix + "🐶", longPrefix + "A",
        longPrefix + "ab", String(repeating: "x", count: 479), String(repeating: "x", count: 480),
        String(repeating: "x", count: 478) + "é", String(repeating: "x", count: 478) + "éz",
        String(repeating: "x", count: 481),
    ]

    /// The owners' names.
    static let ownerNames: [String] = ["Ann", "ann", "Bob", "", "Zoë", "e\u{301}", "é", "🐶", "Ann", "Cy"]
}

// MARK: - Snapshot

/// One item's values, as generated before they are written or as read back from the database;
/// owner and friends are indexes into the owners and items.
struct QDItemSnapshot: Equatable {
    var id: Int
    var name: String
    var nickname: String?
    var age: Int?
    var rank: Int
    var score: Double
    var flag: Bool
    var born: Date?
    /// The index of the owner in ``QDSnapshot/owners``.
    var owner: Int?
    var tags: [String]
    var nums: [Int?]
    /// Indexes of the friends in ``QDSnapshot/items``, in list order (repeats kept).
    var friends: [Int]

    /// Whether two snapshots hold the same values (strings by bytes, doubles by bits).
    static func == (a: QDItemSnapshot, b: QDItemSnapshot) -> Bool {
        a.id == b.id && Array(a.name.utf8) == Array(b.name.utf8) && a.nickname.map { Array($0.utf8) } == b.nickname.map { Array($0.utf8) }
            && a.age == b.age && a.rank == b.rank && a.score.bitPattern == b.score.bitPattern && a.flag == b.flag
            && a.born?.timeIntervalSinceReferenceDate.bitPattern == b.born?.timeIntervalSinceReferenceDate.bitPattern
            && a.owner == b.owner && a.tags.map { Array($0.utf8) } == b.tags.map { Array($0.utf8) } && a.nums == b.nums
            && a.friends == b.friends
    }
}

/// One owner's values.
struct QDOwnerSnapshot: Equatable {
    var id: Int
    var name: String
    var level: Int
}

/// Every item and owner, in object-key (insertion) order.
struct QDSnapshot {
    var items: [QDItemSnapshot]
    var owners: [QDOwnerSnapshot]

    /// Reads every ``QItem`` and ``QOwner`` of `db`.
    static func read(_ db: Database) -> QDSnapshot {
        QDSnapshot(items: items(QItem.self, db), owners: db.objects(QOwner.self).map { QDOwnerSnapshot(id: $0.id, name: $0.name, level: $0.level) })
    }

    /// Reads every ``QPlainItem`` of `db` (the owners are shared with ``QItem``).
    static func readPlain(_ db: Database) -> [QDItemSnapshot] { items(QPlainItem.self, db) }

    /// Reads every item of one of the two classes, owners and friends as indexes.
    private static func items<Item: QDItemFields>(_ type: Item.Type, _ db: Database) -> [QDItemSnapshot] {
        let ownerIndex = Dictionary(uniqueKeysWithValues: db.objects(QOwner.self).enumerated().map { ($1.id, $0) })
        let items = Array(db.objects(Item.self))
        let itemIndex = Dictionary(uniqueKeysWithValues: items.enumerated().map { ($1.id, $0) })
        return items.map { item in
            QDItemSnapshot(
                id: item.id, name: item.name, nickname: item.nickname, age: item.age, rank: item.rank, score: item.score,
                flag: item.flag, born: item.born, owner: item.owner.flatMap { ownerIndex[$0.id] }, tags: Array(item.tags),
                nums: Array(item.nums), friends: item.friends.map { itemIndex[$0.id]! })
        }
    }
}

// MARK: - Building the data set

/// Builds the seeded data set and writes it twice: as ``QItem``s and as ``QPlainItem``s.
enum QDDataSet {
    /// How many random items (the long-string items come on top).
    static let randomItemCount = 160

    /// A random string: mostly from the pool, sometimes a pool string with a suffix.
    static func randomString(_ rng: inout SeededRandom) -> String {
        let base = rng.pick(QDPools.strings)
        return rng.percent(20) ? base + rng.pick(["x", "é", "🐶", "1", " "]) : base
    }

    /// The values of every item: random ones, then items with long names and nicknames.
    static func values(seed: UInt64) -> (items: [QDItemSnapshot], owners: [(Int, String, Int)]) {
        var rng = SeededRandom(seed: seed)
        let owners = QDPools.ownerNames.enumerated().map { (i, name) in (i + 1, name, rng.pick([-3, 0, 1, 2, 2, 5, 7, 100])) }
        var items: [QDItemSnapshot] = []
        let total = randomItemCount + QDPools.longStrings.count
        for i in 0..<total {
            let long = i >= randomItemCount
            var item = QDItemSnapshot(
                id: i * 3 - 200, name: randomString(&rng), nickname: rng.percent(30) ? nil : randomString(&rng),
                age: rng.percent(25) ? nil : (rng.percent(70) ? rng.inRange(-5...40) : rng.inRange(-50...130)),
                rank: rng.percent(20) ? rng.pick(QDPools.extremeInts) : rng.inRange(-1000...1000),
                score: rng.percent(60) ? rng.pick(QDPools.doubles) : Double(rng.inRange(-400...400)) / 4,
                flag: rng.percent(50), born: rng.percent(25) ? nil : rng.pick(QDPools.dates),
                owner: rng.percent(25) ? nil : rng.below(owners.count), tags: [], nums: [], friends: [])
            for _ in 0..<rng.pick([0, 0, 1, 2, 3, 4]) { item.tags.append(rng.percent(70) ? rng.pick(QDPools.strings) : randomString(&rng)) }
            for _ in 0..<rng.pick([0, 0, 1, 2, 3, 5]) { item.nums.append(rng.percent(20) ? nil : rng.inRange(-10...30)) }
            for _ in 0..<rng.pick([0, 0, 1, 1, 2, 3, 4]) { item.friends.append(rng.below(total)) }
            if long {
                let index = i - randomItemCount
                item.name = QDPools.longStrings[index]
                item.nickname = index % 3 == 0 ? nil : QDPools.longStrings[(index * 5) % QDPools.longStrings.count]
            }
            items.append(item)
        }
        return (items, owners)
    }

    /// Writes the data set into `db` (which must register ``QItem``, ``QPlainItem``, ``QOwner``):
    /// objects in id order first, so object keys follow ids, then the friends lists.
    static func write(into db: Database, seed: UInt64 = 0x0B1D_B0B5) throws {
        let (values, owners) = values(seed: seed)
        try db.write {
            var ownerObjects: [QOwner] = []
            for (id, name, level) in owners {
                let owner = QOwner()
                owner.id = id
                owner.name = name
                owner.level = level
                try db.add(owner)
                ownerObjects.append(owner)
            }
            func add<Item: QDItemFields>(_ type: Item.Type) throws {
                for v in values {
                    let item = Item()
                    item.id = v.id; item.name = v.name; item.nickname = v.nickname; item.age = v.age; item.rank = v.rank
                    item.score = v.score; item.flag = v.flag; item.born = v.born; item.owner = v.owner.map { ownerObjects[$0] }
                    item.tags.append(contentsOf: v.tags)
                    item.nums.append(contentsOf: v.nums)
                    try db.add(item)
                }
            }
            try add(QItem.self)
            try add(QPlainItem.self)
        }
        try db.write {
            let items = Array(db.objects(QItem.self))
            let plain = Array(db.objects(QPlainItem.self))
            for (i, v) in values.enumerated() {
                items[i].friends.append(contentsOf: v.friends.map { items[$0] })
                plain[i].friends.append(contentsOf: v.friends.map { plain[$0] })
            }
        }
    }
}
