import Foundation
@_spi(Inspection) import ObjDB

/// The schema `objdb import --schema` takes the classes it creates from: a database file, or a
/// dump written by `objdb dump` (its first line).
struct SchemaSource {
    /// The classes, in the order they are created.
    let classes: [ObjectSchema]
    /// The source's schema version, which a file the import creates gets.
    let schemaVersion: UInt64

    /// Reads the schema of `file`: a dump if its first line is a dump header, else a database.
    static func read(_ file: String) throws -> SchemaSource {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw CommandFailure("\(file): no such file (--schema names a database or a dump)")
        }
        if let firstLine = try Self.firstLine(of: file), firstLine.starts(with: Array("{\"objdb-dump\"".utf8)) {
            do {
                let header = try DumpHeader.parse(firstLine)
                return SchemaSource(classes: header.classes.map(\.schema), schemaVersion: header.schemaVersion)
            } catch let failure as CommandFailure {
                throw CommandFailure("\(file):1: \(failure.description)")
            }
        }
        let db = try DatabaseOpening.readOnly(file)
        return SchemaSource(classes: db.schema.objectSchema, schemaVersion: db.storedSchemaVersion)
    }

    /// The bytes of the first line of `file` (without the line break), read up to the first
    /// line break; `nil` for an empty file.
    private static func firstLine(of file: String) throws -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: file) else { throw CommandFailure("\(file): cannot be read") }
        defer { try? handle.close() }  // try?: closing a file only read changes nothing
        var line: [UInt8] = []
        while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
            if let end = chunk.firstIndex(of: 0x0A) {
                line.append(contentsOf: chunk[chunk.startIndex..<end])
                return line
            }
            line.append(contentsOf: chunk)
        }
        return line.isEmpty ? nil : line
    }
}
