import Foundation
import ObjDB

/// A dump read whole and checked before anything is written: its header, and its objects in
/// the order `load` creates them (by class, then key, so each class's keys rise).
struct DumpFile {
    /// One object of a dump.
    struct Record {
        /// The line it is on.
        let line: Int
        /// Its class.
        let className: String
        /// Its key, kept by the load.
        let key: UInt64
        /// Its property values, as `createDynamicObject` takes them.
        let values: [String: Any?]
    }

    /// The first line.
    let header: DumpHeader
    /// The objects, by class then key.
    let records: [Record]

    /// Reads the dump in `data`; a failure names `file` and the line.
    static func read(_ data: Data, file: String) throws -> DumpFile {
        var header: DumpHeader?
        var reader: ObjectReader?
        var records: [Record] = []
        var firstLine: [String: [UInt64: Int]] = [:]
        var line = 0
        // Lines split as bytes, as import splits them.
        for text in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            line += 1
            guard text.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            do {
                guard let reader else {
                    let parsed = try DumpHeader.parse(Array(text))
                    header = parsed
                    reader = ObjectReader(schema: Schema(objectSchema: parsed.classes.map(\.schema)), links: .keys, dates: parsed.dates)
                    continue
                }
                let record = try Self.record(text, line: line, reader)
                if let other = firstLine[record.className]?[record.key] {
                    throw CommandFailure("\(record.className) key \(record.key) is on line \(other) already")
                }
                firstLine[record.className, default: [:]][record.key] = line
                records.append(record)
            } catch let failure as CommandFailure {
                throw CommandFailure("\(file):\(line): \(failure.description)")
            } catch let error as ObjDBError {
                throw CommandFailure("\(file):\(line): \(error.message)")
            }
        }
        guard let header, let reader else { throw CommandFailure("\(file): empty, not an objdb dump") }
        for reference in reader.references where firstLine[reference.className]?[reference.key] == nil {
            throw CommandFailure(
                "\(file):\(reference.line): \(reference.place) links to the \(reference.className) with key \(reference.key), which the dump does not have")
        }
        records.sort { ($0.className, $0.key) < ($1.className, $1.key) }
        return DumpFile(header: header, records: records)
    }

    /// An object line; failures are the message to print after `file:line:`.
    private static func record(_ bytes: some Collection<UInt8>, line: Int, _ reader: ObjectReader) throws -> Record {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw CommandFailure("not valid JSON: \(error.reason) at column \(error.column)")
        }
        guard case .object(let fields) = json else { throw CommandFailure("expected an object, found \(json.kind)") }
        guard case .string(let className)? = fields["$class"] else { throw CommandFailure("the object has no \"$class\"") }
        guard let objectSchema = reader.schema[className] else { throw CommandFailure("class '\(className)' is not in the dump's header") }
        guard !objectSchema.isEmbedded else {
            throw CommandFailure("'\(className)' is an embedded class: its objects come inline, inside the objects that own them")
        }
        guard case .number(let text)? = fields["$key"], let key = UInt64(text), key > 0, key < .max else {
            throw CommandFailure("the \(className) has no \"$key\" from 1 to 2^64 - 2")
        }
        return Record(line: line, className: className, key: key, values: try reader.object(fields, objectSchema, line: line))
    }
}
