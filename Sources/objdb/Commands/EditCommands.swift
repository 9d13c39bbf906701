import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb set <db> <Class> <pk> key=value... --write`: changes properties of one object.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change properties of one object, in one write transaction.",
        discussion: """
            Values are parsed as the property's type (see objdb schema), as import reads CSV: \
            numbers, true/false, ISO 8601 dates (2026-11-25T10:00:00.000Z), base64 Data, \
            Decimal, UUID and ObjectId text, null for nil. A mixed value is a string, or JSON \
            when it starts with [ or {: a list, a dictionary, a typed value or a link, \
            {"$type":"object","class":"C","primaryKey":pk} (see Docs/CLI.md). The primary \
            key, links and collections cannot be set. Nothing is written without --write.
            """)

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "The class.")
    var className: String

    @Argument(help: "The object's primary key.")
    var primaryKey: String

    @Argument(help: "Assignments: property=value.")
    var assignments: [String]

    @Flag(help: "Write the change (without it the command refuses).")
    var write = false

    func validate() throws {
        guard write else { throw ValidationError("set changes the file: pass --write to confirm") }
        guard !assignments.isEmpty else { throw ValidationError("set needs at least one property=value") }
        for assignment in assignments where !assignment.contains("=") {
            throw ValidationError("'\(assignment)' is not property=value")
        }
    }

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.writable(database)
            let schema = try DatabaseOpening.objectSchema(className, in: db, file: database.file)
            // Mixed values may be JSON linking to objects of this file, by primary key or key.
            let reader = ObjectReader(schema: db.schema, links: .keys)
            let values = try assignments.map { assignment -> (String, Any?) in
                let parts = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0])
                guard let property = schema[name], !property.isComputed else {
                    throw CommandFailure("\(database.file): class '\(className)' has no stored property '\(name)'")
                }
                guard !property.isPrimaryKey else {
                    throw CommandFailure("\(database.file): \(className).\(name) is the primary key and cannot be changed")
                }
                guard property.collection == nil else {
                    throw CommandFailure("\(database.file): \(className).\(name) is a \(property.typeName); collections cannot be set from the command line")
                }
                let text = String(parts[1])
                if property.type == .mixed, text != "null", text != "nil" {
                    return (name, try reader.mixed(text: text, property, className: className))
                }
                return (name, try ObjectReader.argument(text, property, className: className))
            }
            let resolver = MixedLinkResolver(db: db)
            try db.write {
                let target = try DatabaseOpening.object(db, schema, primaryKey: primaryKey, file: database.file)
                for (name, value) in values { try target.setValue(try resolver.resolve(value), forKey: name) }
            }
            Console.line("set \(values.map(\.0).joined(separator: ", ")) of \(className) \(primaryKey)")
        }
    }
}

/// `objdb delete <db> <Class> <pk | --where predicate> --write`: deletes objects.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete one object by primary key, or every object matching --where, in one write transaction.")

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "The class.")
    var className: String

    @Argument(help: "The object's primary key.")
    var primaryKey: String?

    @Option(name: .customLong("where"), help: "Delete every object matching this predicate instead.")
    var predicate: String?

    @Flag(help: "Delete (without it the command refuses).")
    var write = false

    func validate() throws {
        guard write else { throw ValidationError("delete changes the file: pass --write to confirm") }
        guard (primaryKey == nil) != (predicate == nil) else {
            throw ValidationError("give either a primary key or --where <predicate>")
        }
    }

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.writable(database)
            let schema = try DatabaseOpening.objectSchema(className, in: db, file: database.file)
            var count = 0
            if let predicate {
                let matching = try db.dynamicObjects(className).filter(predicate)
                try db.write {
                    count = matching.count
                    db.delete(matching)
                }
            } else if let primaryKey {
                try db.write {
                    db.delete(try DatabaseOpening.object(db, schema, primaryKey: primaryKey, file: database.file))
                    count = 1
                }
            }
            Console.line("deleted \(count) \(className) object\(count == 1 ? "" : "s")")
        }
    }
}
