/// The description of one persisted property of a class.
///
/// ```swift
/// let age = Person().objectSchema["age"]!
/// age.type        // .int
/// age.isOptional  // true
/// ```
public struct Property: Sendable, Hashable, CustomStringConvertible {
    /// The property name, as declared in Swift.
    public let name: String
    /// The stored type.
    public let type: PropertyType
    /// Whether the property accepts `nil`.
    public let isOptional: Bool
    /// Whether this is the class's primary key.
    public let isPrimaryKey: Bool
    /// Whether the property has an index (primary keys are always looked up through their own table).
    public let isIndexed: Bool
    /// For `.int`, the width of the Swift integer type (8, 16, 32 or 64); 0 otherwise.
    public let bitWidth: Int

    /// Creates a property description.
    public init(
        name: String, type: PropertyType, isOptional: Bool = false, isPrimaryKey: Bool = false,
        isIndexed: Bool = false, bitWidth: Int? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.bitWidth = bitWidth ?? (type == .int ? 64 : 0)
    }

    /// The Swift spelling of the type, such as `Int8?` or `String`.
    public var typeName: String {
        let base = type == .int && bitWidth != 64 ? "Int\(bitWidth)" : type.description
        return isOptional ? base + "?" : base
    }

    /// `name: Type` followed by `(primary key)` or `(indexed)`.
    public var description: String {
        var text = "\(name): \(typeName)"
        if isPrimaryKey { text += " (primary key)" } else if isIndexed { text += " (indexed)" }
        return text
    }

    /// Whether two descriptions store the same data, ignoring indexes (which ObjDB adds and
    /// removes at open without a migration).
    func storesSameData(as other: Property) -> Bool {
        name == other.name && type == other.type && isOptional == other.isOptional
            && isPrimaryKey == other.isPrimaryKey && bitWidth == other.bitWidth
    }
}
