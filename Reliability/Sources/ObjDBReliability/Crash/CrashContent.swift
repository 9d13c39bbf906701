import ObjDB

/// What every property of a crash item holds, as a function of its id and version.
public enum CrashContent {
    /// The label of item `id` at `version`: non-ASCII text of varying length.
    public static func label(_ id: Int, _ version: Int) -> String {
        "item \(id) v\(version) " + String(repeating: "é", count: (id &* 7 &+ version) % 40)
    }

    /// The numbers of item `id` at `version`.
    public static func values(_ id: Int, _ version: Int) -> [Int] {
        (0..<((id + version) % 9)).map { id &* 31 &+ $0 &* (version + 1) }
    }

    /// The words of item `id` at `version`.
    public static func tags(_ id: Int, _ version: Int) -> [String] {
        (0..<((id + 2 * version) % 4)).map { "t\(id).\(version).\($0)" }
    }

    /// The part ids of item `id` (fixed when it is inserted).
    public static func parts(_ id: Int) -> [Int] {
        (0..<(id % 4)).map { id * 4 + $0 }
    }

    /// The name of part `id`.
    public static func partName(_ id: Int) -> String { "part \(id)" }

    /// Sets the properties of `item` for its id, `version` and writer.
    public static func fill(_ item: CrashItem, version: Int, writtenBy: Int) {
        let id = item.id
        item.version = version
        item.writtenBy = writtenBy
        item.label = label(id, version)
        let values = values(id, version)
        if Array(item.values) != values {
            item.values.removeAll()
            item.values.append(contentsOf: values)
        }
        let tags = tags(id, version)
        if Array(item.tags) != tags {
            item.tags.removeAll()
            item.tags.append(contentsOf: tags)
        }
    }

    /// The problems of a stored item against what its id and version say; empty if it is exact.
    public static func problems(_ item: CrashItem, expected: (version: Int, writtenBy: Int)?) -> [String] {
        let id = item.id
        guard let expected else { return ["item \(id) exists but should not"] }
        var problems: [String] = []
        if item.version != expected.version { problems.append("item \(id): version \(item.version), expected \(expected.version)") }
        if item.writtenBy != expected.writtenBy {
            problems.append("item \(id): written by \(item.writtenBy), expected \(expected.writtenBy)")
        }
        let version = expected.version
        if item.label != label(id, version) { problems.append("item \(id): label \(item.label.prefix(40))") }
        if Array(item.values) != values(id, version) { problems.append("item \(id): values \(Array(item.values))") }
        if Array(item.tags) != tags(id, version) { problems.append("item \(id): tags \(Array(item.tags))") }
        let parts = item.parts.map { ($0.id, $0.name) }
        if parts.map(\.0) != self.parts(id) || parts.contains(where: { $0.1 != partName($0.0) }) {
            problems.append("item \(id): parts \(parts)")
        }
        return problems
    }
}
