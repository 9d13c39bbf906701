/// What an observation watches on the objects of one class: which columns count, and what
/// counts on the objects its link columns point to.
///
/// Without key paths an observation watches every column and, through links, lists and sets
/// of objects, every column of the objects they reach, up to ``defaultDepth`` links away (as
/// Realm does). Key paths (`["name", "dogs.name"]`) name exactly what counts: `dogs` alone
/// watches the list (objects added, removed, moved), `dogs.name` also the name of each dog.
indirect enum Watch {
    /// Every column, and `depth` more levels of links.
    case everything(depth: Int)
    /// These columns, and on the targets of these link columns, what their watch says.
    case columns(Set<Int>, targets: [Int: Watch])

    /// How many links away a watch without key paths looks.
    static let defaultDepth = 4

    /// Whether a change to `changed` counts.
    func counts(_ changed: ColumnSet) -> Bool {
        switch self {
        case .everything: return changed.count > 0
        case .columns(let columns, _): return changed.columns.contains { columns.contains($0) }
        }
    }

    /// Whether a change to column `column` counts.
    func counts(column: Int) -> Bool {
        switch self {
        case .everything: return true
        case .columns(let columns, _): return columns.contains(column)
        }
    }

    /// The link columns of `info` whose targets are watched, with the watch on the targets.
    func linkTargets(_ info: ClassInfo) -> [(column: Int, watch: Watch)] {
        switch self {
        case .everything(let depth):
            guard depth > 0 else { return [] }
            return (0..<info.columnCount).compactMap { column in
                Self.holdsObjects(info, column) ? (column, .everything(depth: depth - 1)) : nil
            }
        case .columns(_, let targets):
            return targets.map { ($0.key, $0.value) }.sorted { $0.column < $1.column }
        }
    }

    /// Whether column `column` of `info` holds links to objects (a link, or a list, set or map
    /// of objects).
    static func holdsObjects(_ info: ClassInfo, _ column: Int) -> Bool {
        info.stored.properties[column].property.isLink
    }

    /// The watch for `keyPaths` (property names from `info`'s class, through links with `.`);
    /// `nil` for no key paths. A name that is not a property stops the program with a message:
    /// key paths are written in code.
    static func parse(_ keyPaths: [String]?, _ info: ClassInfo, _ database: Database, caller: String) -> Watch {
        guard let keyPaths else { return .everything(depth: defaultDepth) }
        var watch = Watch.columns([], targets: [:])
        for path in keyPaths {
            watch.add(path.split(separator: ".").map(String.init), info, database, whole: path, caller: caller)
        }
        return watch
    }

    private mutating func add(_ components: [String], _ info: ClassInfo, _ database: Database, whole: String, caller: String) {
        guard let name = components.first else { return }
        guard let column = info.stored.properties.firstIndex(where: { $0.name == name }) else {
            objdbFatal("\(caller): the key path '\(whole)' names '\(name)', which is not a stored property of '\(info.name)'")
        }
        guard case .columns(var columns, var targets) = self else { return }
        columns.insert(column)
        if components.count > 1 {
            guard Self.holdsObjects(info, column), let target = database.targetInfo(info, column: column) else {
                objdbFatal("\(caller): the key path '\(whole)' goes on after '\(name)', which does not link to objects")
            }
            var sub = targets[column] ?? .columns([], targets: [:])
            sub.add(Array(components.dropFirst()), target, database, whole: whole, caller: caller)
            targets[column] = sub
        }
        self = .columns(columns, targets: targets)
    }
}
