import Foundation
import ObjDB

/// A person, as in the API documentation.
public final class Person: Object {
    @Persisted(primaryKey: true) public var id: Int = 0
    @Persisted(indexed: true) public var name: String = ""
    @Persisted public var age: Int? = nil
    @Persisted public var kind: Kind = .regular
    /// Not persisted.
    public var cache = 0
}

/// An enum property type.
public enum Kind: String, PersistableEnum, Sendable {
    case regular, vip
}

/// An enum with integer raw values.
public enum Level: Int, PersistableEnum, Sendable {
    case low = 1, high = 9
}

/// A class without a primary key.
public final class Note: Object {
    @Persisted public var text: String = ""
    @Persisted public var created: Date = Date(timeIntervalSince1970: 0)
}

/// One property of every value type, and an optional one of each.
public final class AllTypes: Object {
    @Persisted(primaryKey: true) public var id: Int = 0
    @Persisted public var bool: Bool = false
    @Persisted public var int: Int = 0
    @Persisted public var int8: Int8 = 0
    @Persisted public var int16: Int16 = 0
    @Persisted public var int32: Int32 = 0
    @Persisted public var int64: Int64 = 0
    @Persisted public var float: Float = 0
    @Persisted public var double: Double = 0
    @Persisted public var string: String = ""
    @Persisted public var data: Data = Data()
    @Persisted public var date: Date = Date(timeIntervalSince1970: 0)
    @Persisted public var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Persisted public var decimal: Decimal = 0
    @Persisted public var objectId: ObjectId = ObjectId(string: "000000000000000000000000")!
    @Persisted public var kind: Kind = .regular
    @Persisted public var level: Level = .low

    @Persisted public var optBool: Bool? = nil
    @Persisted public var optInt: Int? = nil
    @Persisted public var optInt8: Int8? = nil
    @Persisted public var optInt16: Int16? = nil
    @Persisted public var optInt32: Int32? = nil
    @Persisted public var optInt64: Int64? = nil
    @Persisted public var optFloat: Float? = nil
    @Persisted public var optDouble: Double? = nil
    @Persisted public var optString: String? = nil
    @Persisted public var optData: Data? = nil
    @Persisted public var optDate: Date? = nil
    @Persisted public var optUUID: UUID? = nil
    @Persisted public var optDecimal: Decimal? = nil
    @Persisted public var optObjectId: ObjectId? = nil
    @Persisted public var optKind: Kind? = nil
    @Persisted public var optLevel: Level? = nil
}

/// String primary key.
public final class StringKeyed: Object {
    @Persisted(primaryKey: true) public var key: String = ""
    @Persisted public var value: Int = 0
}

/// UUID primary key with a generated default.
public final class UUIDKeyed: Object {
    @Persisted(primaryKey: true) public var key: UUID
    @Persisted public var value: Int = 0
}

/// ObjectId primary key with a generated default.
public final class ObjectIdKeyed: Object {
    @Persisted(primaryKey: true) public var key: ObjectId
    @Persisted public var value: Int = 0
}

/// Optional integer primary key.
public final class OptionalKeyed: Object {
    @Persisted(primaryKey: true) public var key: Int? = nil
    @Persisted public var value: Int = 0
}

/// Small-width primary key.
public final class Int8Keyed: Object {
    @Persisted(primaryKey: true) public var key: Int8 = 0
    @Persisted public var value: String = ""
}

/// An owner of pets: links, collections of every kind, embedded objects.
public final class Owner: Object {
    @Persisted(primaryKey: true) public var id: Int = 0
    @Persisted public var name: String = ""
    @Persisted public var pets: List<Pet>
    @Persisted public var favorite: Pet?
    @Persisted public var tags: List<String>
    @Persisted public var numbers: List<Int?>
    @Persisted public var nicknames: MutableSet<String>
    @Persisted public var scores: Map<String, Double>
    @Persisted public var petsByName: Map<String, Pet?>
    @Persisted public var address: Address?
    @Persisted public var pastAddresses: List<Address>
    @Persisted(deleteRule: .cascade) public var ownedPets: List<Pet>
    @Persisted public var friends: MutableSet<Owner>
    @Persisted public var best: Owner?
}

/// A pet, linked to from owners.
public final class Pet: Object {
    @Persisted(primaryKey: true) public var id: Int = 0
    @Persisted public var name: String = ""
    @Persisted public var owner: Owner?
    @Persisted(originProperty: "pets") public var owners: LinkingObjects<Owner>
    @Persisted(originProperty: "favorite") public var fans: LinkingObjects<Owner>
}

/// An embedded address, owned by one owner.
public final class Address: EmbeddedObject {
    @Persisted public var city: String = ""
    @Persisted public var location: Location?
}

/// An embedded object inside an embedded object.
public final class Location: EmbeddedObject {
    @Persisted public var latitude: Double = 0
    @Persisted public var longitude: Double = 0
}

/// Version 0 of the class the migration crash test migrates (stored as "MigratingItem").
public final class MigratingItemV0: Object {
    override public class var className: String { "MigratingItem" }
    @Persisted(primaryKey: true) public var id: Int = 0
    @Persisted public var title: String = ""
    @Persisted public var count: Int = 0
}

/// Version 1: `title` renamed `name`, `count` now a String `total`, a new indexed `tag`.
public final class MigratingItemV1: Object {
    override public class var className: String { "MigratingItem" }
    @Persisted(primaryKey: true) public var id: Int = 0
    @Persisted public var name: String = ""
    @Persisted public var total: String = ""
    @Persisted(indexed: true) public var tag: String = "new"
}

/// Version 1 without the index: its rows are rewritten as the migration block's enumeration
/// reaches them (the migration's fused rewrite), where version 1's are all rewritten first.
public final class MigratingPlainItemV1: Object {
    override public class var className: String { "MigratingItem" }
    @Persisted(primaryKey: true) public var id: Int = 0
    @Persisted public var name: String = ""
    @Persisted public var total: String = ""
    @Persisted public var tag: String = "new"
}

/// Enums in collections, collections of the other value types, and properties declared without
/// a default or with each option: what an app's module compiles against the value protocols
/// without seeing their internals (the `Implementation` SPI of `PersistableTypes.swift`).
public final class CollectionTypes: Object {
    @Persisted(primaryKey: true, autoIncrement: true) public var id: Int = 0
    @Persisted public var kinds: List<Kind>
    @Persisted public var optLevels: List<Level?>
    @Persisted public var levelSet: MutableSet<Level>
    @Persisted public var kindsByName: Map<String, Kind?>
    @Persisted public var dates: List<Date>
    @Persisted public var decimals: MutableSet<Decimal>
    @Persisted public var uuids: Map<String, UUID>
    @Persisted public var objectIds: List<ObjectId?>
    @Persisted public var blobs: List<Data>
    @Persisted(indexed: true) public var level: Level
    @Persisted(unique: true) public var code: String?
    @Persisted public var optKind: Kind?
    @Persisted public var objectId: ObjectId
    @Persisted(.createdAt) public var created: Date
    @Persisted(.modifiedAt) public var modified: Date
    @Persisted(deleteRule: .cascade) public var petsByName: Map<String, Pet?>
}
