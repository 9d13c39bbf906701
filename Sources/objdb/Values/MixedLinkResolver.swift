import Foundation
@_spi(Inspection) import ObjDB

/// Turns the mixed values a reader left unresolved (``UnresolvedMixed``) into ``MixedValue``s,
/// looking their links up in a database: by primary key, or by object key. A link to an object
/// that is not there fails naming the class and the key.
struct MixedLinkResolver {
    /// The database the linked objects are in.
    let db: Database

    /// `values` (an object's, as ``ObjectReader`` reads it) with every mixed value resolved, in
    /// embedded objects and collections too.
    func resolve(_ values: [String: Any?]) throws -> [String: Any?] {
        try values.mapValues { try resolve($0) }
    }

    /// One property value, resolved.
    func resolve(_ value: Any?) throws -> Any? {
        switch value {
        case let unresolved as UnresolvedMixed: return try mixed(unresolved)
        case let array as [Any?]: return try array.map { try resolve($0) }
        case let map as [String: Any?]: return try resolve(map)
        default: return value
        }
    }

    /// The mixed value `unresolved` reads as.
    func mixed(_ unresolved: UnresolvedMixed) throws -> MixedValue {
        do {
            return try mixed(unresolved.draft)
        } catch let failure as MixedReader.Failure {
            throw CommandFailure("\(unresolved.subject): \(failure.reason)")
        }
    }

    /// The mixed value `draft` reads as.
    private func mixed(_ draft: MixedDraft) throws -> MixedValue {
        switch draft {
        case .value(let value): return value
        case .list(let drafts): return .list(try drafts.map { try mixed($0) })
        case .dictionary(let drafts): return .dictionary(try drafts.mapValues { try mixed($0) })
        case .link(let className, let target):
            switch target {
            case .primaryKey(let key, let text):
                guard let property = db.schema[className]?.primaryKeyProperty,
                    let object = try db.dynamicObjects(className).filter("%K == %@", property.name, key as Any).first
                else { throw MixedReader.Failure(reason: "a link to the \(className) with primary key \(text), and there is none") }
                return .object(object)
            case .key(let key):
                guard let object = db.dynamicObject(ofClassNamed: className, key: key) else {
                    throw MixedReader.Failure(reason: "a link to the \(className) with key \(key), and there is none")
                }
                return .object(object)
            }
        }
    }

    /// Whether `value` (a property value) holds a mixed value with a link, at any depth.
    static func holdsLinks(_ value: Any?) -> Bool {
        switch value {
        case is UnresolvedMixed: true
        case let array as [Any?]: array.contains { holdsLinks($0) }
        case let map as [String: Any?]: map.values.contains { holdsLinks($0) }
        default: false
        }
    }
}
