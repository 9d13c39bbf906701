import Foundation

extension PortablePredicate {
    /// The predicate as a predicate string with a `%@` for each value (and `%K` for a property
    /// named like a keyword), and the values in order: what ``init(parsing:arguments:variables:)``
    /// reads back to an equal predicate. Values never enter the text.
    package var predicateFormat: (text: String, arguments: [SyncValue]) {
        var arguments: [SyncValue] = []
        let text = written(&arguments, nested: false)
        return (text, arguments)
    }

    private func written(_ arguments: inout [SyncValue], nested: Bool) -> String {
        switch self {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let operands):
            if operands.isEmpty { return "TRUEPREDICATE" }
            let text = operands.map { $0.written(&arguments, nested: true) }.joined(separator: " AND ")
            return nested && operands.count > 1 ? "(\(text))" : text
        case .or(let operands):
            if operands.isEmpty { return "FALSEPREDICATE" }
            let text = operands.map { $0.written(&arguments, nested: true) }.joined(separator: " OR ")
            return nested && operands.count > 1 ? "(\(text))" : text
        case .not(let operand): return "NOT (\(operand.written(&arguments, nested: false)))"
        case .comparison(let c): return c.written(&arguments)
        }
    }
}

extension PortableComparison {
    fileprivate func written(_ arguments: inout [SyncValue]) -> String {
        var text = ""
        if PredicateParser.reservedWords.contains(property.uppercased()) || !Self.isPlainName(property) {
            text = "%K"
            arguments.append(.string(property))
        } else {
            text = property
        }
        text += " " + op.rawValue + (caseInsensitive ? "[c]" : "") + " "
        func operand(_ o: PortableOperand) -> String {
            switch o {
            case .value(let value):
                arguments.append(value)
                return "%@"
            case .variable(let name): return "$" + name
            }
        }
        switch op {
        case .in, .between: text += "{" + operands.map(operand).joined(separator: ", ") + "}"
        default: text += operands.first.map(operand) ?? "nil"
        }
        return text
    }

    /// Whether a property name can be written as it is (letters, digits and `_`, not starting
    /// with a digit).
    private static func isPlainName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !CharacterSet.decimalDigits.contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "_" }
    }
}
