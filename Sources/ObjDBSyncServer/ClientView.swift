import Foundation
import ObjDB
import ObjDBSyncProtocol

/// What one connection's client sees and may change: for each class it subscribes to, the
/// predicate its objects must match to be downloaded (one of its subscriptions, and the read
/// rule), and the write rule its uploads are held to, with the values of the rules' variables
/// for its token.
struct ClientView: Sendable {
    /// The download predicate of each subscribed class.
    private(set) var reads: [String: PortablePredicate]
    /// The rules.
    let rules: SyncRules
    /// `user` and `claims.<name>` for the connection's token.
    let variables: [String: SyncValue]
    /// Each subscribed class's download predicate split for the fan-out (``FanoutTemplate``),
    /// once per connection rather than once per round; a class whose predicate uses a variable
    /// without a value (it selects nothing) is absent.
    private(set) var templates: [String: (template: FanoutTemplate, slots: [String: SyncValue])] = [:]
    /// What the view selects, as bytes: the predicates by class and the values of the variables
    /// they use (``FeedFanout/PartKey``; bytes, since Swift equates strings that differ only in
    /// Unicode normalization, and the selection compares bytes).
    private(set) var selectionBytes: [UInt8] = []

    /// The view of a hello: its whole-class subscriptions and query subscriptions, under the
    /// rules. Embedded classes are never downloaded by themselves.
    /// - Throws: ``ObjDBError`` keyed ``SyncErrorCode/schemaMismatch`` for a subscribed class
    ///   the hello's schema lacks, ``SyncErrorCode/invalidQuery`` for a query that is not a
    ///   portable predicate.
    init(hello: ClientMessage.Hello, rules: SyncRules, variables: [String: SyncValue]) throws {
        var subscriptions: [String: [PortablePredicate]] = [:]
        func requireClass(_ name: String) throws -> Bool {
            guard let schema = hello.schema.first(where: { $0.name == name }) else {
                throw ObjDBError(.invalidSchema, "Subscribed class '\(name)' is not in the hello's schema", key: SyncErrorCode.schemaMismatch)
            }
            return !schema.isEmbedded
        }
        for name in hello.subscriptions where try requireClass(name) {
            subscriptions[name, default: []].append(.constant(true))
        }
        for query in hello.queries where try requireClass(query.className) {
            do {
                subscriptions[query.className, default: []].append(try PortablePredicate(parsing: query.predicate, arguments: query.arguments))
            } catch let error as ObjDBError {
                throw ObjDBError(
                    .invalidQuery, "A subscription of '\(query.className)': \(error.message)", className: query.className, key: SyncErrorCode.invalidQuery)
            }
        }
        var reads: [String: PortablePredicate] = [:]
        for (name, predicates) in subscriptions {
            let subscribed: PortablePredicate = predicates.contains(.constant(true)) ? .constant(true) : .or(predicates)
            reads[name] = Self.both(subscribed, rules.read(name))
        }
        self.reads = reads
        self.rules = rules
        self.variables = variables
        prepareForFanout()
    }

    /// Makes ``templates`` and ``selectionBytes`` from ``reads``.
    private mutating func prepareForFanout() {
        templates = [:]
        for (className, predicate) in reads {
            if let split = FanoutTemplate.split(predicate, variables: variables) { templates[className] = split }
        }
        var bytes: [UInt8] = []
        let used = reads.values.reduce(into: Set<String>()) { $0.formUnion($1.variableNames) }
        for (className, predicate) in reads.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
            let format = predicate.predicateFormat
            SyncValueBytes.append(className, to: &bytes)
            SyncValueBytes.append(format.text, to: &bytes)
            SyncValueBytes.append(.list(format.arguments), to: &bytes)
        }
        for name in used.sorted() {
            SyncValueBytes.append(name, to: &bytes)
            SyncValueBytes.append(variables[name] ?? .null, to: &bytes)
        }
        selectionBytes = bytes
    }

    /// The view with the classes whose download condition holds for no object (a rule on a
    /// claim the token lacks, or of another type) marked so, for the in-memory evaluation to
    /// agree with the SQL one.
    func resolved(_ never: Set<String>) -> ClientView {
        var view = self
        for name in never where view.reads[name] != nil { view.reads[name] = .constant(false) }
        view.prepareForFanout()
        return view
    }

    /// The subscribed classes whose objects the client may see some of.
    var classNames: [String] { reads.filter { $0.value != .constant(false) }.keys.sorted() }

    /// The download condition of a class, over the columns of `alias` (``SQLCondition/never``
    /// for a class not subscribed to, or whose rule uses a claim the token lacks).
    func readCondition(_ m: ClassMapping, alias: String, lowercase: String, firstParameter: Int) throws -> SQLCondition {
        guard let predicate = reads[m.schema.name] else { return .never }
        return try condition(predicate, m, alias: alias, lowercase: lowercase, firstParameter: firstParameter)
    }

    /// The write condition of a class (``SQLCondition/never`` for a class the rules do not name,
    /// or whose rule uses a claim the token lacks).
    func writeCondition(_ m: ClassMapping, alias: String, lowercase: String, firstParameter: Int) throws -> SQLCondition {
        try condition(rules.write(m.schema.name), m, alias: alias, lowercase: lowercase, firstParameter: firstParameter)
    }

    private func condition(_ predicate: PortablePredicate, _ m: ClassMapping, alias: String, lowercase: String, firstParameter: Int) throws
        -> SQLCondition
    {
        if predicate == .constant(true) { return .always }
        if predicate == .constant(false) { return .never }
        do {
            return try PredicateSQL(mapping: m, alias: alias, variables: variables, lowercase: lowercase).condition(predicate, firstParameter: firstParameter)
        } catch is PredicateSQL.MissingVariable {
            return .never
        }
    }

    /// `a AND b`, without the constants that change nothing.
    static func both(_ a: PortablePredicate, _ b: PortablePredicate) -> PortablePredicate {
        switch (a, b) {
        case (.constant(true), _): b
        case (_, .constant(true)): a
        case (.constant(false), _), (_, .constant(false)): .constant(false)
        default: .and([a, b])
        }
    }

    /// The variables of a token: `user` (its subject) and `claims.<name>` for each claim that
    /// is a string, a number or a boolean, read from the payload of a token already verified.
    static func variables(user: String, token: String) -> [String: SyncValue] {
        var variables: [String: SyncValue] = ["user": .string(user)]
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return variables }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
            case .object(let claims)? = try? SyncJSON.parse(text)
        else { return variables }
        for (name, value) in claims {
            switch value {
            case .string(let s): variables["claims." + name] = .string(s)
            case .bool(let b): variables["claims." + name] = .bool(b)
            case .number(let n):
                if let i = Int64(n) { variables["claims." + name] = .int(i) } else if let d = Double(n) { variables["claims." + name] = .double(d) }
            default: continue
            }
        }
        return variables
    }
}
