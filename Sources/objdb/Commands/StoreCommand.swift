import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb store <db> [key]`: the state persisted by ObjDBStore stores, as JSON.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Print the state an ObjDBStore Store persisted, as JSON.",
        discussion: """
            Without a key, prints every store's state in one JSON object keyed by store key; with a \
            key, that store's state. Each entry has the store's version, when it was written, the \
            Swift type, and the state itself. An array a store keeps as objects \
            (.collection(\\.todos, as: TodoObject.self)) is empty in the state: the entry's \
            "collections" gives each such class with its count and its objects, in the array's \
            order. A dictionary kept as objects is not recorded with the state: query its class.
            """)

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "The store's key.")
    var key: String?

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database)
            guard db.schema["ObjDBStoreState"] != nil else {
                throw CommandFailure("\(database.file): no Store state in this file (no class ObjDBStoreState)")
            }
            let writer = ObjectWriter(db: db)
            var stores: [String: PrettyJSON] = [:]
            for object in db.dynamicObjects("ObjDBStoreState") {
                guard let storeKey = object["key"] as? String else { continue }
                stores[storeKey] = try entry(object, writer: writer)
            }
            if let key {
                guard let entry = stores[key] else {
                    let known = stores.keys.sorted().joined(separator: ", ")
                    throw CommandFailure("\(database.file): no Store state with key '\(key)' (keys: \(known.isEmpty ? "none" : known))")
                }
                Console.line(entry.text)
            } else {
                Console.line(PrettyJSON.object(stores.keys.sorted().compactMap { key in stores[key].map { (key, $0) } }).text)
            }
        }
    }

    /// One store's entry: its collections kept as objects, state, type, time and version (keys
    /// sorted).
    private func entry(_ object: DynamicObject, writer: ObjectWriter) throws -> PrettyJSON {
        let text = object["json"] as? String ?? ""
        // A state that is not JSON (damaged, or written by hand) is shown as the text it is.
        let state = (try? JSONValue.parse(Array(text.utf8))).map(PrettyJSON.parsed) ?? .string(text)
        var members: [(key: String, value: PrettyJSON)] = []
        let collections = try self.collections(order: object["collectionOrder"] as? String ?? "", writer: writer)
        if !collections.isEmpty { members.append(("collections", .object(collections))) }
        members.append(("state", state))
        members.append(("type", .string(object["stateType"] as? String ?? "")))
        if let date = object["updatedAt"] as? Date { members.append(("updatedAt", .string(try ValueConversion.text(date)))) }
        members.append(("version", .integer(object["version"] as? Int ?? 0)))
        return .object(members)
    }

    /// For each class of an array kept as objects (the store records their ids' order as
    /// `{"Todo": [3, 1, 2]}`): the number of objects and the objects, in that order, then any it
    /// does not list (the store reads them after the others), as `query` writes them.
    private func collections(order: String, writer: ObjectWriter) throws -> [(key: String, value: PrettyJSON)] {
        guard !order.isEmpty, case .object(let orders)? = try? JSONValue.parse(Array(order.utf8)) else { return [] }
        return try orders.keys.sorted().map { className in
            var listed: [String] = []
            if case .array(let ids)? = orders[className] {
                listed = ids.map { PrettyJSON.parsed($0).text }
            }
            var objects: [[UInt8]] = []
            if let schema = writer.db.schema[className] {
                var byID: [String: [UInt8]] = [:]
                var unlisted: [[UInt8]] = []
                let listedIDs = Set(listed)
                for object in writer.db.dynamicObjects(className) {
                    var text = JSONText()
                    try writer.write(object, into: &text)
                    let id = try schema.primaryKeyProperty.map { try writer.text(object[$0.name]) }
                    if let id, listedIDs.contains(id), byID[id] == nil {
                        byID[id] = text.bytes
                    } else {
                        unlisted.append(text.bytes)
                    }
                }
                objects = listed.compactMap { byID.removeValue(forKey: $0) } + unlisted
            }
            let collection: [(key: String, value: PrettyJSON)] = [
                ("count", .integer(objects.count)), ("objects", .array(objects.map(PrettyJSON.text))),
            ]
            return (className, .object(collection))
        }
    }
}
