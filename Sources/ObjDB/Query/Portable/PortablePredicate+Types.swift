/// Which comparisons of which properties with which values a portable predicate holds: the one
/// set of rules the client (``Database/checkPortablePredicate(_:arguments:className:)``) and the
/// sync service (before it writes SQL) both apply, so that a subscription the client accepts
/// is one the service evaluates.
extension PortableComparison {
    /// The shape of the property a comparison reads.
    package struct PropertyShape: Sendable {
        /// Its type (for a link: `.object`).
        package var type: PropertyType
        /// Whether it is a list, set or map.
        package var isCollection: Bool
        /// Whether it links to another object (embedded objects are refused as collections are).
        package var isLink: Bool
        /// Whether it links to an embedded object.
        package var isEmbedded: Bool

        /// A property's shape.
        package init(type: PropertyType, isCollection: Bool, isLink: Bool, isEmbedded: Bool = false) {
            self.type = type
            self.isCollection = isCollection
            self.isLink = isLink
            self.isEmbedded = isEmbedded
        }
    }

    /// Why the comparison cannot be evaluated on a property of `shape` with these values (the
    /// operands, variables resolved), or `nil` when it can.
    package func refusal(_ shape: PropertyShape, values: [SyncValue]) -> String? {
        if shape.isCollection || shape.isEmbedded || shape.type == .mixed || shape.type == .linkingObjects {
            return "'\(property)' is a collection, a map, a mixed value or an embedded object; only single values can be compared"
        }
        if shape.isLink {
            guard op == .equal || op == .notEqual, values == [.null] else { return "a link compared with something other than nil" }
            return nil
        }
        let type = shape.type
        if caseInsensitive && type != .string { return "[c] on a property of type \(type)" }
        if op.isStringOperator {
            guard type == .string else { return "\(op.rawValue) on a property of type \(type)" }
            guard case .string? = values.first else { return "\(op.rawValue) with a value that is not a string" }
            return nil
        }
        switch op {
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between:
            if type == .bool { return "\(op.rawValue) on a Bool" }
            if values.contains(.null) { return "nil compared with \(op.rawValue)" }
        default: break
        }
        for value in values where value != .null {
            guard Self.fits(value, type) else { return "'\(property)' (\(type)) compared with \(value)" }
        }
        return nil
    }

    /// Whether a non-nil value can be compared with a property of `type`.
    static func fits(_ value: SyncValue, _ type: PropertyType) -> Bool {
        switch (type, value) {
        case (.string, .string), (.bool, .bool), (.date, .date), (.uuid, .uuid), (.objectId, .objectId), (.data, .data): true
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double), (.double, .float), (.float, .int), (.float, .double),
            (.float, .float), (.decimal, .decimal), (.decimal, .int), (.decimal, .double):
            true
        default: false
        }
    }
}

extension PortablePredicate {
    /// Every comparison of the predicate.
    package var comparisons: [PortableComparison] {
        switch self {
        case .constant: []
        case .and(let operands), .or(let operands): operands.flatMap(\.comparisons)
        case .not(let operand): operand.comparisons
        case .comparison(let c): [c]
        }
    }
}
