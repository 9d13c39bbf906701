import Foundation

/// Converts the arguments of a predicate string (`%@`, `$0`) into query values.
///
/// | Argument | Value |
/// |---|---|
/// | `nil`, `NSNull`, an empty optional at any depth | `.null` |
/// | `Bool` | `.bool` |
/// | any `BinaryInteger` that fits `Int64` | `.int` |
/// | `Double`, `Float`, any `BinaryFloatingPoint` | `.double` |
/// | `String`, `Substring` | `.string` |
/// | `Data`, `Date`, `UUID`, ``ObjectId``, `Decimal` | the same |
/// | ``MixedValue`` | the value it holds (`none` as nil, a float as a double) |
/// | ``PersistableEnum`` or any `RawRepresentable` | its raw value, converted |
/// | a managed object | `.object(className:key:)` |
/// | `NSNumber` | `.bool` (`objCType` `c`/`B`), `.double` or `.int` |
/// | an array, set or other sequence of the above | a list, for `IN` and `BETWEEN` |
enum PredicateArgument {
    /// `argument` as a single value (``QueryExpression/value(_:)``) or, for arrays, sets and
    /// other sequences, a list (``QueryExpression/list(_:)``).
    /// - Throws: ``PredicateSyntaxError`` at `position`, naming the argument by `index`, for
    ///   values a predicate can't hold.
    static func expression(for argument: Any?, index: Int, position: Int) throws -> QueryExpression {
        guard let argument = unwrapped(argument) else { return .value(.null) }
        if let value = try scalar(argument, index: index, position: position) { return .value(value) }
        if let sequence = argument as? any Sequence {
            let values = try elements(of: sequence).map { element -> QueryValue in
                guard let element = unwrapped(element) else { return .null }
                if let value = try scalar(element, index: index, position: position) { return value }
                if element is any Sequence {
                    throw PredicateSyntaxError(
                        position: position,
                        message: "the argument at index \(index) (\(typeName(argument))) holds lists; lists can't be nested")
                }
                throw unsupported(element, in: argument, index: index, position: position)
            }
            return .list(values)
        }
        throw unsupported(argument, in: nil, index: index, position: position)
    }

    /// A value that isn't a list, or `nil` when `value` is a sequence or of a type no rule covers.
    /// - Throws: for values of a covered type that can't be used: integers outside `Int64`,
    ///   unmanaged objects.
    static func scalar(_ value: Any, index: Int, position: Int) throws -> QueryValue? {
        if value is NSNull { return .null }
        // Checked before the Swift types: on Apple platforms an `NSNumber` also casts to `Bool`.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            return try self.number(number, index: index, position: position)
        }
        switch value {
        case let value as Bool: return .bool(value)
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Data: return .data(value)
        case let value as Date: return .date(value)
        case let value as UUID: return .uuid(value)
        case let value as ObjectId: return .objectId(value)
        case let value as Decimal: return .decimal(value)
        case let value as MixedValue:
            guard let constant = QueryValue(mixed: value) else {
                throw PredicateSyntaxError(
                    position: position,
                    message: "the argument at index \(index) is \(value), which a query cannot compare with; pass a managed object or a value that is not a list or a dictionary")
            }
            return constant
        case let object as ObjectBase:
            guard let info = object._objdbInfo else {
                throw PredicateSyntaxError(
                    position: position,
                    message: "the argument at index \(index) is an unmanaged \(typeName(object)) object; add it to the database before querying for it")
            }
            return .object(className: info.name, key: object._objdbKey)
        case let value as any BinaryInteger:
            guard let integer = Int64(exactly: value) else {
                throw PredicateSyntaxError(
                    position: position,
                    message: "the argument at index \(index) (\(typeName(value)) \(value)) is out of range for a 64-bit integer")
            }
            return .int(integer)
        case let value as any BinaryFloatingPoint:
            return .double(Double(value))
        case let value as any RawRepresentable:
            return try scalar(value.rawValue, index: index, position: position)
        default:
            return nil
        }
    }

    /// An `NSNumber` by its `objCType`: `c` and `B` (how `Bool`s are boxed; also `Int8`) as
    /// `.bool`, `f` and `d` as `.double`, other types as `.int`.
    static func number(_ number: NSNumber, index: Int, position: Int) throws -> QueryValue {
        if let decimal = number as? NSDecimalNumber { return .decimal(decimal.decimalValue) }
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "f", "d": return .double(number.doubleValue)
        case "C", "S", "I", "L", "Q":
            guard let integer = Int64(exactly: number.uint64Value) else {
                throw PredicateSyntaxError(
                    position: position,
                    message: "the argument at index \(index) (NSNumber \(number)) is out of range for a 64-bit integer")
            }
            return .int(integer)
        default: return .int(number.int64Value)
        }
    }

    /// The value inside any number of optionals boxed in `Any`, or `nil` if one of them is empty.
    static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let wrapped = mirror.children.first else { return nil }
        return unwrapped(wrapped.value)
    }

    /// The elements of a sequence, boxed.
    static func elements<S: Sequence>(of sequence: S) -> [Any] {
        sequence.map { $0 as Any }
    }

    /// A type's name without its module, for messages.
    static func typeName(_ value: Any) -> String {
        String(describing: type(of: value))
    }

    /// The error for a value of a type a predicate can't hold (`container` is the list it is
    /// an element of, if any).
    static func unsupported(_ value: Any, in container: Any?, index: Int, position: Int) -> PredicateSyntaxError {
        let what = container.map { "holds a value of type '\(typeName(value))' (in \(typeName($0)))" }
            ?? "has type '\(typeName(value))'"
        return PredicateSyntaxError(
            position: position,
            message: "the argument at index \(index) \(what), which a predicate can't use; pass a Bool, a number, a String, "
                + "Data, a Date, a UUID, an ObjectId, a Decimal, an enum with a raw value, a managed object, or an array of these")
    }
}
