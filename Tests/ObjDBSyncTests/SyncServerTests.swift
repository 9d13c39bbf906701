import Foundation
import HummingbirdWSClient
import NIOWebSocket
import JWTKit
import Logging
import ObjDB
import ObjDBSyncProtocol
import ObjDBSyncServer
import ObjDBSyncTestSupport
import PostgresNIO
import Testing

/// One database for the suite (a new one per test process).
let suiteDatabase = Task { try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_sync_server") }

/// A class with a property of every type, a target of links and an embedded class.
enum Model {
    static let target = SyncClassSchema(
        name: "Target",
        properties: [SyncPropertySchema(name: "id", type: .uuid, isPrimaryKey: true), SyncPropertySchema(name: "name", type: .string, isOptional: true)])
    static let address = SyncClassSchema(
        name: "Address", isEmbedded: true,
        properties: [SyncPropertySchema(name: "city", type: .string), SyncPropertySchema(name: "zip", type: .double, isOptional: true)])
    static let everything = SyncClassSchema(
        name: "Everything",
        properties: [
            SyncPropertySchema(name: "id", type: .string, isPrimaryKey: true),
            SyncPropertySchema(name: "int", type: .int), SyncPropertySchema(name: "optInt", type: .int, isOptional: true),
            SyncPropertySchema(name: "bool", type: .bool), SyncPropertySchema(name: "float", type: .float),
            SyncPropertySchema(name: "double", type: .double), SyncPropertySchema(name: "string", type: .string),
            SyncPropertySchema(name: "data", type: .data), SyncPropertySchema(name: "date", type: .date),
            SyncPropertySchema(name: "decimal", type: .decimal), SyncPropertySchema(name: "uuid", type: .uuid),
            SyncPropertySchema(name: "objectId", type: .objectId),
            SyncPropertySchema(name: "link", type: .object, isOptional: true, objectClassName: "Target"),
            SyncPropertySchema(name: "ints", type: .int, collection: .list),
            SyncPropertySchema(name: "optDoubles", type: .double, isOptional: true, collection: .list),
            SyncPropertySchema(name: "strings", type: .string, collection: .list),
            SyncPropertySchema(name: "dataSet", type: .data, collection: .set),
            SyncPropertySchema(name: "dates", type: .date, collection: .list),
            SyncPropertySchema(name: "links", type: .object, collection: .list, objectClassName: "Target"),
            SyncPropertySchema(name: "scores", type: .double, isOptional: true, collection: .map),
            SyncPropertySchema(name: "address", type: .object, isOptional: true, objectClassName: "Address"),
            SyncPropertySchema(name: "addresses", type: .object, collection: .list, objectClassName: "Address"),
            SyncPropertySchema(name: "mixed", type: .mixed, isOptional: true),
            SyncPropertySchema(name: "mixeds", type: .mixed, isOptional: true, collection: .list),
        ])
    static let note = SyncClassSchema(
        name: "Note",
        properties: [
            SyncPropertySchema(name: "id", type: .string, isPrimaryKey: true), SyncPropertySchema(name: "text", type: .string, isOptional: true),
            SyncPropertySchema(name: "tags", type: .string, collection: .list),
        ])
    static let schema = [target, address, everything, note]

    static func hello(_ id: UUID = UUID(), checkpoint: String? = nil, lastSequence: UInt64 = 0, subscriptions: [String] = ["Everything", "Target", "Note"])
        -> ClientMessage.Hello
    {
        ClientMessage.Hello(clientID: id, schema: schema, subscriptions: subscriptions, checkpoint: checkpoint, lastSequence: lastSequence)
    }
}

@Suite("Sync server against PostgreSQL", .serialized)
struct SyncServerTests {
    func withServer(development: Bool = true, _ body: (SyncServer, TemporaryPostgres.Database) async throws -> Void) async throws {
        let db = try await suiteDatabase.value
        try await withStartedServer(on: db, development: development) { try await body($0, db) }
    }

    func connect(_ server: SyncServer, user: String = "ann") async throws -> TestClient {
        TestClient(port: server.port, token: try await makeToken(user: user))
    }

    static func values(_ id: String, target: UUID) -> [String: SyncValue] {
        [
            "id": .string(id), "int": .int(.min), "optInt": .null, "bool": .bool(true), "float": .float(-0.0), "double": .double(.nan),
            "string": .string("quote \" backslash \\ {braces}, comma é 😀"), "data": .data(Data([0, 1, 0x5C, 0x22, 255])),
            "date": .date(Date(timeIntervalSince1970: 1_700_000_000.123456789)), "decimal": .decimal(Decimal(string: "-12345678901234567890.123456789") ?? 0),
            "uuid": .uuid(UUID()), "objectId": .objectId(ObjectId()), "link": .link(.uuid(target)),
            "ints": .list([.int(.max), .int(0), .int(.min)]), "optDoubles": .list([.double(.infinity), .null, .double(-.infinity), .double(-0.0), .double(.leastNonzeroMagnitude)]),
            "strings": .list([.string("a\"b"), .string("c\\d"), .string("NULL"), .string(""), .string("x,y{z}")]),
            "dataSet": .list([.data(Data([1, 2])), .data(Data())]),
            "dates": .list([.date(Date(timeIntervalSince1970: -1e9)), .date(Date(timeIntervalSince1970: .pi))]),
            "links": .list([.link(.uuid(target)), .link(.uuid(target))]),
            "scores": .map(["math": .double(.nan), "art": .null, "pe": .double(1.0 / 3.0)]),
            "address": .object(["city": .string("Oslo"), "zip": .double(-.infinity)]),
            "addresses": .list([.object(["city": .string("A"), "zip": .null]), .object(["city": .string("B"), "zip": .double(-0.0)])]),
            // Mixed values keep their types in tagged jsonb: a float 1.5, a double 1.5, an integer 1.
            "mixed": .map(["f": .float(1.5), "d": .double(1.5), "n": .list([.int(1), .null, .decimal(Decimal(string: "0.1") ?? 0), .double(.nan)])]),
            "mixeds": .list([
                .int(.min), .string("s"), .data(Data([0])), .date(Date(timeIntervalSince1970: 0.5)), .bool(true), .null, .list([]),
                // As deep as a mixed value nests (100 lists), through the outbox, jsonb and back.
                (0..<100).reduce(SyncValue.string("deep")) { inner, _ in .list([inner]) },
            ]),
        ]
    }

    @Test func everyTypeRoundTripsThroughPostgres() async throws {
        try await withServer { server, _ in
            let writer = try await connect(server)
            let hello = Model.hello()
            _ = try await writer.hello(hello)
            let target = UUID()
            let full = Self.values("full", target: target)
            var empty = Self.values("empty", target: target)
            for key in ["ints", "optDoubles", "strings", "dataSet", "dates", "links", "addresses", "mixeds"] { empty[key] = .list([]) }
            empty["mixed"] = .null
            empty["scores"] = .null
            empty["address"] = .null
            empty["link"] = .null
            empty["double"] = .double(.greatestFiniteMagnitude)
            empty["float"] = .float(.leastNonzeroMagnitude)
            empty["date"] = .date(Date(timeIntervalSince1970: Double(bitPattern: 0x41D9_5A5B_1234_5678)))
            empty["decimal"] = .decimal(.nan)  // PostgreSQL's numeric 'NaN', read back
            try writer.send(
                .upload([
                    SyncOperation(sequence: 1, className: "Target", primaryKey: .uuid(target), kind: .create, values: ["id": .uuid(target), "name": .string("t")]),
                    SyncOperation(sequence: 2, className: "Everything", primaryKey: .string("full"), kind: .create, values: full),
                    SyncOperation(sequence: 3, className: "Everything", primaryKey: .string("empty"), kind: .create, values: empty),
                ]))
            var sawAck = false
            while !sawAck {
                switch try await writer.nextReply() {
                case .ack(let through): #expect(through == 3); sawAck = true
                case .rejected(let seq, _, _, let reason): Issue.record("rejected \(seq): \(reason)")
                default: break
                }
            }
            await writer.close()
            // A second client bootstraps and reads back what the first one wrote.
            let reader = try await connect(server, user: "bob")
            let (_, parts) = try await reader.hello(Model.hello(subscriptions: ["Everything"]))
            #expect(parts.allSatisfy { $0.isReset })
            let states = parts.flatMap(\.changes)
            let byKey = Dictionary(states.map { ($0.primaryKey, $0) }, uniquingKeysWith: { a, _ in a })
            for (name, expected) in [("full", full), ("empty", empty)] {
                let values = try #require(byKey[.string(name)]?.values)
                for (key, value) in expected { #expect(values[key] == value, "\(name).\(key): \(values[key].map(String.init(describing:)) ?? "missing") ≠ \(value)") }
            }
            await reader.close()
        }
    }

    @Test func datesThroughPostgresKeepEveryBitOfSecondsSince1970() async throws {
        try await withServer { server, _ in
            let client = try await connect(server)
            let hello = Model.hello(subscriptions: ["Everything"])
            _ = try await client.hello(hello)
            var generator = SystemRandomNumberGenerator()
            var expected: [Date] = []
            while expected.count < 200 {
                let bits = Double(bitPattern: generator.next())
                if bits.isFinite { expected.append(Date(timeIntervalSince1970: bits)) }
            }
            let base = Self.values("dates", target: UUID())
            var values = base
            values["link"] = .null
            values["links"] = .list([])
            values["dates"] = .list(expected.map(SyncValue.date))
            try client.send(.upload([SyncOperation(sequence: 1, className: "Everything", primaryKey: .string("dates"), kind: .create, values: values)]))
            #expect(try await client.nextReply() == .ack(through: 1))
            let state = try await client.waitForChange(.string("dates"))
            #expect(state.values?["dates"] == .list(expected.map(SyncValue.date)))
            await client.close()
        }
    }

    /// A scalar date is read back as `(seconds since 1970 − 978307200)::float8` (the service's
    /// binary read): every bit of the `Date` a client wrote survives, NaN and ±∞ too, and a
    /// date a SQL client wrote as decimal seconds since 1970 arrives as the nearest `Date`.
    @Test func scalarDatesComeBackToTheBitFromTheBinaryRead() async throws {
        try await withServer { server, db in
            let writer = try await connect(server)
            _ = try await writer.hello(Model.hello(subscriptions: ["Everything"]))
            var generator = SystemRandomNumberGenerator()
            var dates: [Date] = [Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: .infinity),
                                 Date(timeIntervalSinceReferenceDate: -.infinity), Date(timeIntervalSinceReferenceDate: 0),
                                 Date(timeIntervalSinceReferenceDate: .leastNonzeroMagnitude)]
            while dates.count < 100 {
                let bits = Double(bitPattern: generator.next())
                if bits.isFinite { dates.append(Date(timeIntervalSinceReferenceDate: bits)) }
            }
            var operations: [SyncOperation] = []
            for (i, date) in dates.enumerated() {
                var values = Self.values("date-\(i)", target: UUID())
                values["link"] = .null
                values["links"] = .list([])
                values["date"] = .date(date)
                operations.append(SyncOperation(sequence: UInt64(i + 1), className: "Everything", primaryKey: .string("date-\(i)"), kind: .create, values: values))
            }
            try writer.send(.upload(operations))
            #expect(try await writer.nextReply() == .ack(through: UInt64(dates.count)))
            await writer.close()
            let connection = try await db.connect()
            try await connection.query(#"UPDATE "Everything" SET date = 1700000000.123 WHERE id = 'date-0'"#, logger: Logger(label: "t"))
            try await connection.close()
            // A new client's first download reads every row the way a bootstrap does.
            let reader = try await connect(server)
            let parts = try await reader.hello(Model.hello(subscriptions: ["Everything"])).download
            var read: [String: SyncValue] = [:]
            for state in parts.flatMap(\.changes) { if case .string(let id) = state.primaryKey { read[id] = state.values?["date"] } }
            // 1700000000.123 − 978307200 = 721692800.123, whose nearest Double is Swift's literal.
            #expect(read["date-0"] == .date(Date(timeIntervalSinceReferenceDate: 721_692_800.123)))
            for (i, date) in dates.enumerated().dropFirst() {
                #expect(read["date-\(i)"] == .date(date), "date \(i): \(date.timeIntervalSinceReferenceDate)")
            }
            await reader.close()
        }
    }

    /// A table changed by hand after this instance checked it (the check is kept 60 s): a write
    /// PostgreSQL refuses for that reason fails the connection rather than being rejected, and
    /// the next hello checks the schema again (here, in development mode, adding the column back),
    /// so the write then applies.
    @Test func aTableChangedByHandIsCheckedAgainNotRejected() async throws {
        // A class of its own: the suite's other tests say hello with theirs meanwhile, and a
        // development-mode hello of this class would put the column back.
        let schema = SyncClassSchema(
            name: "HandNote",
            properties: [SyncPropertySchema(name: "id", type: .string, isPrimaryKey: true), SyncPropertySchema(name: "text", type: .string)])
        func hello(_ id: UUID, lastSequence: UInt64) -> ClientMessage.Hello {
            ClientMessage.Hello(clientID: id, schema: [schema], subscriptions: ["HandNote"], checkpoint: nil, lastSequence: lastSequence)
        }
        try await withServer { server, db in
            let id = UUID()
            let first = try await connect(server)
            _ = try await first.hello(hello(id, lastSequence: 0))
            try first.send(.upload([SyncOperation(sequence: 1, className: "HandNote", primaryKey: .string("hand"), kind: .create, values: ["text": .string("a")])]))
            #expect(try await first.nextReply() == .ack(through: 1))
            await first.close()
            let connection = try await db.connect()
            try await connection.query(#"ALTER TABLE "HandNote" DROP COLUMN "text""#, logger: Logger(label: "t"))
            try await connection.close()
            let update = SyncOperation(sequence: 2, className: "HandNote", primaryKey: .string("hand"), kind: .update, values: ["text": .string("b")])
            // The hello passes on the kept check; its download, or the write, meets the change:
            // the connection fails (the write is never rejected), or, if the schema was checked
            // again first, the write applies.
            let second = try await connect(server)
            try second.send(.hello(hello(id, lastSequence: 1)))
            try second.send(.upload([update]))
            var applied = false
            while true {
                let reply = try await second.nextReply()
                if case .welcome = reply { continue }
                if case .ack(let through) = reply, through == 2 {
                    applied = true
                    break
                }
                guard case .error(let code, _) = reply else {
                    Issue.record("expected an error or the acknowledgement, not \(reply)")
                    return
                }
                #expect(code == SyncErrorCode.internalError)
                break
            }
            let third = try await connect(server)
            let bootstrap = try await third.hello(hello(id, lastSequence: applied ? 2 : 1)).download
            var state = bootstrap.flatMap(\.changes).first { $0.primaryKey == .string("hand") }
            if !applied {
                try third.send(.upload([update]))
                #expect(try await third.nextReply() == .ack(through: 2))
                state = try await third.waitForChange(.string("hand"))
            }
            #expect(state?.values?["text"] == .string("b"))
            await third.close()
        }
    }

    @Test func missingForgedOrExpiredTokenGets401BeforeAnyData() async throws {
        try await withServer { server, _ in
            let forged = try await makeToken(user: "ann", secret: Array("another secret entirely, 32 bytes or more".utf8))
            let expired = try await makeToken(user: "ann", expiresIn: -60)
            let valid = try await makeToken(user: "ann")
            for header in [nil, "Bearer", "Bearer nonsense", "Bearer \(forged)", "Bearer \(expired)", "Basic YW5uOnB3"] as [String?] {
                let (status, text) = try await rawUpgrade(port: server.port, authorization: header)
                #expect(status == 401, "\(header ?? "no header"): \(text)")
                #expect(!text.contains("welcome") && !text.contains("download"))
            }
            let (status, _) = try await rawUpgrade(port: server.port, authorization: "Bearer \(valid)")
            #expect(status == 101)
            // And over a real WebSocket client: refused, nothing received.
            let client = TestClient(port: server.port, token: forged)
            _ = try await client.closed()
            #expect(await client.inbox.messages.isEmpty)
        }
    }

    /// A server with `authentication` and `audience`, stopped after `body`.
    func withServer(
        authentication: SyncServer.Authentication, audience: String? = nil, _ body: (SyncServer) async throws -> Void
    ) async throws {
        try await withStartedServer(on: try await suiteDatabase.value, authentication: authentication, audience: audience, body)
    }

    /// The status of an upgrade with `token` (101 accepted, 401 refused).
    func status(_ server: SyncServer, _ token: String) async throws -> Int {
        try await rawUpgrade(port: server.port, authorization: "Bearer \(token)").0
    }

    // RS256: tokens of the provider's private key pass; another key's, an HS256 token signed
    // with the public key as its secret (algorithm confusion), and an ES256 one do not.
    @Test func rs256TokensOfTheProvidersKeyOnly() async throws {
        let us = ["objdb-sync"]
        try await withServer(authentication: .rs256(publicKeyPEM: TestRSAKeys.publicKey), audience: "objdb-sync") { (server: SyncServer) async throws in
            let provider = JWTKeyCollection()
            await provider.add(rsa: try Insecure.RSA.PrivateKey(pem: TestRSAKeys.privateKey), digestAlgorithm: .sha256)
            #expect(try await status(server, try await signedToken(user: "ann", keys: provider, audience: us)) == 101)
            // The provider's token for another service.
            #expect(try await status(server, try await signedToken(user: "ann", keys: provider, audience: ["billing"])) == 401)
            let attacker = JWTKeyCollection()
            await attacker.add(rsa: try Insecure.RSA.PrivateKey(pem: TestRSAKeys.otherPrivateKey), digestAlgorithm: .sha256)
            #expect(try await status(server, try await signedToken(user: "ann", keys: attacker, audience: us)) == 401)
            let confused = JWTKeyCollection()
            await confused.add(hmac: HMACKey(from: Array(TestRSAKeys.publicKey.utf8)), digestAlgorithm: .sha256)
            #expect(try await status(server, try await signedToken(user: "ann", keys: confused, audience: us)) == 401)
            let ecdsa = JWTKeyCollection()
            await ecdsa.add(ecdsa: ES256PrivateKey())
            #expect(try await status(server, try await signedToken(user: "ann", keys: ecdsa, audience: us)) == 401)
            #expect(try await status(server, unsignedToken(user: "ann", audience: us)) == 401)
            // A working client over the RS256 token.
            let client = TestClient(port: server.port, token: try await signedToken(user: "ann", keys: provider, audience: us))
            _ = try await client.hello(Model.hello(subscriptions: ["Note"]))
            await client.close()
        }
    }

    // ES256: the provider's P-256 key passes; another P-256 key and an HS256 token do not.
    @Test func es256TokensOfTheProvidersKeyOnly() async throws {
        let key = ES256PrivateKey()
        let us = ["objdb-sync"]
        try await withServer(authentication: .es256(publicKeyPEM: key.publicKey.pemRepresentation), audience: "objdb-sync") {
            (server: SyncServer) async throws in
            let provider = JWTKeyCollection()
            await provider.add(ecdsa: key)
            #expect(try await status(server, try await signedToken(user: "ann", keys: provider, audience: us)) == 101)
            let attacker = JWTKeyCollection()
            await attacker.add(ecdsa: ES256PrivateKey())
            #expect(try await status(server, try await signedToken(user: "ann", keys: attacker, audience: us)) == 401)
            #expect(try await status(server, try await makeToken(user: "ann")) == 401)
        }
    }

    // With an audience required: a token without one, or for another, is refused.
    @Test func aTokenForAnotherAudienceIsRefused() async throws {
        try await withServer(authentication: .hs256(secret: testSecret), audience: "objdb-sync") { (server: SyncServer) async throws in
            let keys = JWTKeyCollection()
            await keys.add(hmac: HMACKey(from: testSecret), digestAlgorithm: .sha256)
            #expect(try await status(server, try await signedToken(user: "ann", keys: keys, audience: ["objdb-sync"])) == 101)
            #expect(try await status(server, try await signedToken(user: "ann", keys: keys, audience: ["other", "objdb-sync"])) == 101)
            #expect(try await status(server, try await signedToken(user: "ann", keys: keys, audience: ["other"])) == 401)
            #expect(try await status(server, try await signedToken(user: "ann", keys: keys)) == 401)
        }
        // Without an audience: a token that names one is for another service.
        try await withServer(authentication: .hs256(secret: testSecret)) { (server: SyncServer) async throws in
            let keys = JWTKeyCollection()
            await keys.add(hmac: HMACKey(from: testSecret), digestAlgorithm: .sha256)
            #expect(try await status(server, try await signedToken(user: "ann", keys: keys)) == 101)
            #expect(try await status(server, try await signedToken(user: "ann", keys: keys, audience: ["billing"])) == 401)
            // Not before an hour from now; and a subject of spaces.
            let early = try await keys.sign(EarlyClaims(sub: .init(value: "ann"), exp: .init(value: Date().addingTimeInterval(7200)), nbf: .init(value: Date().addingTimeInterval(3600))))
            #expect(try await status(server, early) == 401)
            #expect(try await status(server, try await signedToken(user: "   ", keys: keys)) == 401)
        }
    }

    /// Claims with a not-before time.
    struct EarlyClaims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var nbf: NotBeforeClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// A token with `alg: none` and no signature.
    func unsignedToken(user: String, audience: [String]) -> String {
        func base64URL(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let audiences = audience.map { "\"\($0)\"" }.joined(separator: ",")
        let payload = #"{"sub":"\#(user)","exp":\#(Int(Date().timeIntervalSince1970) + 3600),"aud":[\#(audiences)]}"#
        return base64URL(#"{"alg":"none","typ":"JWT"}"#) + "." + base64URL(payload) + "."
    }

    // Keys that are not keys of their algorithm are refused when the server is made.
    @Test func malformedPublicKeysAreRefusedAtInit() async throws {
        let db = try await suiteDatabase.value
        for authentication in [SyncServer.Authentication.rs256(publicKeyPEM: "not a key"), .es256(publicKeyPEM: TestRSAKeys.publicKey)] {
            await #expect(throws: ObjDBError.self) { _ = try await makeServer(db, authentication: authentication, audience: "objdb-sync") }
        }
        // RS256 without an audience, and an empty audience.
        await #expect(throws: ObjDBError.self) { _ = try await makeServer(db, authentication: .rs256(publicKeyPEM: TestRSAKeys.publicKey)) }
        await #expect(throws: ObjDBError.self) { _ = try await makeServer(db, audience: " ") }
    }

    @Test func connectionClosesAtTheTokensExpiry() async throws {
        try await withServer { server, _ in
            let client = TestClient(port: server.port, token: try await makeToken(user: "ann", expiresIn: 2))
            _ = try await client.hello(Model.hello(subscriptions: ["Note"]))
            let code = try await client.closed(timeout: Duration.seconds(120))
            #expect(code == .unknown(SyncServer.CloseCode.tokenExpired))
        }
    }

    // A client subscribed to nothing (it only uploads) still gets a checkpoint and the last
    // sequence the service applied, read in one statement.
    @Test func aClientSubscribedToNothingGetsItsCheckpointAndSequence() async throws {
        try await withServer { server, _ in
            let id = UUID()
            let a = try await connect(server)
            let first = try await a.hello(Model.hello(id, subscriptions: []))
            #expect(first.acknowledged == 0)
            #expect(first.download.count == 1 && first.download[0].batches.isEmpty && first.download[0].isReset)
            #expect(first.download[0].includesSequence == 0)
            let checkpoint = try #require(first.download[0].checkpoint)
            try a.send(.upload([SyncOperation(sequence: 1, className: "Note", primaryKey: .string("only-up"), kind: .create, values: ["text": .string("u"), "tags": .list([])])]))
            #expect(try await a.nextReply() == .ack(through: 1))
            await a.close()
            let b = try await connect(server)
            let second = try await b.hello(Model.hello(id, checkpoint: checkpoint, lastSequence: 1, subscriptions: []))
            #expect(second.acknowledged == 1)
            #expect(second.download.count == 1 && !second.download[0].isReset && second.download[0].batches.isEmpty)
            #expect(second.download[0].includesSequence == 1)
            #expect(second.download[0].checkpoint != nil && second.download[0].checkpoint != checkpoint)
            await b.close()
        }
    }

    @Test func anUploadSentTwiceAppliesOnceEvenThroughAnotherServer() async throws {
        try await withServer { server, db in
            let second = try await makeServer(db)
            defer { Task { try? await second.stop() } }
            let id = UUID()
            let ops = [
                SyncOperation(sequence: 1, className: "Note", primaryKey: .string("twice"), kind: .create, values: ["text": .string("t"), "tags": .list([])]),
                SyncOperation(sequence: 2, className: "Note", primaryKey: .string("twice"), kind: .update, listAppends: ["tags": [.string("x")]]),
            ]
            let a = try await connect(server)
            #expect(try await a.hello(Model.hello(id, subscriptions: ["Note"])).acknowledged == 0)
            try a.send(.upload(ops))
            #expect(try await a.nextReply() == .ack(through: 2))
            try a.send(.upload(ops))
            #expect(try await a.nextReply() == .ack(through: 2))
            await a.close()
            let b = try await connect(second)
            #expect(try await b.hello(Model.hello(id, lastSequence: 2, subscriptions: ["Note"])).acknowledged == 2)
            try b.send(.upload(ops))
            #expect(try await b.nextReply() == .ack(through: 2))
            await b.close()
            let connection = try await db.connect()
            let rows = try await connection.query(#"SELECT array_to_string(tags, ',') FROM "Note" WHERE id = 'twice'"#, logger: Logger(label: "t"))
            var tags: [String] = []
            for try await t in rows.decode(String.self) { tags.append(t) }
            #expect(tags == ["x"])
            try await connection.close()
            // A copied or restored file (behind the server's record) is told to reset.
            let c = try await connect(server)
            try c.send(.hello(Model.hello(id, lastSequence: 1, subscriptions: ["Note"])))
            guard case .reset = try await c.nextReply() else { Issue.record("expected reset"); return }
            // Another user cannot use the client id.
            let d = try await connect(server, user: "mallory")
            try d.send(.hello(Model.hello(id, lastSequence: 2, subscriptions: ["Note"])))
            #expect(try await d.nextReply() == .error(code: SyncErrorCode.clientIDInUse, message: "Client id \(id) belongs to another user"))
            try await second.stop()
        }
    }

    @Test func rejectedOperationsAreAcknowledgedAndOthersApplied() async throws {
        try await withServer { server, _ in
            let client = try await connect(server)
            _ = try await client.hello(Model.hello(subscriptions: ["Note"]))
            try client.send(
                .upload([
                    SyncOperation(sequence: 1, className: "Nope", primaryKey: .string("a"), kind: .create),
                    SyncOperation(sequence: 2, className: "Note", primaryKey: .string("r1"), kind: .create, values: ["text": .int(5)]),
                    SyncOperation(sequence: 3, className: "Note", primaryKey: .string("r1"), kind: .create, values: ["nope": .int(5)]),
                    SyncOperation(sequence: 4, className: "Note", primaryKey: .int(1), kind: .create),
                    SyncOperation(sequence: 5, className: "Note", primaryKey: .string("nul"), kind: .create, values: ["text": .string("a\u{0}b")]),
                    SyncOperation(sequence: 6, className: "Note", primaryKey: .string("r2"), kind: .create, values: ["text": .string("ok"), "tags": .list([])]),
                    SyncOperation(sequence: 7, className: "Note", primaryKey: .string("gone"), kind: .update, values: ["text": .string("dropped")]),
                ]))
            var rejected: [UInt64] = []
            var states: [SyncObjectState] = []
            var acknowledgedAfterStates = false
            while true {
                let m = try await client.next()
                if case .rejected(let seq, _, _, _) = m { rejected.append(seq) }
                if case .download(let part) = m { states += part.changes }
                if case .ack(let through) = m {
                    #expect(through == 7)
                    acknowledgedAfterStates = states.contains { $0.primaryKey == .string("nul") }
                    break
                }
            }
            #expect(rejected == [1, 2, 3, 4, 5])
            // The rejected objects follow as the service holds them (here: none), before the
            // acknowledgement, so that the client's file returns to the service's state.
            #expect(acknowledgedAfterStates)
            #expect(states.first { $0.primaryKey == .string("nul") }?.values == nil)
            let state = try await client.waitForChange(.string("r2"))
            #expect(state.values?["text"] == .string("ok"))
            await client.close()
        }
    }

    @Test func aSQLWriteReachesAConnectedClient() async throws {
        try await withServer { server, db in
            let client = try await connect(server)
            _ = try await client.hello(Model.hello(subscriptions: ["Note"]))
            let connection = try await db.connect()
            try await connection.query(#"INSERT INTO "Note" (id, text, tags) VALUES ('from-sql', 'hello', '{a,b}')"#, logger: Logger(label: "t"))
            let state = try await client.waitForChange(.string("from-sql"))
            #expect(state.values?["text"] == .string("hello"))
            #expect(state.values?["tags"] == .list([.string("a"), .string("b")]))
            // The trigger bumps the row's version and keeps the old row in the feed.
            try await connection.query(#"UPDATE "Note" SET text = 'again' WHERE id = 'from-sql'"#, logger: Logger(label: "t"))
            #expect(try await client.waitForChange(.string("from-sql")).values?["text"] == .string("again"))
            var version: Int64 = 0
            for try await v in try await connection.query(#"SELECT _objdb_version FROM "Note" WHERE id = 'from-sql'"#, logger: Logger(label: "t"))
                .decode(Int64.self)
            {
                version = v
            }
            #expect(version == 2)
            var oldText: String?
            for try await t in try await connection.query(
                "SELECT old->>'text' FROM objdb_changes WHERE class = 'Note' AND pk = 'from-sql' AND op = 'U'", logger: Logger(label: "t")
            ).decode(String?.self) {
                oldText = t
            }
            #expect(oldText == "hello")
            try await connection.query(#"DELETE FROM "Note" WHERE id = 'from-sql'"#, logger: Logger(label: "t"))
            let deleted = try await client.waitForChange(.string("from-sql"))
            #expect(deleted.values == nil)
            try await connection.close()
            await client.close()
        }
    }

    @Test func transactionsCommittingInReverseOrderAreBothDelivered() async throws {
        try await withServer { server, db in
            let client = try await connect(server)
            _ = try await client.hello(Model.hello(subscriptions: ["Note"]))
            let logger = Logger(label: "t")
            let first = try await db.connect()
            let second = try await db.connect()
            try await first.query("BEGIN", logger: logger)
            try await first.query(#"INSERT INTO "Note" (id, text, tags) VALUES ('early', 'inserted first', '{}')"#, logger: logger)
            try await second.query("BEGIN", logger: logger)
            try await second.query(#"INSERT INTO "Note" (id, text, tags) VALUES ('late', 'inserted second', '{}')"#, logger: logger)
            try await second.query("COMMIT", logger: logger)
            _ = try await client.waitForChange(.string("late"))
            // The client's checkpoint now lies after 'late' and while 'early' is in progress.
            try await first.query("COMMIT", logger: logger)
            let early = try await client.waitForChange(.string("early"))
            #expect(early.values?["text"] == .string("inserted first"))
            try await first.close()
            try await second.close()
            await client.close()
        }
    }

    @Test func malformedMessagesGetAnErrorAndACloseWhileOthersAreServed() async throws {
        try await withServer { server, _ in
            let healthy = try await connect(server)
            _ = try await healthy.hello(Model.hello(subscriptions: ["Note"]))
            var hello = try SyncMessageCoding.encode(.hello(Model.hello()))
            hello = hello.replacingOccurrences(of: #""protocol":2"#, with: #""protocol":99"#)
            let upload = try SyncMessageCoding.frame(.upload([]))
            let greet = try SyncMessageCoding.frame(.hello(Model.hello(subscriptions: ["Note"])))
            var oldUpload = UploadFrame.encode([])
            oldUpload[3] = 1
            let download = try SyncMessageCoding.frame(.download(.init(isReset: false, batches: [], isFinal: true, checkpoint: "c", includesSequence: 0)))
            let cases: [(setup: [SyncFrame], bad: SyncFrame, code: String)] = [
                ([], .text("this is not json"), SyncErrorCode.malformedMessage),
                ([], .text(#"{"type":"shout"}"#), SyncErrorCode.unknownMessageType),
                ([], upload, SyncErrorCode.protocolViolation),
                ([], .text(hello), SyncErrorCode.unsupportedProtocolVersion),
                ([], .text(#"{"type":"hello","pad":""# + String(repeating: "x", count: SyncLimits.maxMessageBytes) + #""}"#), SyncErrorCode.messageTooLarge),
                ([greet], .binary([0x4F, 0x55, 0x4C, 0x02, 0x05, 0x01]), SyncErrorCode.malformedMessage),
                ([greet], .binary(Array(repeating: 0xFF, count: 64)), SyncErrorCode.malformedMessage),
                ([greet], .binary(oldUpload), SyncErrorCode.unsupportedProtocolVersion),
                ([greet], download, SyncErrorCode.malformedMessage),
                ([greet], .text(#"{"type":"upload","operations":[]}"#), SyncErrorCode.malformedMessage),
                (
                    [greet],
                    try SyncMessageCoding.frame(
                        .upload([
                            SyncOperation(sequence: 1, className: "Note", primaryKey: .string("a"), kind: .delete),
                            SyncOperation(sequence: 3, className: "Note", primaryKey: .string("a"), kind: .delete),
                        ])), SyncErrorCode.protocolViolation
                ),
                (
                    [greet],
                    try SyncMessageCoding.frame(
                        .upload(
                            (1...(SyncLimits.maxOperationsPerUpload + 1)).map {
                                SyncOperation(sequence: UInt64($0), className: "Note", primaryKey: .string("many"), kind: .delete)
                            })),
                    SyncErrorCode.protocolViolation
                ),
                (
                    [greet],
                    try SyncMessageCoding.frame(.upload([SyncOperation(sequence: 0, className: "Note", primaryKey: .string("a"), kind: .delete)])),
                    SyncErrorCode.protocolViolation
                ),
                ([greet], greet, SyncErrorCode.protocolViolation),
            ]
            for c in cases {
                let bad = try await connect(server)
                for frame in c.setup { bad.sendRaw(frame) }
                bad.sendRaw(c.bad)
                var message = try await bad.next()
                while case .welcome = message { message = try await bad.next() }
                while case .download = message { message = try await bad.next() }
                guard case .error(let code, _) = message else { Issue.record("expected error, got \(message)"); continue }
                #expect(code == c.code)
                #expect(try await bad.closed() == .unknown(SyncServer.CloseCode.error))
            }
            // The healthy client is still served.
            try healthy.send(.upload([SyncOperation(sequence: 1, className: "Note", primaryKey: .string("still"), kind: .create, values: ["tags": .list([])])]))
            #expect(try await healthy.nextReply() == .ack(through: 1))
            _ = try await healthy.waitForChange(.string("still"))
            await healthy.close()
        }
    }

    @Test func twoServersServeClientsOfTheSameData() async throws {
        try await withServer { server, db in
            let second = try await makeServer(db)
            #expect(second.port != server.port)
            let a = try await connect(server)
            let b = try await connect(second, user: "bob")
            _ = try await a.hello(Model.hello(subscriptions: ["Note"]))
            _ = try await b.hello(Model.hello(subscriptions: ["Note"]))
            try a.send(.upload([SyncOperation(sequence: 1, className: "Note", primaryKey: .string("across"), kind: .create, values: ["text": .string("from a"), "tags": .list([])])]))
            #expect(try await a.nextReply() == .ack(through: 1))
            let seen = try await b.waitForChange(.string("across"))
            #expect(seen.values?["text"] == .string("from a"))
            await a.close()
            await b.close()
            try await second.stop()
        }
    }

    // Review finding: a hello could map the service's own tables (or any table of the
    // database) as a class, then read and rewrite them.
    @Test func reservedAndUnregisteredTablesAreRefused() async throws {
        try await withServer(development: true) { server, db in
            let clients = SyncClassSchema(
                name: "objdb_clients",
                properties: [
                    SyncPropertySchema(name: "client_id", type: .uuid, isPrimaryKey: true),
                    SyncPropertySchema(name: "user_id", type: .string), SyncPropertySchema(name: "last_sequence", type: .int),
                ])
            let attacker = try await connect(server)
            try attacker.send(.hello(.init(clientID: UUID(), schema: [clients], subscriptions: ["objdb_clients"], checkpoint: nil, lastSequence: 0)))
            guard case .error(let code, let message) = try await attacker.next() else { Issue.record("expected error"); return }
            #expect(code == SyncErrorCode.schemaMismatch && message.contains("reserved"), "\(message)")
            let long = SyncClassSchema(name: String(repeating: "L", count: 64), properties: [SyncPropertySchema(name: "id", type: .string, isPrimaryKey: true)])
            let second = try await connect(server)
            try second.send(.hello(.init(clientID: UUID(), schema: [long], subscriptions: [], checkpoint: nil, lastSequence: 0)))
            guard case .error(_, let m2) = try await second.next() else { Issue.record("expected error"); return }
            #expect(m2.contains("63 bytes"), "\(m2)")
            // A table of the database the service never registered is not adopted outside
            // development mode, even when its columns fit.
            try await db.withConnection { c in
                _ = try await c.query(#"CREATE TABLE "Accounts" (id text PRIMARY KEY, secret text)"#, logger: Logger(label: "t"))
            }
            let strict = try await makeServer(db, development: false)
            let third = try await connect(strict)
            let accounts = SyncClassSchema(
                name: "Accounts", properties: [SyncPropertySchema(name: "id", type: .string, isPrimaryKey: true), SyncPropertySchema(name: "secret", type: .string)])
            try third.send(.hello(.init(clientID: UUID(), schema: [accounts], subscriptions: ["Accounts"], checkpoint: nil, lastSequence: 0)))
            guard case .error(_, let m3) = try await third.next() else { Issue.record("expected error"); return }
            #expect(m3.contains("not registered"), "\(m3)")
            try await strict.stop()
        }
    }

    @Test func aMissingTableIsAnErrorOutsideDevelopmentMode() async throws {
        try await withServer(development: false) { server, _ in
            let client = try await connect(server)
            let hello = ClientMessage.Hello(
                clientID: UUID(),
                schema: [SyncClassSchema(name: "NotCreated", properties: [SyncPropertySchema(name: "id", type: .string, isPrimaryKey: true)])],
                subscriptions: ["NotCreated"], checkpoint: nil, lastSequence: 0)
            try client.send(.hello(hello))
            guard case .error(let code, let message) = try await client.next() else { Issue.record("expected error"); return }
            #expect(code == SyncErrorCode.schemaMismatch)
            #expect(message.contains("NotCreated"))
            let intKey = try await connect(server)
            try intKey.send(
                .hello(
                    .init(
                        clientID: UUID(), schema: [SyncClassSchema(name: "IntKeyed", properties: [SyncPropertySchema(name: "id", type: .int, isPrimaryKey: true)])],
                        subscriptions: [], checkpoint: nil, lastSequence: 0)))
            guard case .error(_, let m2) = try await intKey.next() else { Issue.record("expected error"); return }
            #expect(m2.contains("IntKeyed"))
        }
    }
}
