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
            Swift type, and the state itself. Collections a store keeps as objects are not part of \
            the state: query their class.
            """)

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "The store's key.")
    var key: String?

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database.file)
            guard db.schema["ObjDBStoreState"] != nil else {
                throw CommandFailure("\(database.file): no Store state in this file (no class ObjDBStoreState)")
            }
            var stores: [String: Any] = [:]
            for object in db.dynamicObjects("ObjDBStoreState") {
                guard let storeKey = object["key"] as? String else { continue }
                let json = object["json"] as? String ?? ""
                let state = (try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])) ?? json
                var entry: [String: Any] = [
                    "version": object["version"] as? Int ?? 0,
                    "type": object["stateType"] as? String ?? "",
                    "state": state,
                ]
                if let date = object["updatedAt"] as? Date { entry["updatedAt"] = ObjectJSON.isoDate(date) }
                stores[storeKey] = entry
            }
            if let key {
                guard let entry = stores[key] else {
                    let known = stores.keys.sorted().joined(separator: ", ")
                    throw CommandFailure("\(database.file): no Store state with key '\(key)' (keys: \(known.isEmpty ? "none" : known))")
                }
                Console.line(try ObjectJSON.text(entry, pretty: true))
            } else {
                Console.line(try ObjectJSON.text(stores, pretty: true))
            }
        }
    }
}
