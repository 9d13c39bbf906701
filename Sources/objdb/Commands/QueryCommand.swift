import ArgumentParser
@_spi(Inspection) import ObjDB

/// `objdb query <db> <Class> [predicate]`: the objects that match, sorted and limited.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the objects of a class that match a predicate.",
        discussion: """
            The predicate uses the library's (Realm-compatible) syntax: \
            objdb query app.objdb Person "age >= 18 AND name BEGINSWITH[c] 'a'" --sort age,desc --limit 10
            """)

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "The class.")
    var className: String

    @Argument(help: "A predicate, such as \"age > 30\"; every object without one.")
    var predicate: String?

    @Option(help: "Sort by a property (key path), ascending; add ,desc to sort descending. Repeatable.")
    var sort: [String] = []

    @Option(help: "Print at most this many objects.")
    var limit: Int?

    @Option(help: "Skip this many objects first.")
    var offset: Int = 0

    @Option(help: "Write linked objects whole this many links deep (JSON formats).")
    var linkDepth: Int = 0

    @Flag(help: "Print how the query runs instead of its objects.")
    var explain = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if offset < 0 { throw ValidationError("--offset must be 0 or more") }
        if linkDepth < 0 { throw ValidationError("--link-depth must be 0 or more") }
    }

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database)
            let schema = try DatabaseOpening.objectSchema(className, in: db, file: database.file)
            let results = try Self.results(db, schema, predicate: predicate, sort: sort, file: database.file)
            if explain {
                Console.line(results.explain())
                return
            }
            let end = limit.map { offset + $0 } ?? Int.max
            let page = results.lazy.enumerated().prefix { $0.offset < end }.filter { $0.offset >= offset }.map(\.element)
            let printer = ObjectPrinter(format: output.resolved, writer: ObjectWriter(db: db, linkDepth: linkDepth), truncate: !output.noTruncate)
            try printer.print(page, schema: schema)
        }
    }

    /// The objects of `schema`'s class matching `predicate`, sorted by `sort` (`key[,desc]`).
    static func results(
        _ db: Database, _ schema: ObjectSchema, predicate: String?, sort: [String], file: String
    ) throws -> Results<DynamicObject> {
        var results = db.dynamicObjects(schema.className)
        if let predicate {
            results = try results.filter(predicate)
        }
        var descriptors: [SortDescriptor] = []
        for spec in sort {
            let parts = spec.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let keyPath = parts.first, !keyPath.isEmpty, parts.count <= 2 else {
                throw CommandFailure("--sort '\(spec)': expected a property name, optionally followed by ,asc or ,desc")
            }
            let direction = parts.count == 2 ? parts[1].lowercased() : "asc"
            guard direction == "asc" || direction == "desc" else {
                throw CommandFailure("--sort '\(spec)': the direction must be asc or desc, not '\(parts[1])'")
            }
            let first = String(keyPath.split(separator: ".").first ?? "")
            guard schema[first] != nil else {
                throw CommandFailure("\(file): class '\(schema.className)' has no property '\(first)' to sort by")
            }
            descriptors.append(SortDescriptor(keyPath: keyPath, ascending: direction == "asc"))
        }
        if !descriptors.isEmpty { results = results.sorted(by: descriptors) }
        return results
    }
}
