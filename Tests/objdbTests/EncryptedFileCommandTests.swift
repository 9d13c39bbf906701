import Foundation
import ObjDB
import ObjDBTestModels
import Testing

/// `objdb --key-file` on an encrypted file: the key is read from a file, never the command line.
@Suite(.serialized)
struct EncryptedFileCommandTests {
    let scratch = Scratch()
    static let key = Data((0..<64).map { UInt8(($0 * 7 + 3) % 256) })

    /// An encrypted file with two persons, and key files holding its key as bytes and as hex.
    func fixture() throws -> (file: String, binaryKey: String, hexKey: String) {
        let file = scratch.file("enc.objdb")
        var config = Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [Person.self])
        config.encryptionKey = Self.key
        do {
            let db = try Database(configuration: config)
            try db.write {
                let ann = Person(); ann.id = 1; ann.name = "Ann-Secret"
                let bob = Person(); bob.id = 2; bob.name = "Bob-Secret"
                try db.add([ann, bob])
            }
        }
        let binaryKey = scratch.file("key.bin")
        try Self.key.write(to: URL(fileURLWithPath: binaryKey))
        let hexKey = scratch.file("key.hex")
        try Data((Self.key.map { String(format: "%02x", $0) }.joined() + "\n").utf8).write(to: URL(fileURLWithPath: hexKey))
        return (file, binaryKey, hexKey)
    }

    @Test func commandsReadAnEncryptedFileWithTheKeyFile() throws {
        let (file, binaryKey, hexKey) = try fixture()
        for keyFile in [binaryKey, hexKey] {
            let get = try CommandRunner.run(["get", file, "Person", "2", "--key-file", keyFile])
            #expect(get.status == 0, "\(get.error)")
            #expect(get.output.contains("Bob-Secret"))
            let query = try CommandRunner.run(["query", file, "Person", "name == 'Ann-Secret'", "--key-file", keyFile])
            #expect(query.status == 0, "\(query.error)")
            #expect(query.output.contains("Ann-Secret"))
            let check = try CommandRunner.run(["check", file, "--key-file", keyFile])
            #expect(check.status == 0, "\(check.output) \(check.error)")
        }
        let info = try CommandRunner.run(["info", file, "--key-file", binaryKey])
        #expect(info.status == 0, "\(info.error)")
        #expect(info.output.contains("Person"))
    }

    @Test func withoutOrWithAWrongKeyFileTheCommandSaysWhy() throws {
        let (file, _, _) = try fixture()
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let without = try CommandRunner.run(["get", file, "Person", "2"])
        #expect(without.status == 1)
        #expect(without.error.contains("The file is encrypted; set Configuration.encryptionKey"), "\(without.error)")
        let wrongKey = scratch.file("wrong.bin")
        try Data(count: 64).write(to: URL(fileURLWithPath: wrongKey))
        let wrong = try CommandRunner.run(["get", file, "Person", "2", "--key-file", wrongKey])
        #expect(wrong.status == 1)
        #expect(wrong.error.contains("encrypted with another key"), "\(wrong.error)")
        let short = scratch.file("short.bin")
        try Data(count: 20).write(to: URL(fileURLWithPath: short))
        let bad = try CommandRunner.run(["get", file, "Person", "2", "--key-file", short])
        #expect(bad.status == 1)
        #expect(bad.error.contains("the key file must hold the 64-byte key"), "\(bad.error)")
        let check = try CommandRunner.run(["check", file])
        #expect(check.status == 1)
        #expect(check.output.contains("The file is encrypted"), "\(check.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }
}
