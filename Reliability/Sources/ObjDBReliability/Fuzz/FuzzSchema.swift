import ObjDB

/// A key path of a class the fuzzer can write, with what it leads to.
struct FuzzPath: Sendable {
    /// `pets.owner.name`.
    var text: String
    /// The type at its end (`.object` for links and collections of objects).
    var type: PropertyType
    /// Whether it goes through a collection or linking objects (so `ANY`/`ALL`/`NONE` apply).
    var toMany: Bool
    /// Whether it ends in a list, set or map of values (`tags`, `scores`).
    var valueCollection: Bool
    /// The class of the objects at its end, for links and collections of objects.
    var objectClass: String?
    /// Whether it ends in a collection of objects or linking objects (for `SUBQUERY`, `@count`).
    var objectCollection: Bool
}

/// The key paths of every class of the fuzz database, read from its schema.
struct FuzzSchema: Sendable {
    /// The classes that are queried (not embedded).
    let classes: [String]
    /// Per class, its key paths up to three links deep.
    let paths: [String: [FuzzPath]]

    init(_ schema: Schema) {
        var paths: [String: [FuzzPath]] = [:]
        for object in schema.objectSchema {
            var found: [FuzzPath] = []
            Self.walk(schema, object.className, prefix: "", toMany: false, depth: 0, into: &found)
            paths[object.className] = found
        }
        self.paths = paths
        classes = schema.objectSchema.filter { !$0.isEmbedded }.map(\.className).sorted()
    }

    private static func walk(_ schema: Schema, _ className: String, prefix: String, toMany: Bool, depth: Int, into found: inout [FuzzPath]) {
        guard let object = schema[className], found.count < 400 else { return }
        for property in object.properties {
            let text = prefix + property.name
            switch (property.type, property.collection) {
            case (.linkingObjects, _):
                found.append(FuzzPath(text: text, type: .object, toMany: true, valueCollection: false, objectClass: property.objectClassName, objectCollection: true))
                if depth < 2, let target = property.objectClassName {
                    walk(schema, target, prefix: text + ".", toMany: true, depth: depth + 1, into: &found)
                }
            case (.object, nil):
                found.append(FuzzPath(text: text, type: .object, toMany: toMany, valueCollection: false, objectClass: property.objectClassName, objectCollection: false))
                if depth < 2, let target = property.objectClassName {
                    walk(schema, target, prefix: text + ".", toMany: toMany, depth: depth + 1, into: &found)
                }
            case (.object, _):
                found.append(FuzzPath(text: text, type: .object, toMany: true, valueCollection: false, objectClass: property.objectClassName, objectCollection: true))
                if depth < 2, let target = property.objectClassName {
                    walk(schema, target, prefix: text + ".", toMany: true, depth: depth + 1, into: &found)
                }
            case (let type, nil):
                found.append(FuzzPath(text: text, type: type, toMany: toMany, valueCollection: false, objectClass: nil, objectCollection: false))
            case (let type, _):
                found.append(FuzzPath(text: text, type: type, toMany: true, valueCollection: true, objectClass: nil, objectCollection: false))
            }
        }
    }

    /// The paths of `className` a sort or `distinct` accepts: values reached through to-one links.
    func sortable(_ className: String) -> [String] {
        (paths[className] ?? []).filter { !$0.toMany && !$0.valueCollection && $0.type != .object && $0.type != .linkingObjects }
            .map(\.text)
    }
}
