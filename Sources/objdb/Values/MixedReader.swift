import Foundation
@_spi(Inspection) import ObjDB

/// A mixed value read from JSON whose links are not looked up yet: they name objects by class
/// and primary key (or object key), which only a database (``MixedLinkResolver``) turns into
/// objects.
indirect enum MixedDraft {
    /// A value without links.
    case value(MixedValue)
    /// A link to an object of `className`.
    case link(className: String, target: MixedLinkTarget)
    /// A list holding at least one link.
    case list([MixedDraft])
    /// A dictionary holding at least one link.
    case dictionary([String: MixedDraft])

    /// The value itself when it holds no link.
    var withoutLinks: MixedValue? {
        if case .value(let value) = self { value } else { nil }
    }
}

/// How a link in a mixed value names its object.
enum MixedLinkTarget {
    /// By the primary key, already a value of the primary key's type.
    case primaryKey(Any?, text: String)
    /// By the object key (a dump's, or the file's own).
    case key(UInt64)
}

/// A mixed value read from JSON with its links unresolved, where a property value belongs in the
/// values a reader hands on; ``MixedLinkResolver`` replaces it with the ``MixedValue``.
struct UnresolvedMixed {
    /// The value read.
    let draft: MixedDraft
    /// `Class.property is Type`, what messages start with.
    let subject: String
}

/// Reads a mixed value's JSON (`Docs/CLI.md`, "Mixed values"), the reverse of
/// ``MixedWriting``: `null`, booleans, numbers and strings as themselves; an array is a list; an
/// object with a `"$type"` key a typed value — `{"$type": "object", "class": C, "primaryKey": pk}`
/// (or `"key": n`) a link, `{"$type": "dictionary", "value": {…}}` and
/// `{"$type": "list", "value": […]}` collections, any other name a scalar as
/// ``ValueConversion`` reads it; any other object is a dictionary.
struct MixedReader {
    /// Why JSON is not a mixed value, as the rest of "Class.property is mixed: …".
    struct Failure: Error {
        let reason: String
    }

    /// The classes links are checked against.
    let schema: Schema
    /// Whether links by `"key"` are read (a dump's, or the command line's for the same file);
    /// otherwise refused, since keys belong to one file.
    let acceptsKeys: Bool

    /// Nesting deeper than this is refused (a stack's worth; the JSON reader has its own cap).
    private static let depthLimit = 100

    /// `json` as a mixed value.
    func read(_ json: JSONValue) throws(Failure) -> MixedDraft {
        try read(json, depth: 0)
    }

    /// `json` as a mixed value `depth` levels inside another.
    private func read(_ json: JSONValue, depth: Int) throws(Failure) -> MixedDraft {
        guard depth <= Self.depthLimit else { throw Failure(reason: "nested more than \(Self.depthLimit) deep") }
        switch json {
        case .array(let elements): return try list(elements, depth: depth)
        case .object(let members):
            guard let type = members["$type"] else { return try dictionary(members, depth: depth) }
            guard case .string(let name) = type else { throw Failure(reason: "\"$type\" is \(type.kind), not a type's name") }
            switch name {
            case "object": return try link(members)
            case "dictionary":
                guard case .object(let entries)? = members["value"], members.count == 2 else {
                    throw Failure(reason: "a {\"$type\": \"dictionary\"} needs \"value\": an object, and nothing else")
                }
                return try dictionary(entries, depth: depth)
            case "list":
                guard case .array(let elements)? = members["value"], members.count == 2 else {
                    throw Failure(reason: "a {\"$type\": \"list\"} needs \"value\": an array, and nothing else")
                }
                return try list(elements, depth: depth)
            default: return try scalar(json)
            }
        default: return try scalar(json)
        }
    }

    /// A value of one of the scalar types, as ``ValueConversion`` reads it.
    private func scalar(_ json: JSONValue) throws(Failure) -> MixedDraft {
        let value: Any
        do {
            value = try ValueConversion.value(json, .mixed)
        } catch {
            throw Failure(reason: "\(json.kind) is not \(error.needs)")
        }
        guard let mixed = value as? MixedValue else { throw Failure(reason: "\(json.kind) is not a mixed value") }
        return .value(mixed)
    }

    /// A list: a value when no element holds a link.
    private func list(_ elements: [JSONValue], depth: Int) throws(Failure) -> MixedDraft {
        var drafts: [MixedDraft] = []
        drafts.reserveCapacity(elements.count)
        for element in elements { drafts.append(try read(element, depth: depth + 1)) }
        let values = drafts.compactMap(\.withoutLinks)
        return values.count == drafts.count ? .value(.list(values)) : .list(drafts)
    }

    /// A dictionary: a value when no entry holds a link.
    private func dictionary(_ entries: [String: JSONValue], depth: Int) throws(Failure) -> MixedDraft {
        var drafts: [String: MixedDraft] = [:]
        for (key, entry) in entries { drafts[key] = try read(entry, depth: depth + 1) }
        let values = drafts.compactMapValues(\.withoutLinks)
        return values.count == drafts.count ? .value(.dictionary(values)) : .dictionary(drafts)
    }

    /// `{"$type": "object", "class": C, "primaryKey": pk}` or `{…, "key": n}`, checked against
    /// the schema (the object itself is looked up later).
    private func link(_ members: [String: JSONValue]) throws(Failure) -> MixedDraft {
        let form = "{\"$type\": \"object\", \"class\": …, \"primaryKey\": …}"
        guard case .string(let className)? = members["class"] else {
            throw Failure(reason: "a link needs \"class\", the name of a class: \(form)")
        }
        let extra = Set(members.keys).subtracting(["$type", "class", "primaryKey", "key"])
        guard extra.isEmpty else { throw Failure(reason: "a link has no \(extra.sorted().map { "\"\($0)\"" }.joined(separator: ", ")): \(form)") }
        guard let target = schema[className] else {
            throw Failure(reason: "a link names class '\(className)', which the file does not have")
        }
        guard !target.isEmbedded else {
            throw Failure(reason: "a link names class '\(className)', which is embedded: a mixed value cannot link to an embedded object")
        }
        switch (members["primaryKey"], members["key"]) {
        case (let pk?, nil):
            guard let property = target.primaryKeyProperty else {
                let how = acceptsKeys ? "link by its object key, {\"$type\": \"object\", \"class\": \"\(className)\", \"key\": …}" : "it cannot be linked to here"
                throw Failure(reason: "a link by primary key to \(className), which has no primary key; \(how)")
            }
            if pk == .null {
                guard property.isOptional else { throw Failure(reason: "a link to \(className) by primary key null, which \(className).\(property.name) cannot be") }
                return .link(className: className, target: .primaryKey(nil, text: "null"))
            }
            do {
                let value = try ValueConversion.value(pk, property.type, bits: property.bitWidth)
                return .link(className: className, target: .primaryKey(value, text: Self.text(pk)))
            } catch {
                throw Failure(reason: "a link to \(className) by primary key \(pk.kind), which is not \(error.needs) (\(className).\(property.name))")
            }
        case (nil, let key?):
            guard acceptsKeys else {
                let how = target.primaryKeyProperty == nil
                    ? "\(className) needs a primary key" : "give its primary key, {\"$type\": \"object\", \"class\": \"\(className)\", \"primaryKey\": …}"
                throw Failure(reason: "a link by \"key\" to \(className) cannot be imported (keys are per file); \(how)")
            }
            guard case .number(let text) = key, let value = UInt64(text), value > 0, value < .max else {
                throw Failure(reason: "a link's \"key\" is \(key.kind), not an object key (a positive integer)")
            }
            return .link(className: className, target: .key(value))
        case (nil, nil): throw Failure(reason: "a link needs \"primaryKey\" (or \"key\"): \(form)")
        case (_?, _?): throw Failure(reason: "a link has both \"primaryKey\" and \"key\"; give one")
        }
    }

    /// A primary key's JSON as it reads in messages.
    private static func text(_ json: JSONValue) -> String {
        switch json {
        case .string(let text): "'\(text)'"
        case .number(let text): text
        default: json.kind
        }
    }
}
