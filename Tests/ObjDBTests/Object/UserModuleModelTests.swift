import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// `CollectionTypes`, declared in a module that imports ObjDB as an app does, round-trips: the
/// conformances an app's enums get in the app's module (`PersistableEnum`) and ObjDB's own
/// conformances, whose witnesses are in the `Implementation` SPI, work together.
struct UserModuleModelTests {
    let directory = TemporaryDirectory()

    @Test func collectionsOfEnumsAndValuesRoundTrip() throws {
        var config = Configuration(fileURL: directory.file("user-module.objdb"))
        config.objectTypes = [CollectionTypes.self]
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let objectId = try #require(ObjectId(string: "65a1f0c2b3e4d5f6a7b8c9d0"))
        do {
            let db = try Database(configuration: config)
            let o = CollectionTypes()
            #expect(o.level == .low && o.optKind == nil && o.code == nil)
            o.kinds.append(objectsIn: [.vip, .regular])
            o.optLevels.append(objectsIn: [nil, .high])
            o.levelSet.insert(.high)
            o.kindsByName["a"] = .vip
            o.kindsByName["b"] = .some(nil)
            o.dates.append(date)
            o.decimals.insert(Decimal(string: "1.25") ?? 0)
            o.uuids["u"] = uuid
            o.objectIds.append(objectsIn: [objectId, nil])
            o.blobs.append(Data([1, 2, 3]))
            o.level = .high
            o.code = "x"
            o.optKind = .vip
            try db.write {
                try db.add(o)
                let pet = Pet()
                pet.id = 1
                o.petsByName["rex"] = pet
                o.kinds.append(.regular)
            }
        }
        let db = try Database(configuration: config)
        let o = try #require(db.objects(CollectionTypes.self).first)
        #expect(o.id == 1)
        #expect(Array(o.kinds) == [.vip, .regular, .regular])
        #expect(Array(o.optLevels) == [nil, .high])
        #expect(Array(o.levelSet) == [.high])
        #expect(o.kindsByName["a"] == .some(.vip) && o.kindsByName["b"] == .some(nil) && o.kindsByName.count == 2)
        #expect(Array(o.dates) == [date])
        #expect(Array(o.decimals) == [Decimal(string: "1.25")])
        #expect(o.uuids["u"] == uuid)
        #expect(Array(o.objectIds) == [objectId, nil])
        #expect(Array(o.blobs) == [Data([1, 2, 3])])
        #expect(o.level == .high && o.code == "x" && o.optKind == .vip)
        #expect(o.created == o.modified && o.created > Date(timeIntervalSince1970: 0))
        #expect(o.petsByName["rex"]??.id == 1)
        #expect(db.objects(CollectionTypes.self).where { $0.level == .high && $0.optKind == .vip }.count == 1)
        #expect(db.objects(CollectionTypes.self).where { $0.kinds.elements == .vip }.count == 1)
    }
}
