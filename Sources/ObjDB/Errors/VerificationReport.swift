/// What ``Database/verify()`` found: every problem in the file, and what it checked.
///
/// ```swift
/// let report = try db.verify()
/// if !report.isHealthy {
///     for problem in report.problems { print(problem) }
/// }
/// ```
public struct VerificationReport: Sendable, CustomStringConvertible {
    /// The database file.
    public let path: String
    /// The committed version (LMDB transaction id) that was checked.
    public let transactionID: Int
    /// The problems found, in the order found; at most ``maximumProblems`` of them.
    public internal(set) var problems: [VerificationProblem] = []
    /// The number of problems found beyond ``maximumProblems``, which are counted but not kept.
    public internal(set) var omittedProblems = 0
    /// Pages read, meta pages included.
    public internal(set) var pagesChecked = 0
    /// Objects (rows) checked, per class name.
    public internal(set) var objectsChecked: [String: Int] = [:]
    /// Rows written before rows carried checksums (file format 2 or older): decoded and
    /// cross-checked, but a changed byte inside one of their values cannot be detected.
    public internal(set) var rowsWithoutChecksum = 0
    /// `false` when ``Database/verify(fileAt:)`` found no database file at all — an empty file,
    /// or one without LMDB's meta pages (text, random bytes, another format) — rather than a
    /// damaged one; ``problems`` then holds one problem saying so. A damaged database is still a
    /// database file.
    public internal(set) var isDatabaseFile = true

    /// The most problems a report keeps.
    public static let maximumProblems = 200

    /// Whether no problem was found.
    public var isHealthy: Bool { problems.isEmpty && omittedProblems == 0 }

    init(path: String, transactionID: Int) {
        self.path = path
        self.transactionID = transactionID
    }

    /// Records a problem.
    mutating func add(_ problem: VerificationProblem) {
        if problems.count < Self.maximumProblems {
            problems.append(problem)
        } else {
            omittedProblems += 1
        }
    }

    /// One line per problem, after a summary line.
    public var description: String {
        let objects = objectsChecked.values.reduce(0, +)
        var lines = [
            isHealthy
                ? "\(path): healthy (version \(transactionID), \(pagesChecked) pages, \(objects) objects)"
                : "\(path): \(problems.count + omittedProblems) problem(s) (version \(transactionID), \(pagesChecked) pages, \(objects) objects)"
        ]
        lines += problems.map { "  \($0)" }
        if omittedProblems > 0 { lines.append("  … and \(omittedProblems) more") }
        return lines.joined(separator: "\n")
    }
}

/// One problem ``Database/verify()`` found.
public struct VerificationProblem: Sendable, Hashable, CustomStringConvertible {
    /// What kind of check failed.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The meta pages: LMDB's roots of each version.
        case metaPage
        /// A page's header, nodes or bounds.
        case page
        /// Keys out of order, or outside the range their parent page gives them.
        case keyOrder
        /// A tree's page or entry counts differ from what its record says, or pages are used
        /// twice, lost, or past the end of the file.
        case accounting
        /// ObjDB's `meta` table: format, schema, counters, checksum.
        case meta
        /// A table that should exist is missing, or one that should not exists.
        case table
        /// A row that does not decode against its class's schema.
        case row
        /// A row whose checksum does not match its bytes: a value changed on disk.
        case checksum
        /// The primary-key table disagrees with the rows.
        case primaryKey
        /// An index table disagrees with the rows.
        case index
        /// A backlink table disagrees with the links of the rows.
        case backlink
        /// A link or collection element points to an object that does not exist, or an
        /// embedded object does not have exactly one parent.
        case link
    }

    /// What kind of check failed.
    public let kind: Kind
    /// What is wrong, in a sentence.
    public let message: String
    /// The LMDB table involved, if any (`c3`, `c3.pk`, `meta`, …).
    public let table: String?
    /// The class involved, if any.
    public let className: String?
    /// The object key involved, if any.
    public let objectKey: UInt64?
    /// The page involved, if any.
    public let page: Int?

    /// Creates a problem record.
    public init(
        _ kind: Kind, _ message: String, table: String? = nil, className: String? = nil, objectKey: UInt64? = nil,
        page: Int? = nil
    ) {
        self.kind = kind
        self.message = message
        self.table = table
        self.className = className
        self.objectKey = objectKey
        self.page = page
    }

    /// `[kind] message (table …, class …, key …, page …)`.
    public var description: String {
        var context: [String] = []
        if let table { context.append("table \(table)") }
        if let className { context.append("class \(className)") }
        if let objectKey { context.append("key \(objectKey)") }
        if let page { context.append("page \(page)") }
        return "[\(kind.rawValue)] \(message)" + (context.isEmpty ? "" : " (\(context.joined(separator: ", ")))")
    }
}
