import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Invalid relationship declarations are refused with an error that names the problem.
struct RelationshipSchemaTests {
    let directory = TemporaryDirectory()

    @Test(arguments: [
        (BadRequiredLink.self as ObjectBase.Type, "must be optional"),
        (BadOptionalObjectList.self, "hold objects, not nil"),
        (BadEmbeddedSet.self, "set of embedded objects"),
        (BadLinkingOrigin.self, "is not a link to"),
        (BadLinkingMissing.self, "without an origin"),
    ])
    func invalidDeclarationsAreRefused(_ type: ObjectBase.Type, _ text: String) throws {
        let error = try #require(throws: ObjDBError.self) { try directory.open([type]) }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains(text), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: directory.file().path))   // refused before creating the file
    }

    @Test func changingALinkTargetNeedsAMigration() throws {
        do {
            let db = try directory.open([LinkV1.self])
            try db.write { try db.add(LinkV1()) }
        }
        let error = try #require(throws: ObjDBError.self) { try directory.open([LinkV2.self]) }
        #expect(error.code == .migrationRequired)
        #expect(error.message.contains("target"))
    }

    @Test func deleteRulesAndLinkingObjectsChangeWithoutAMigration() throws {
        do {
            let db = try directory.open([RuleV1.self])
            try db.write { try db.add(RuleV1()) }
        }
        let db = try directory.open([RuleV2.self])
        #expect(db.schema["Rule"]?["next"]?.deleteRule == .cascade)
        #expect(db.schema["Rule"]?["previous"]?.type == .linkingObjects)
        #expect(db.objects(RuleV2.self).count == 1)
    }
}

/// A to-one link without `?`.
final class BadRequiredLink: Object {
    @Persisted var target: Pet = Pet()
}

/// A list of optional objects.
final class BadOptionalObjectList: Object {
    @Persisted var pets: List<Pet?>
}

/// A set of embedded objects.
final class BadEmbeddedSet: Object {
    @Persisted var places: MutableSet<Address>
}

/// Linking objects through a property that is not a link back.
final class BadLinkingOrigin: Object {
    @Persisted var name: String = ""
    @Persisted(originProperty: "name") var selves: LinkingObjects<BadLinkingOrigin>
}

/// Linking objects declared without an origin property.
final class BadLinkingMissing: Object {
    @Persisted var other: BadLinkingMissing?
    @Persisted var linkers: LinkingObjects<BadLinkingMissing>
}

/// Version 1 of a class whose link changes target.
final class LinkV1: Object {
    @Persisted var target: Pet?
    override class var className: String { "LinkChange" }
}

/// Version 2: the same property links to another class.
final class LinkV2: Object {
    @Persisted var target: Owner?
    override class var className: String { "LinkChange" }
}

/// Version 1 of a class that gains a delete rule and linking objects.
final class RuleV1: Object {
    @Persisted var next: RuleV1?
    override class var className: String { "Rule" }
}

/// Version 2: the same data, new metadata.
final class RuleV2: Object {
    @Persisted(deleteRule: .cascade) var next: RuleV2?
    @Persisted(originProperty: "next") var previous: LinkingObjects<RuleV2>
    override class var className: String { "Rule" }
}
