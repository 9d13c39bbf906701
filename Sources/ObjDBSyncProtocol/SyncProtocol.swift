import Foundation
import ObjDB

/// The sync wire protocol's identity (Docs/SyncProtocol.md).
public enum SyncProtocol {
    /// The protocol version this build speaks; a hello with another one is refused.
    public static let version = 2
    /// The WebSocket endpoint's path.
    public static let path = "/sync"
}

/// The limits every peer of the sync protocol keeps.
public enum SyncLimits {
    /// The largest message (one WebSocket text or binary message), in bytes: 4 MiB.
    public static let maxMessageBytes = 4 << 20
    /// The most operations in one upload.
    public static let maxOperationsPerUpload = 10000
    /// The most object states in one download part.
    public static let maxChangesPerMessage = 1000
}

/// One stored property of a synced class, as a client declares it in its hello.
public struct SyncPropertySchema: Codable, Sendable, Hashable {
    /// The property's name (the column's name in PostgreSQL).
    public var name: String
    /// The stored type (of the elements, for a collection).
    public var type: PropertyType
    /// Whether the property (the elements, for a collection) accepts `nil`.
    public var isOptional: Bool
    /// The collection held, if any.
    public var collection: CollectionKind?
    /// For links and embedded objects: the class linked to.
    public var objectClassName: String?
    /// Whether this is the class's primary key.
    public var isPrimaryKey: Bool

    /// A property description.
    public init(
        name: String, type: PropertyType, isOptional: Bool = false, collection: CollectionKind? = nil,
        objectClassName: String? = nil, isPrimaryKey: Bool = false
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.collection = collection
        self.objectClassName = objectClassName
        self.isPrimaryKey = isPrimaryKey
    }

    /// The description of an ObjDB property.
    public init(_ property: Property) {
        self.init(
            name: property.name, type: property.type, isOptional: property.isOptional, collection: property.collection,
            objectClassName: property.objectClassName, isPrimaryKey: property.isPrimaryKey)
    }
}

/// One class of a client's schema, as its hello declares it.
public struct SyncClassSchema: Codable, Sendable, Hashable {
    /// The class name (the table's name in PostgreSQL).
    public var name: String
    /// Whether the class is embedded (stored inside its parents' rows, no table of its own).
    public var isEmbedded: Bool
    /// The stored properties (no linking objects), in the file's order.
    public var properties: [SyncPropertySchema]

    /// A class description.
    public init(name: String, isEmbedded: Bool = false, properties: [SyncPropertySchema]) {
        self.name = name
        self.isEmbedded = isEmbedded
        self.properties = properties
    }

    /// The description of an ObjDB class, its stored properties only.
    public init(_ schema: ObjectSchema) {
        self.init(
            name: schema.className, isEmbedded: schema.isEmbedded,
            properties: schema.properties.filter { $0.type != .linkingObjects }.map(SyncPropertySchema.init))
    }

    /// The primary-key property.
    public var primaryKey: SyncPropertySchema? { properties.first { $0.isPrimaryKey } }

    /// The property with that name.
    public subscript(name: String) -> SyncPropertySchema? { properties.first { $0.name == name } }
}

/// A message from a client to the sync service.
public enum ClientMessage: Sendable, Equatable {
    /// The first message on every connection.
    case hello(Hello)
    /// Operations of the outbox, ascending and contiguous, at most
    /// ``SyncLimits/maxOperationsPerUpload``.
    case upload([SyncOperation])
    /// Asks for everything the server holds now: the server reads the delta since the last
    /// checkpoint it sent, sends it as a final download (possibly empty), then
    /// ``ServerMessage/downloadDone(id:)`` with the same id.
    case requestDownload(id: UInt64)

    /// Who the client is, what it stores and where it left off.
    public struct Hello: Sendable, Equatable {
        /// The file's client id (one per file, a new one after a reset).
        public var clientID: UUID
        /// The synced classes of the file.
        public var schema: [SyncClassSchema]
        /// The classes whose objects the client wants (whole-class subscriptions).
        public var subscriptions: [String]
        /// The query subscriptions: the objects of a class that match a predicate. A class's
        /// objects are downloaded when they match one of its queries (or all of them when the
        /// class is also in ``subscriptions``).
        public var queries: [SubscriptionQuery]
        /// The last checkpoint the file applied; `nil` to bootstrap.
        public var checkpoint: String?
        /// The highest outbox sequence the file ever assigned.
        public var lastSequence: UInt64

        /// A hello.
        public init(
            clientID: UUID, schema: [SyncClassSchema], subscriptions: [String], queries: [SubscriptionQuery] = [], checkpoint: String?,
            lastSequence: UInt64
        ) {
            self.clientID = clientID
            self.schema = schema
            self.subscriptions = subscriptions
            self.queries = queries
            self.checkpoint = checkpoint
            self.lastSequence = lastSequence
        }
    }

    /// A query subscription as it travels: a predicate string whose values are all arguments
    /// (`owner == %@ AND done == %@`), so that no value is ever read out of the text.
    public struct SubscriptionQuery: Sendable, Hashable {
        /// The class whose objects it selects.
        public var className: String
        /// The predicate, in the portable part of ObjDB's predicate language.
        public var predicate: String
        /// The values of the predicate's `%@`, in order.
        public var arguments: [SyncValue]

        /// A query subscription.
        public init(className: String, predicate: String, arguments: [SyncValue]) {
            self.className = className
            self.predicate = predicate
            self.arguments = arguments
        }
    }
}

/// A message from the sync service to a client.
public enum ServerMessage: Sendable, Equatable {
    /// The answer to a hello: the client's last sequence the server applied (0 if none).
    case welcome(acknowledged: UInt64)
    /// An upload was applied (or found already applied) through this sequence.
    case ack(through: UInt64)
    /// A part of a checkpoint; the parts up to the one with `isFinal` are applied together, in
    /// one local commit.
    case download(Download)
    /// The answer to ``ClientMessage/requestDownload(id:)``: the downloads sent before it hold
    /// everything the server held when the request arrived.
    case downloadDone(id: UInt64)
    /// An operation the server refused (schema mismatch, permissions); it is still acknowledged
    /// by the ``ack(through:)`` that follows.
    case rejected(sequence: UInt64, className: String, primaryKey: SyncValue, reason: String)
    /// The client's file is behind the server's record of it (copied or restored): start over
    /// with a new client id.
    case reset(reason: String)
    /// A fatal error; the server closes the connection after it.
    case error(code: String, message: String)

    /// A part of a checkpoint; it travels as a binary message (``DownloadFrame``).
    public struct Download: Sendable, Equatable {
        /// A bootstrap: objects of subscribed classes absent from the download are deleted.
        public var isReset: Bool
        /// The current state of changed objects, in batches of one class (`values == nil`:
        /// deleted).
        public var batches: [SyncObjectBatch]
        /// Whether this part completes the checkpoint.
        public var isFinal: Bool
        /// The checkpoint reached (set when ``isFinal``), to send back in the next hello.
        public var checkpoint: String?
        /// The client's last sequence included in this checkpoint (set when ``isFinal``).
        public var includesSequence: UInt64?

        /// A download part.
        public init(isReset: Bool, batches: [SyncObjectBatch], isFinal: Bool, checkpoint: String?, includesSequence: UInt64?) {
            self.isReset = isReset
            self.batches = batches
            self.isFinal = isFinal
            self.checkpoint = checkpoint
            self.includesSequence = includesSequence
        }

        /// A download part of states one by one (grouped into batches).
        public init(isReset: Bool, changes: [SyncObjectState], isFinal: Bool, checkpoint: String?, includesSequence: UInt64?) {
            self.init(
                isReset: isReset, batches: SyncObjectBatch.batches(changes), isFinal: isFinal, checkpoint: checkpoint,
                includesSequence: includesSequence)
        }

        /// The part's object states, one by one, in order.
        public var changes: [SyncObjectState] { batches.flatMap(\.states) }

        /// How many object states the part holds.
        public var changeCount: Int { batches.reduce(0) { $0 + $1.rows.count } }
    }
}

/// One WebSocket message of the sync protocol: JSON text, or a binary download frame.
public enum SyncFrame: Sendable, Equatable {
    /// A text message: the JSON of every message but a download.
    case text(String)
    /// A binary message: an ``UploadFrame`` or a ``DownloadFrame``.
    case binary([UInt8])

    /// The message's length in bytes.
    public var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let bytes): bytes.count
        }
    }
}

/// Writes and reads the messages of the sync protocol as the JSON text of one WebSocket text
/// message (Docs/SyncProtocol.md).
///
/// Decoding throws ``ObjDBError`` with code `.invalidValue` whose `key` is the protocol's error
/// code (``SyncErrorCode``): malformed JSON or fields, an oversize message, an unknown type, a
/// wrong protocol version.
public enum SyncMessageCoding {
    /// The JSON text of a client message other than an upload, which travels as a binary frame
    /// (see ``frame(_:)-(ClientMessage)``).
    public static func encode(_ message: ClientMessage) throws -> String {
        guard case .text(let text) = try frame(message) else {
            throw ObjDBError(.invalidValue, "An upload travels as a binary frame, not as text", key: SyncErrorCode.protocolViolation)
        }
        return text
    }

    /// The WebSocket message of a client message: a binary ``UploadFrame`` for an upload, JSON
    /// text for the others. Throws `messageTooLarge` past ``SyncLimits/maxMessageBytes``.
    public static func frame(_ message: ClientMessage) throws -> SyncFrame {
        if case .upload(let operations) = message { return .binary(try checked(UploadFrame.encode(operations))) }
        return .text(try checked((clientJSON(message) ?? .null).text))
    }

    /// Reads a client message from its WebSocket message.
    public static func decodeClient(_ frame: SyncFrame) throws -> ClientMessage {
        switch frame {
        case .text(let text): try decodeClient(text)
        case .binary(let bytes): .upload(try UploadFrame.decode(bytes))
        }
    }

    /// `bytes` if they fit in a message, else `messageTooLarge`.
    package static func checked(_ bytes: [UInt8]) throws -> [UInt8] {
        guard bytes.count <= SyncLimits.maxMessageBytes else {
            throw ObjDBError(
                .invalidValue, "Sync message of \(bytes.count) bytes exceeds \(SyncLimits.maxMessageBytes)", key: SyncErrorCode.messageTooLarge)
        }
        return bytes
    }

    /// The JSON text of a server message other than a download, which travels as a binary
    /// frame (see ``frame(_:)``).
    public static func encode(_ message: ServerMessage) throws -> String {
        guard case .text(let text) = try frame(message) else {
            throw ObjDBError(.invalidValue, "A download part travels as a binary frame, not as text", key: SyncErrorCode.protocolViolation)
        }
        return text
    }

    /// The WebSocket message of a server message: a binary ``DownloadFrame`` for a download,
    /// JSON text for the others. Throws `messageTooLarge` past ``SyncLimits/maxMessageBytes``.
    public static func frame(_ message: ServerMessage) throws -> SyncFrame {
        if case .download(let part) = message { return .binary(try checked(DownloadFrame.encode(part))) }
        return .text(try checked((serverJSON(message) ?? .null).text))
    }

    /// Reads a server message from its WebSocket message.
    public static func decodeServer(_ frame: SyncFrame) throws -> ServerMessage {
        switch frame {
        case .text(let text): try decodeServer(text)
        case .binary(let bytes): .download(try DownloadFrame.decode(bytes))
        }
    }

    /// Reads a client message.
    public static func decodeClient(_ text: String) throws -> ClientMessage {
        let (type, json) = try envelope(text)
        switch type {
        case "hello":
            try checkVersion(json)
            guard case .string(let idText)? = json["clientID"], let id = UUID(uuidString: idText) else {
                throw malformed("hello needs \"clientID\", a UUID")
            }
            guard case .array(let schemaJSON)? = json["schema"] else { throw malformed("hello needs \"schema\", an array") }
            guard case .array(let subsJSON)? = json["subscriptions"] else { throw malformed("hello needs \"subscriptions\", an array") }
            let subscriptions = try subsJSON.map { item -> String in
                guard case .string(let s) = item else { throw malformed("\"subscriptions\" holds class names") }
                return s
            }
            let checkpoint: String?
            switch json["checkpoint"] {
            case .string(let s)?: checkpoint = s
            case .null?, nil: checkpoint = nil
            default: throw malformed("\"checkpoint\" must be a string or null")
            }
            var queries: [ClientMessage.SubscriptionQuery] = []
            switch json["queries"] {
            case .array(let items)?: queries = try items.map(subscriptionQuery)
            case nil: break
            default: throw malformed("\"queries\" must be an array")
            }
            let hello = ClientMessage.Hello(
                clientID: id, schema: try schemaJSON.map(classSchema), subscriptions: subscriptions, queries: queries, checkpoint: checkpoint,
                lastSequence: try uint(json["lastSequence"], "lastSequence"))
            return .hello(hello)
        case "upload":
            throw malformed("an upload travels as a binary frame, not as text")
        case "requestDownload":
            return .requestDownload(id: try uint(json["id"], "id"))
        default:
            throw ObjDBError(.invalidValue, "Unknown client message type \"\(type)\"", key: SyncErrorCode.unknownMessageType)
        }
    }

    /// Reads a server message.
    public static func decodeServer(_ text: String) throws -> ServerMessage {
        let (type, json) = try envelope(text)
        switch type {
        case "welcome":
            try checkVersion(json)
            return .welcome(acknowledged: try uint(json["acknowledged"], "acknowledged"))
        case "ack":
            return .ack(through: try uint(json["through"], "through"))
        case "download":
            throw malformed("a download part travels as a binary frame, not as text")
        case "downloadDone":
            return .downloadDone(id: try uint(json["id"], "id"))
        case "rejected":
            return .rejected(
                sequence: try uint(json["sequence"], "sequence"), className: try string(json["class"], "class"),
                primaryKey: try value(json["primaryKey"], "primaryKey"), reason: try string(json["reason"], "reason"))
        case "reset":
            return .reset(reason: try string(json["reason"], "reason"))
        case "error":
            return .error(code: try string(json["code"], "code"), message: try string(json["message"], "message"))
        default:
            throw ObjDBError(.invalidValue, "Unknown server message type \"\(type)\"", key: SyncErrorCode.unknownMessageType)
        }
    }

    // MARK: Writing

    static func checked(_ text: String) throws -> String {
        guard text.utf8.count <= SyncLimits.maxMessageBytes else {
            throw ObjDBError(
                .invalidValue, "Sync message of \(text.utf8.count) bytes exceeds \(SyncLimits.maxMessageBytes)",
                key: SyncErrorCode.messageTooLarge)
        }
        return text
    }

    /// The JSON of a message, `nil` for an upload (a binary frame).
    static func clientJSON(_ message: ClientMessage) -> SyncJSON? {
        switch message {
        case .hello(let h):
            return .object([
                ("type", .string("hello")), ("protocol", .number(String(SyncProtocol.version))),
                ("clientID", .string(h.clientID.uuidString)), ("schema", .array(h.schema.map(classSchemaJSON))),
                ("subscriptions", .array(h.subscriptions.map(SyncJSON.string))),
                ("queries", .array(h.queries.map(subscriptionQueryJSON))), ("checkpoint", h.checkpoint.map(SyncJSON.string) ?? .null),
                ("lastSequence", .number(String(h.lastSequence))),
            ])
        case .upload:
            // Not JSON: a binary frame (``UploadFrame``).
            return nil
        case .requestDownload(let id):
            return .object([("type", .string("requestDownload")), ("id", .number(String(id)))])
        }
    }

    /// The JSON of a message, `nil` for a download (a binary frame).
    static func serverJSON(_ message: ServerMessage) -> SyncJSON? {
        switch message {
        case .welcome(let acknowledged):
            return .object([
                ("type", .string("welcome")), ("protocol", .number(String(SyncProtocol.version))), ("acknowledged", .number(String(acknowledged))),
            ])
        case .ack(let through):
            return .object([("type", .string("ack")), ("through", .number(String(through)))])
        case .download:
            // Not JSON: a binary frame (``DownloadFrame``).
            return nil
        case .downloadDone(let id):
            return .object([("type", .string("downloadDone")), ("id", .number(String(id)))])
        case .rejected(let sequence, let className, let primaryKey, let reason):
            return .object([
                ("type", .string("rejected")), ("sequence", .number(String(sequence))), ("class", .string(className)),
                ("primaryKey", SyncValueJSON.encode(primaryKey)), ("reason", .string(reason)),
            ])
        case .reset(let reason):
            return .object([("type", .string("reset")), ("reason", .string(reason))])
        case .error(let code, let message):
            return .object([("type", .string("error")), ("code", .string(code)), ("message", .string(message))])
        }
    }

    static func classSchemaJSON(_ s: SyncClassSchema) -> SyncJSON {
        .object([
            ("name", .string(s.name)), ("isEmbedded", .bool(s.isEmbedded)),
            (
                "properties",
                .array(
                    s.properties.map { p in
                        .object([
                            ("name", .string(p.name)), ("type", .string(p.type.rawValue)), ("isOptional", .bool(p.isOptional)),
                            ("collection", p.collection.map { .string($0.rawValue) } ?? .null),
                            ("objectClassName", p.objectClassName.map(SyncJSON.string) ?? .null), ("isPrimaryKey", .bool(p.isPrimaryKey)),
                        ])
                    })
            ),
        ])
    }

    /// The JSON text of a class schema (as the server keeps it in `objdb_schema`).
    public static func encodeSchema(_ schema: SyncClassSchema) -> String { classSchemaJSON(schema).text }

    /// Reads the JSON text of a class schema.
    public static func decodeSchema(_ text: String) throws -> SyncClassSchema { try classSchema(SyncJSON.parse(text)) }

    // MARK: Reading

    static func envelope(_ text: String) throws -> (String, SyncJSON) {
        guard text.utf8.count <= SyncLimits.maxMessageBytes else {
            throw ObjDBError(
                .invalidValue, "Sync message of \(text.utf8.count) bytes exceeds \(SyncLimits.maxMessageBytes)",
                key: SyncErrorCode.messageTooLarge)
        }
        let json = try SyncJSON.parse(text)
        guard case .object = json else { throw malformed("a message must be a JSON object") }
        guard case .string(let type)? = json["type"] else { throw malformed("a message needs \"type\", a string") }
        return (type, json)
    }

    static func checkVersion(_ json: SyncJSON) throws {
        guard case .number(let n)? = json["protocol"], let v = Int(n) else { throw malformed("\"protocol\" (the version) is missing") }
        guard v == SyncProtocol.version else {
            throw ObjDBError(
                .invalidValue, "Protocol version \(v) is not supported; this peer speaks \(SyncProtocol.version)",
                key: SyncErrorCode.unsupportedProtocolVersion)
        }
    }

    static func malformed(_ message: String) -> ObjDBError { SyncValueJSON.malformed(message) }

    static func uint(_ json: SyncJSON?, _ name: String) throws -> UInt64 {
        guard case .number(let n)? = json, let v = UInt64(n) else { throw malformed("\"\(name)\" needs a non-negative integer") }
        return v
    }

    static func bool(_ json: SyncJSON?, _ name: String) throws -> Bool {
        guard case .bool(let b)? = json else { throw malformed("\"\(name)\" needs true or false") }
        return b
    }

    static func string(_ json: SyncJSON?, _ name: String) throws -> String {
        guard case .string(let s)? = json else { throw malformed("\"\(name)\" needs a string") }
        return s
    }

    static func optionalString(_ json: SyncJSON?, _ name: String) throws -> String? {
        switch json {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw malformed("\"\(name)\" needs a string or null")
        }
    }

    static func value(_ json: SyncJSON?, _ name: String) throws -> SyncValue {
        guard let json else { throw malformed("\"\(name)\" is missing") }
        return try SyncValueJSON.decode(json)
    }

    /// A query subscription read from its JSON.
    static func subscriptionQuery(_ json: SyncJSON) throws -> ClientMessage.SubscriptionQuery {
        guard case .string(let className)? = json["class"], case .string(let predicate)? = json["predicate"],
            case .array(let arguments)? = json["arguments"]
        else { throw malformed("a query holds \"class\" and \"predicate\", strings, and \"arguments\", an array") }
        return ClientMessage.SubscriptionQuery(className: className, predicate: predicate, arguments: try arguments.map(SyncValueJSON.decode))
    }

    /// The JSON of a query subscription.
    static func subscriptionQueryJSON(_ query: ClientMessage.SubscriptionQuery) -> SyncJSON {
        .object([
            ("class", .string(query.className)), ("predicate", .string(query.predicate)),
            ("arguments", .array(query.arguments.map(SyncValueJSON.encode))),
        ])
    }

    static func classSchema(_ json: SyncJSON) throws -> SyncClassSchema {
        guard case .array(let props)? = json["properties"] else { throw malformed("a class schema needs \"properties\", an array") }
        return SyncClassSchema(
            name: try string(json["name"], "name"), isEmbedded: try bool(json["isEmbedded"], "isEmbedded"),
            properties: try props.map { p in
                let typeText = try string(p["type"], "type")
                guard let type = PropertyType(rawValue: typeText) else { throw malformed("unknown property type \"\(typeText)\"") }
                let collection = try optionalString(p["collection"], "collection").map { text -> CollectionKind in
                    guard let c = CollectionKind(rawValue: text) else { throw malformed("unknown collection \"\(text)\"") }
                    return c
                }
                return SyncPropertySchema(
                    name: try string(p["name"], "name"), type: type, isOptional: try bool(p["isOptional"], "isOptional"),
                    collection: collection, objectClassName: try optionalString(p["objectClassName"], "objectClassName"),
                    isPrimaryKey: try bool(p["isPrimaryKey"], "isPrimaryKey"))
            })
    }
}
