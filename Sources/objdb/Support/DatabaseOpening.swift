import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// The database file every command but `demo` takes first, and the file holding its key when
/// it is encrypted.
struct DatabaseArgument: ParsableArguments {
    @Argument(help: "The database file.", completion: .file())
    var file: String

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "A file holding the encryption key of an encrypted database: 64 bytes, or 128 hexadecimal digits.",
            discussion: "The key is never taken on the command line, where other users and the shell's history could read it."),
        completion: .file())
    var keyFile: String?

    /// The key read from `--key-file`; `nil` without it.
    func encryptionKey() throws -> Data? {
        guard let keyFile else { return nil }
        guard let bytes = FileManager.default.contents(atPath: keyFile) else { throw CommandFailure("\(keyFile): cannot read the key file") }
        if bytes.count == 64 { return bytes }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let digits = Array(text.utf8)
        guard digits.count == 128, let key = Self.hexadecimal(digits) else {
            throw CommandFailure("\(keyFile): the key file must hold the 64-byte key, as bytes or as 128 hexadecimal digits")
        }
        return key
    }

    private static func hexadecimal(_ digits: [UInt8]) -> Data? {
        var key = Data(capacity: digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i...(i + 1)], as: UTF8.self), radix: 16) else { return nil }
            key.append(byte)
        }
        return key
    }
}

/// A failure a command reports as one line on standard error, then exits with status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ParsableCommand {
    /// Runs `body`, turning an ``ObjDBError`` or a ``CommandFailure`` into one line on standard
    /// error (`objdb: …`) and exit status 1.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ObjDBError {
            Console.error(error.description)
            throw ExitCode.failure
        } catch let failure as CommandFailure {
            Console.error(failure.description)
            throw ExitCode.failure
        }
    }
}

/// Opening files for the commands: without the application's classes, at the file's own schema
/// version, and never creating a file.
enum DatabaseOpening {
    /// The configuration for `database`, with its key.
    static func configuration(_ database: DatabaseArgument, readOnly: Bool) throws -> Configuration {
        var configuration = try configuration(database.file, readOnly: readOnly)
        configuration.encryptionKey = try database.encryptionKey()
        return configuration
    }

    /// Opens `database` for reading: the file is not changed (LMDB's lock file beside it may be).
    static func readOnly(_ database: DatabaseArgument) throws -> Database {
        try Database(configuration: configuration(database, readOnly: true))
    }

    /// Opens `database` for writing (commands that change it, behind `--write`).
    static func writable(_ database: DatabaseArgument) throws -> Database {
        try Database(configuration: configuration(database, readOnly: false))
    }

    /// The configuration for `file`.
    static func configuration(_ file: String, readOnly: Bool) throws -> Configuration {
        let url = URL(fileURLWithPath: file)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CommandFailure("\(file): no such file")
        }
        guard !isDirectory.boolValue else { throw CommandFailure("\(file): is a directory, not a database file") }
        var configuration = Configuration(fileURL: url, readOnly: readOnly)
        configuration.opensAnySchemaVersion = true
        return configuration
    }

    /// Opens `file` for reading: the file is not changed (LMDB's lock file beside it may be).
    static func readOnly(_ file: String) throws -> Database {
        try Database(configuration: configuration(file, readOnly: true))
    }


    /// The object of `schema`'s class whose primary key is `text` (parsed as the key's type), or
    /// a failure naming the class and key.
    static func object(_ db: Database, _ schema: ObjectSchema, primaryKey text: String, file: String) throws -> DynamicObject {
        guard let property = schema.primaryKeyProperty else {
            throw CommandFailure("\(file): class '\(schema.className)' has no primary key; use objdb query \(file) \(schema.className) \"<predicate>\"")
        }
        let key = try ObjectReader.argument(text, property, className: schema.className)
        guard let object = try db.dynamicObjects(schema.className).filter("%K == %@", property.name, key as Any).first else {
            throw CommandFailure("\(file): no \(schema.className) with \(property.name) \(text)")
        }
        return object
    }

    /// The schema of class `name` in `db`, or a failure listing the classes there are.
    static func objectSchema(_ name: String, in db: Database, file: String) throws -> ObjectSchema {
        try objectSchema(name, in: db.schema, file: file)
    }

    /// The schema of class `name` in `schema` (that of `file`), or a failure listing the classes
    /// there are; with `hint`, it says how `objdb import --schema` adds the class.
    static func objectSchema(_ name: String, in schema: Schema, file: String, hint: Bool = false) throws -> ObjectSchema {
        guard let found = schema[name] else {
            let known = schema.objectSchema.map(\.className).joined(separator: ", ")
            let how = hint ? "; to add it, name the database the objects came from, or a dump of it, with --schema" : ""
            throw CommandFailure("\(file): no class '\(name)' (classes: \(known.isEmpty ? "none" : known))\(how)")
        }
        return found
    }
}

/// Writing to the terminal.
enum Console {
    /// Writes `line` and a newline to standard output at once (unbuffered, so it keeps its
    /// place among the lines ``OutputWriter``s write).
    static func line(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `line` to standard error, prefixed `objdb: `.
    static func error(_ line: String) {
        FileHandle.standardError.write(Data("objdb: \(line)\n".utf8))
    }

    /// Whether standard error is a terminal (progress bars go there only then).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}
