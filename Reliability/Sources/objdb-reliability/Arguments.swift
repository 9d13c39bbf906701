/// `--name value` options and `--flag` switches, parsed without a library.
struct Arguments {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    private var used: Set<String> = []

    /// The switches that take no value.
    static let switches: Set<String> = ["keep", "quiet", "full", "avoid-known"]

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    init(_ arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw UsageError(description: "unexpected argument '\(argument)'") }
            let name = String(argument.dropFirst(2))
            if Self.switches.contains(name) {
                flags.insert(name)
                index += 1
                continue
            }
            guard index + 1 < arguments.count else { throw UsageError(description: "--\(name) needs a value") }
            values[name] = arguments[index + 1]
            index += 2
        }
    }

    /// The value of `--name`.
    mutating func string(_ name: String) -> String? {
        used.insert(name)
        return values[name]
    }

    /// The value of `--name` as an integer; a value that is not one is a usage error.
    mutating func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "").replacingOccurrences(of: ",", with: "")), value >= 0 else {
            throw UsageError(description: "--\(name) needs a non-negative integer, not '\(text)'")
        }
        return value
    }

    /// The value of `--name` as `MIN-MAX`.
    mutating func range(_ name: String) throws -> ClosedRange<Int>? {
        guard let text = string(name) else { return nil }
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= 1, parts[0] <= parts[1] else {
            throw UsageError(description: "--\(name) needs MIN-MAX, not '\(text)'")
        }
        return parts[0]...parts[1]
    }

    /// Whether `--name` was given.
    mutating func flag(_ name: String) -> Bool {
        used.insert(name)
        return flags.contains(name)
    }

    /// Fails if an option was given that the command does not take.
    func checkAllUsed() throws {
        let unused = Set(values.keys).union(flags).subtracting(used)
        if let name = unused.sorted().first { throw UsageError(description: "unknown option --\(name)") }
    }
}
