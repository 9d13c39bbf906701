import Foundation

extension PredicateBinder {
    /// `value` as a constant compared with a mixed property: each constant keeps its own type,
    /// as realm-core's `Mixed` does (numbers compare across types; strings, data, UUIDs and
    /// ObjectIds only with their own type; an object with a link to it). `nil`
    /// for an object of a class the file does not have.
    static func mixedComparand(_ value: QueryValue, options: QueryStringOptions, database: Database) -> Comparand? {
        switch value {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .double(let v): return .double(v)
        case .decimal(let v): return .decimal(v)
        case .string(let v): return .bytes(Array((options.isEmpty ? v : QueryText.fold(v, options)).utf8))
        case .data(let v) where options.isEmpty: return .tagged(.data, Array(v))
        case .data(let v): return .tagged(.data, Array(QueryText.fold(String(decoding: v, as: UTF8.self), options).utf8))
        case .date(let v): return .date(v.timeIntervalSinceReferenceDate)
        case .uuid(let v): return .tagged(.uuid, withUnsafeBytes(of: v.uuid) { Array($0) })
        case .objectId(let v): return .tagged(.objectId, v.bytes)
        case .object(let className, let key):
            guard let info = database.classInfo(named: className) else { return nil }
            var bytes = _ObjDBBytes()
            MixedFormat.appendLink(classID: info.classID, key: key, to: &bytes)
            return .tagged(.object, bytes.array)
        }
    }
}

extension QueryValue {
    /// The constant a mixed value is (`none` is nil, a float a double, a link the object). `nil`
    /// for a list or a dictionary, and for an object not managed yet.
    init?(mixed value: MixedValue) {
        switch value {
        case .none: self = .null
        case .int(let v): self = .int(Int64(v))
        case .bool(let v): self = .bool(v)
        case .float(let v): self = .double(Double(v))
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .data(let v): self = .data(v)
        case .date(let v): self = .date(v)
        case .objectId(let v): self = .objectId(v)
        case .decimal(let v): self = .decimal(v)
        case .uuid(let v): self = .uuid(v)
        case .object(let v):
            guard v._objdbDatabase != nil, let info = v._objdbInfo else { return nil }
            self = .object(className: info.name, key: v._objdbKey)
        case .list, .dictionary: return nil
        }
    }
}

extension PredicateBinder {
    /// The names `value.@type` compares with, as realm-core spells them, and the type bits
    /// (``MixedFormat/typeBit(_:)``) each stands for: `'numeric'` for every number type, and
    /// realm-core's other names for a type (`'integer'`, `'int64'`, `'long'`, `'boolean'`,
    /// `'bytearray'`, `'guid'`, `'datetimeoffset'`, `'link'`…), and `'collection'` for lists and
    /// dictionaries.
    static let typeNames: [String: [MixedFormat.Tag]] = {
        var names: [String: [MixedFormat.Tag]] = [:]
        for tag in MixedFormat.Tag.allCases { names[tag.typeName.lowercased()] = [tag] }
        names["numeric"] = MixedFormat.Tag.allCases.filter(\.isNumeric)
        names["collection"] = [.list, .dictionary]
        let aliases: [MixedFormat.Tag: [String]] = [
            .int: ["integer", "int16", "int32", "int64", "short", "long", "byte", "char"],
            .bool: ["boolean"],
            .data: ["data", "bytearray", "byte[]", "bindata"],
            .object: ["link"],
            .date: ["timestamp", "datetimeoffset"],
            .decimal: ["decimal128"],
            .uuid: ["guid"],
        ]
        for (tag, spellings) in aliases {
            for spelling in spellings { names[spelling] = [tag] }
        }
        return names
    }()

    /// `value.@type == 'string'`, `!= 'numeric'`, `IN {'int', 'bool'}`: the comparison of the
    /// type bits of the values with those of the names (case-insensitive), `!=` as the negation
    /// of `==`. `nil` when `c` does not compare a `@type`.
    func bindTypeOf(_ c: QueryComparison) throws -> BoundPredicate? {
        guard case .keyPath(let keyPath) = c.left, keyPath.components.last == QueryKeyPath.typeOf else { return nil }
        let path = try bindPath(keyPath)
        func bits(_ value: QueryValue) throws -> [Comparand] {
            guard case .string(let name) = value else {
                throw error(c.position, "@type is compared with a type name such as 'string' or 'numeric', not \(value)")
            }
            guard let tags = Self.typeNames[name.lowercased()] else {
                throw error(c.position, "'\(name)' is not a type name; use one of \(Self.typeNames.keys.sorted().joined(separator: ", "))")
            }
            return tags.map { .int(1 << Int64($0.rawValue)) }
        }
        if !c.options.isEmpty {
            throw error(c.position, "@type is compared with type names as they are; [c] and [d] do not apply to it")
        }
        var constants: [Comparand] = []
        var otherPath: BoundPath?
        switch (c.op, c.right) {
        case (.equal, .value(let value)), (.notEqual, .value(let value)): constants = try bits(value)
        case (.in, .list(let values)): constants = try values.flatMap(bits)
        case (.equal, .keyPath(let other)) where other.components.last == QueryKeyPath.typeOf,
            (.notEqual, .keyPath(let other)) where other.components.last == QueryKeyPath.typeOf:
            // Another `@type`: of mixed values, their types; of a typed property, its type, a
            // constant (realm-core's `mixed.@type == int.@type`).
            var property = other
            property.components.removeLast()
            let measured = try bindPath(property)
            if measured.leafType == .mixed {
                let typed = try bindPath(other)
                if typed.isToMany && path.isToMany {
                    throw error(c.position, "both sides are to-many ('\(other)' on the right); compare with ANY/ALL on one side")
                }
                otherPath = typed
            } else if let tag = Self.typeTag(of: measured.leafType) {
                constants = [.int(1 << Int64(tag.rawValue))]
            } else {
                throw error(c.position, "@type of '\(property)' (\(measured.leafType)) is no type a mixed value holds")
            }
        default:
            throw error(c.position, "@type is compared with ==, != or IN and type names, as in value.@type == 'string'")
        }
        if c.op == .notEqual, path.isToMany || otherPath?.isToMany == true {
            throw error(c.position, "@type != on a collection is not supported; write NONE … .@type == … instead")
        }
        let order = QuantifierOrder(c, leftIsToMany: path.isToMany)
        let comparison = if let otherPath {
            BoundComparison(left: .path(path), op: .equal, right: .path(otherPath), options: [], quantifier: order.quantifier, type: .int)
        } else {
            BoundComparison(left: .path(path), op: .in, right: .list(constants), options: [], quantifier: order.quantifier, type: .int)
        }
        return c.op == .notEqual ? .not(.comparison(comparison)) : .comparison(comparison)
    }

    /// The tag of the values a property of `type` holds, as `@type` names them; `nil` for links.
    static func typeTag(of type: PropertyType) -> MixedFormat.Tag? {
        switch type {
        case .int: .int
        case .bool: .bool
        case .float: .float
        case .double: .double
        case .decimal: .decimal
        case .string: .string
        case .data: .data
        case .date: .date
        case .objectId: .objectId
        case .uuid: .uuid
        case .object, .linkingObjects, .mixed: nil
        }
    }
}
