import Foundation
import ObjDB
import ObjDBSyncProtocol

/// What each user may read and write: for each class, a `read` and a `write` predicate in the
/// portable part of ObjDB's predicate language, which may use `$user` (the token's subject) and
/// `$claims.<name>` (a claim of the token: a string, number or boolean).
///
/// ```json
/// { "classes": {
///     "Todo":    { "read": "owner == $user OR shared == true", "write": "owner == $user" },
///     "Project": { "read": "TRUEPREDICATE", "write": "FALSEPREDICATE" } } }
/// ```
///
/// - A client downloads the objects that match one of its subscriptions **and** the read rule.
/// - A write is applied only if the object matches the write rule before it (when it exists)
///   and after it (unless deleted): nobody changes another user's object, nor moves one into
///   their own. A write refused is undone on the client, which is told (`.writeRejected`).
/// - A class the rules do not name is neither read nor written; a rule that uses a claim the
///   token lacks holds for no object.
///
/// ``allowAll`` lets every user read and write everything: for development only.
public struct SyncRules: Sendable {
    /// The rules of one class.
    public struct ClassRules: Sendable {
        /// The read predicate, as written.
        public let read: String
        /// The write predicate, as written.
        public let write: String
        /// The read predicate, parsed.
        let readPredicate: PortablePredicate
        /// The write predicate, parsed.
        let writePredicate: PortablePredicate
    }

    /// The rules by class; `nil` for ``allowAll``.
    public let classes: [String: ClassRules]?

    /// The variables a rule may use.
    static let variables: Set<String> = ["user", "claims"]

    /// Every authenticated user reads and writes everything (development).
    public static let allowAll = SyncRules(allowingAll: ())

    private init(allowingAll: Void) { classes = nil }

    /// Rules from predicates by class name.
    /// - Throws: ``ObjDBError/Code/invalidQuery`` naming the class and what is wrong with its
    ///   predicate.
    public init(classes: [String: (read: String, write: String)]) throws {
        var rules: [String: ClassRules] = [:]
        for (name, texts) in classes {
            func parse(_ text: String, _ kind: String) throws -> PortablePredicate {
                do {
                    return try PortablePredicate(parsing: text, variables: Self.variables)
                } catch let error as ObjDBError {
                    throw ObjDBError(.invalidQuery, "The \(kind) rule of class '\(name)': \(error.message)", className: name)
                }
            }
            rules[name] = ClassRules(
                read: texts.read, write: texts.write, readPredicate: try parse(texts.read, "read"), writePredicate: try parse(texts.write, "write"))
        }
        self.classes = rules
    }

    /// Rules from their JSON: `{"classes": {"Todo": {"read": "…", "write": "…"}}}`.
    /// - Throws: ``ObjDBError/Code/invalidValue`` for JSON of another shape (naming the key),
    ///   ``ObjDBError/Code/invalidQuery`` for a predicate that is not a portable one.
    public init(json: String) throws {
        func bad(_ message: String) -> ObjDBError { ObjDBError(.invalidValue, "Sync rules: \(message)") }
        let root: SyncJSON
        do { root = try SyncJSON.parse(json) } catch let error as ObjDBError { throw bad(error.message) }
        guard case .object(let top) = root else { throw bad("the rules are a JSON object with a \"classes\" object") }
        for (key, _) in top where key != "classes" { throw bad("unknown key \"\(key)\" (the rules hold \"classes\")") }
        guard case .object(let entries)? = root["classes"] else { throw bad("\"classes\" is missing, or not an object") }
        var texts: [String: (read: String, write: String)] = [:]
        for (name, entry) in entries {
            guard case .object(let fields) = entry else { throw bad("class '\(name)' needs an object with \"read\" and \"write\"") }
            for (key, _) in fields where key != "read" && key != "write" {
                throw bad("class '\(name)' has an unknown key \"\(key)\" (a class has \"read\" and \"write\")")
            }
            guard case .string(let read)? = entry["read"], case .string(let write)? = entry["write"] else {
                throw bad("class '\(name)' needs \"read\" and \"write\", each a predicate string (\"TRUEPREDICATE\", \"owner == $user\", …)")
            }
            guard texts[name] == nil else { throw bad("class '\(name)' appears twice") }
            texts[name] = (read, write)
        }
        try self.init(classes: texts)
    }

    /// Rules read from a JSON file (see ``init(json:)``).
    public init(contentsOf url: URL) throws {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ObjDBError(.fileNotFound, "The sync rules cannot be read: \(error.localizedDescription)", path: url.path)
        }
        try self.init(json: text)
    }

    /// Whether every user may read and write everything.
    public var isAllowAll: Bool { classes == nil }

    /// The read predicate of a class (`FALSEPREDICATE` for one the rules do not name).
    func read(_ className: String) -> PortablePredicate {
        guard let classes else { return .constant(true) }
        return classes[className]?.readPredicate ?? .constant(false)
    }

    /// The write predicate of a class (`FALSEPREDICATE` for one the rules do not name).
    func write(_ className: String) -> PortablePredicate {
        guard let classes else { return .constant(true) }
        return classes[className]?.writePredicate ?? .constant(false)
    }
}
