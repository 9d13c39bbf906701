import Foundation
import ObjDB

/// One collection of a store's state kept as objects of a ``StoreEntity`` class: reads it at
/// launch, writes what changed since the last write, and takes it out of the state's JSON.
protocol PersistentCollection<State>: AnyObject {
    associatedtype State
    /// The class name of the objects.
    var className: String { get }
    /// The model class, to check it is part of the database.
    var entityType: ObjectBase.Type { get }
    /// Empties the collection in `state` (what the state's JSON leaves to the objects).
    func strip(_ state: inout State)
    /// Fills the collection of `state` from the objects, in `order` (JSON ids) for an array,
    /// and remembers them as written.
    func load(into state: inout State, order: Data?, from db: Database) throws
    /// Writes the objects whose elements changed since the last write, deletes those whose
    /// elements are gone; returns the order of an array's ids (JSON) or `nil` for a dictionary.
    func write(_ state: State, to db: Database) throws -> Data?
    /// Makes the elements of the last ``write(_:to:)`` the written ones: its transaction committed.
    func didCommit()
    /// Forgets what was written: with `touchedOnly`, the elements the last write wrote (whose
    /// transaction may be cancelled yet); otherwise all.
    func forgetWritten(touchedOnly: Bool)
    /// Makes sure the file has the class (in a write transaction), so that it can be observed
    /// before its first object is written.
    func createClass(in db: Database) throws
    /// Observes the objects for changes by others.
    func observe(_ db: Database, _ onChange: @escaping () -> Void) -> NotificationToken
}

/// How a collection of the state holds its elements.
enum CollectionShape<State, Value: Identifiable> {
    case array(WritableKeyPath<State, [Value]>)
    case dictionary(WritableKeyPath<State, [Value.ID: Value]>)
}

/// A ``PersistentCollection`` of the elements of `Entity`.
final class EntityCollection<State, Entity: StoreEntity>: PersistentCollection {
    typealias Value = Entity.Value
    let shape: CollectionShape<State, Value>
    /// The elements as last written (committed) or read, by id.
    private var written: [Value.ID: Value] = [:]
    /// The elements of a write whose transaction has not committed yet.
    private var writing: [Value.ID: Value]?
    /// The ids the last write added or updated.
    private var touched: [Value.ID] = []
    /// Ids whose objects may or may not exist (written in a transaction that may have been
    /// cancelled): the next write writes them if the state has them, deletes them if not.
    private var uncertain: Set<Value.ID> = []

    init(_ shape: CollectionShape<State, Value>) {
        self.shape = shape
    }

    var className: String { Entity.className }
    var entityType: ObjectBase.Type { Entity.self }

    func strip(_ state: inout State) {
        switch shape {
        case .array(let keyPath): state[keyPath: keyPath] = []
        case .dictionary(let keyPath): state[keyPath: keyPath] = [:]
        }
    }

    func load(into state: inout State, order: Data?, from db: Database) throws {
        var byID: [Value.ID: Value] = [:]
        var unordered: [Value] = []
        for object in db.objects(Entity.self) {
            let value = object.value
            if byID.updateValue(value, forKey: value.id) == nil { unordered.append(value) }
        }
        written = byID
        uncertain = []
        switch shape {
        case .dictionary(let keyPath):
            state[keyPath: keyPath] = byID
        case .array(let keyPath):
            var values: [Value] = []
            values.reserveCapacity(byID.count)
            var placed = Set<Value.ID>()
            if let order {
                let ids: [Value.ID]
                do {
                    ids = try JSONDecoder().decode([Value.ID].self, from: order)
                } catch {
                    throw ObjDBError(
                        .stateNotDecodable,
                        "The order of the \(className) objects stored for the state could not be decoded as ids of \(Value.self): \(error)",
                        className: className)
                }
                for id in ids where !placed.contains(id) {
                    guard let value = byID[id] else { continue }  // deleted by someone else
                    values.append(value)
                    placed.insert(id)
                }
            }
            // Objects the order does not list (added by someone else) follow, in the file's order.
            values += unordered.lazy.filter { !placed.contains($0.id) }
            state[keyPath: keyPath] = values
        }
    }

    func write(_ state: State, to db: Database) throws -> Data? {
        let values: [Value]
        var order: [Value.ID]?
        switch shape {
        case .array(let keyPath):
            values = state[keyPath: keyPath]
            order = values.map(\.id)
        case .dictionary(let keyPath):
            values = Array(state[keyPath: keyPath].values)
        }
        var current: [Value.ID: Value] = [:]
        current.reserveCapacity(values.count)
        for value in values {
            if current.updateValue(value, forKey: value.id) != nil {
                throw ObjDBError(
                    .primaryKeyExists,
                    "Two elements of the state's \(Value.self) collection have the id \(value.id); each element is stored as one \(className) object, so ids must be unique",
                    className: className, key: "\(value.id)")
            }
        }
        touched = []
        for (id, value) in current where written[id] != value {
            let object = Entity()
            object.update(from: value)
            try db.add(object, update: .modified)
            touched.append(id)
        }
        for id in Set(written.keys).union(uncertain) where current[id] == nil {
            if let object = db.object(ofType: Entity.self, forPrimaryKey: id) { db.delete(object) }
        }
        writing = current
        guard let order else { return nil }
        return try JSONEncoder().encode(order)
    }

    func didCommit() {
        if let writing {
            written = writing
            uncertain = []
        }
        writing = nil
    }

    func forgetWritten(touchedOnly: Bool) {
        writing = nil
        if touchedOnly {
            // Deleted ones stay written: the next write deletes them again if they exist.
            for id in touched {
                written[id] = nil
                uncertain.insert(id)
            }
        } else {
            written = [:]
        }
        touched = []
    }

    func createClass(in db: Database) throws {
        guard db.schema[className] == nil else { return }
        // A class enters the file with its first object: add one and delete it again.
        let placeholder = Entity()
        try db.add(placeholder)
        db.delete(placeholder)
    }

    func observe(_ db: Database, _ onChange: @escaping () -> Void) -> NotificationToken {
        db.objects(Entity.self).observe { change in
            if case .update = change { onChange() }
        }
    }
}
