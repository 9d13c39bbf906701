import Foundation

/// Checks one column of a row against its property: what the write path can produce, and
/// nothing else.
enum ColumnVerifier {
    /// What is wrong with `read` as the content of `property`'s column, or `nil`.
    static func problem(_ read: ColumnRead, _ property: StoredProperty) -> String? {
        switch ColumnKind(property) {
        case .value:
            switch read {
            case .absent: return nil  // written before the property existed: reads as the default
            case .null: return property.optional ? nil : "is null, but the property is not optional"
            case .value(let bytes): return valueProblem(bytes, property)
            }
        case .link:
            guard case .value(let bytes) = read else { return nil }
            return bytes.count == 8 ? nil : "a link of \(bytes.count) bytes instead of 8"
        case .list, .set:
            guard case .value(let bytes) = read else { return nil }
            guard SequenceView.wellFormedCount(bytes) != nil else { return "the collection's encoding is damaged" }
            return elementsProblem(SequenceView(bytes), property, distinct: property.collection == .set)
        case .map:
            guard case .value(let bytes) = read else { return nil }
            return mapProblem(bytes, property)
        }
    }

    /// What is wrong with a single value's bytes for `property`'s type, or `nil`.
    static func valueProblem(_ bytes: UnsafeRawBufferPointer, _ property: StoredProperty) -> String? {
        let fits: Bool
        switch property.type {
        case .bool:
            fits = bytes.count == 1 && bytes[0] <= 1
        case .int:
            guard let value = ColumnCodec.integer(bytes) else { return "an integer of \(bytes.count) bytes" }
            // The write path stores the shortest form, within the property's width.
            var shortest: [UInt8] = []
            ColumnCodec.appendInteger(value, to: &shortest)
            let bits = property.bits ?? 64
            let inRange = bits >= 64 || (value >= -(Int64(1) << (bits - 1)) && value < Int64(1) << (bits - 1))
            fits = shortest.count == bytes.count && inRange
        case .float:
            fits = bytes.count == 4
        case .double, .date:
            fits = bytes.count == 8
        case .string:
            fits = String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) != nil
        case .data:
            fits = true
        case .uuid:
            fits = bytes.count == 16
        case .objectId:
            fits = bytes.count == 12
        case .decimal:
            fits = Decimal._objdbDecode(bytes) != nil
        case .object:
            fits = bytes.count == 8
        case .linkingObjects:
            fits = false
        case .mixed:
            // A known tag, then a payload its type decodes (and a value re-encodes to the same
            // bytes; links and nested collections are checked to every depth by the decoding).
            guard let value = MixedValue._objdbDecode(bytes), let (tag, _) = MixedFormat.split(bytes) else {
                return "a mixed value with an unknown tag or a damaged payload"
            }
            if tag == .object || tag == .list || tag == .dictionary {
                fits = true
            } else {
                var encoded = _ObjDBBytes()
                fits = value._objdbEncode(into: &encoded) && encoded.array.elementsEqual(bytes)
            }
        }
        return fits ? nil : "\(bytes.count) bytes that are not a valid \(property.type)"
    }

    /// What is wrong with the elements of a list, set, or a map's values, or `nil`.
    static func elementsProblem(_ view: SequenceView, _ property: StoredProperty, distinct: Bool) -> String? {
        var seen = Set<[UInt8]>()
        for i in 0..<view.count {
            switch view.element(i) {
            case .null:
                if !property.optional { return "element \(i) is null, but the elements are not optional" }
                if distinct && !seen.insert([]).inserted { return "the set holds null twice" }
            case .absent:
                return "element \(i) lies outside the collection"
            case .value(let bytes):
                if let problem = valueProblem(bytes, property) { return "element \(i): \(problem)" }
                // A set compares values by their bytes; a null is kept apart by the empty marker
                // (no value of a set's element types encodes to nothing but the integer 0, which is
                // told apart by its length prefix below).
                // By bytes: a set of mixed values written before numbers became one member when
                // equal (`.int(1)` and `.double(1)`) may hold both, and is not damaged.
                if distinct && !seen.insert([UInt8(1)] + Array(bytes)).inserted { return "the set holds element \(i) twice" }
            }
        }
        return nil
    }

    /// What is wrong with a map column, or `nil`: the map itself (``MapView/checked(_:)``), then
    /// its values.
    static func mapProblem(_ bytes: UnsafeRawBufferPointer, _ property: StoredProperty) -> String? {
        switch MapView.checked(bytes) {
        case .failure(let damage): "\(damage)"
        case .success(let map): elementsProblem(map.values, property, distinct: false)
        }
    }
}
