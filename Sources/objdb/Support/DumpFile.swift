import Foundation
import ObjDB

/// A dump read whole and checked before anything is written: its header, and its objects in
/// the order `load` creates them (by class, then key, so each class's keys rise).
struct DumpFile {
    let header: DumpHeader
    let records: [DumpValues.Record]

    /// Reads the dump in `data`; a failure names `file` and the line.
    static func read(_ data: Data, file: String) throws -> DumpFile {
        var header: DumpHeader?
        var values: DumpValues?
        var records: [DumpValues.Record] = []
        var firstLine: [String: [UInt64: Int]] = [:]
        var line = 0
        // Lines split as bytes, as import splits them.
        for text in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            line += 1
            guard text.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            do {
                if values == nil {
                    let parsed = try DumpHeader.parse(Array(text))
                    header = parsed
                    values = DumpValues(schema: Schema(objectSchema: parsed.classes.map(\.schema)))
                    continue
                }
                // Through the optional, in place: a copy would copy the links read so far.
                guard let record = try values?.record(text, line: line) else { continue }
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
        guard let header, let values else { throw CommandFailure("\(file): empty, not an objdb dump") }
        for reference in values.references where firstLine[reference.className]?[reference.key] == nil {
            throw CommandFailure(
                "\(file):\(reference.line): \(reference.place) links to the \(reference.className) with key \(reference.key), which the dump does not have")
        }
        records.sort { ($0.className, $0.key) < ($1.className, $1.key) }
        return DumpFile(header: header, records: records)
    }
}
