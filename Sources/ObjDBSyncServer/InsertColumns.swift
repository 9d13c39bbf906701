import NIOCore
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// The rows of one multi-row insert, encoded as they come: a column per property written (the
/// primary key first), each in PostgreSQL's binary array format, so that the statement
/// (`INSERT … SELECT … FROM UNNEST($1, …)`, ``statement``) binds each column as one parameter.
///
/// The fast path `insertColumns` of an upload's runs of creates (``SyncStore/applyTogether(_:on:more:)``):
/// the first create of a run is encoded as every operation is (``SyncStore/encode(_:previous:)``,
/// which finds its class, checks its properties and says why it is refused), and starts the
/// columns; each next create of the run is appended straight to them (``append(_:limit:)``), with
/// no ``SyncStore/EncodedOperation`` of its own, if it writes the same properties with cells of
/// the same types, under a non-nil key the run does not hold yet. Its slow twin builds the operations' cells
/// first and the columns from them (``SyncStore/insertStatement(_:)``); under
/// `OBJDB_INTERNAL_CHECKS` the two statements are compared at every flush.
///
/// - Complexity: O(*p*) per row appended, for *p* properties.
struct InsertColumns {
    /// The class.
    let mapping: ClassMapping
    /// The properties written after the primary key, in the class's column order.
    let names: [String]
    /// Their column kinds.
    let kinds: [ColumnKind]
    /// Their schemas (empty if one was not found: the run then takes no more rows).
    private let properties: [SyncPropertySchema]
    /// The cell type of each column, the key's first: those of the run's first row.
    let types: [PostgresDataType]
    /// Each column's elements.
    private var columns: [ByteBuffer]
    /// Whether a column holds a NULL.
    private var holdsNull: [Bool]
    /// Where each column's row being appended starts (one array for every row: no allocation
    /// per row).
    private var marks: [Int]
    /// Rows appended.
    private(set) var count = 0
    /// Hashes of the keys' cells: a key seen twice ends the run (one statement cannot write a
    /// row twice). A collision only ends a run early.
    private var keys = Set<Int>()

    /// Columns starting with the row of `first`, a create encoded by ``SyncStore/encode(_:previous:)``.
    init(first: SyncStore.EncodedOperation) {
        mapping = first.mapping
        names = first.sets.map(\.name)
        kinds = first.sets.map(\.kind)
        let found = first.sets.compactMap { first.mapping[$0.name]?.property }
        properties = found.count == first.sets.count ? found : []
        types = [first.pk.type] + first.sets.map(\.cell.type)
        columns = Array(repeating: ByteBuffer(), count: types.count)
        holdsNull = Array(repeating: false, count: types.count)
        marks = Array(repeating: 0, count: types.count)
        for (i, cell) in ([first.pk] + first.sets.map(\.cell)).enumerated() {
            if let bytes = cell.bytes {
                columns[i].writeInteger(Int32(bytes.count), as: Int32.self)
                columns[i].writeBytes(bytes)
            } else {
                columns[i].writeInteger(-1, as: Int32.self)
                holdsNull[i] = true
            }
        }
        keys.insert(Self.hash(of: columns[0], from: 0))
        count = 1
    }

    /// Appends the row of `op` if it continues the run: a create of the same class with no list
    /// appends, writing the same properties with cells of the same types, under a key not in the
    /// run, while the run holds fewer than `limit` rows. Otherwise returns `false`, the columns
    /// unchanged: the operation is then encoded on its own, which also says why it is refused
    /// if it is.
    mutating func append(_ op: SyncOperation, limit: Int) -> Bool {
        // The values may hold the key's property too; the key's column takes `primaryKey`.
        let written = op.values.count - (op.values[mapping.primaryKey.name] == nil ? 0 : 1)
        guard count < limit, op.kind == .create, op.listAppends.isEmpty, written == names.count,
            properties.count == names.count, op.className == mapping.schema.name
        else { return false }
        for i in columns.indices { marks[i] = columns[i].writerIndex }
        func undo() -> Bool {
            for i in columns.indices { columns[i].moveWriterIndex(to: marks[i]) }
            return false
        }
        // A nil key is refused by the operation's own encoding, even where the key's property
        // is optional (where the cell would be a NULL of the column's type).
        let pk = mapping.primaryKey
        guard op.primaryKey != .null,
            (try? PGCell.appendElement(op.primaryKey, .scalar(pk.type, isLink: false), property: pk, to: &columns[0])) == types[0]
        else { return undo() }
        let key = Self.hash(of: columns[0], from: marks[0])
        guard !keys.contains(key) else { return undo() }
        for i in names.indices {
            guard let value = op.values[names[i]],
                // try?: a value the column does not take is refused by the operation's own encoding.
                (try? PGCell.appendElement(value, kinds[i], property: properties[i], to: &columns[i + 1])) == types[i + 1]
            else { return undo() }
        }
        for i in columns.indices where !holdsNull[i] {
            holdsNull[i] = columns[i].getInteger(at: marks[i], as: Int32.self) == -1
        }
        keys.insert(key)
        count += 1
        return true
    }

    /// The hash of the key's cell that starts at index `start` of `column` and ends it (its
    /// element bytes).
    private static func hash(of column: ByteBuffer, from start: Int) -> Int {
        var hasher = Hasher()
        column.withUnsafeReadableBytes { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0[(start - column.readerIndex)...])) }
        return hasher.finalize()
    }

    /// The statement inserting the rows (the same text and parameters as
    /// ``SyncStore/insertStatement(_:)`` of the same rows).
    var statement: PostgresQuery {
        let pkCol = quoted(mapping.primaryKey.name)
        let allKinds = [ColumnKind.scalar(mapping.primaryKey.type, isLink: false)] + kinds
        var binds = PostgresBindings()
        for i in columns.indices {
            binds.append(PGElementArray(elementType: types[i], count: count, holdsNull: holdsNull[i], elements: columns[i]), context: .default)
        }
        return PostgresQuery(
            unsafeSQL: SyncStore.insertSQL(
                table: quoted(mapping.schema.name), pkColumn: pkCol, columns: names.map(quoted), types: types, kinds: allKinds),
            binds: binds)
    }
}

/// A one-dimensional array parameter whose elements are already in PostgreSQL's binary array
/// format (``PGCell/appendElement(_:_:property:to:)``), for ``InsertColumns``.
struct PGElementArray: PostgresDynamicTypeEncodable {
    /// The elements' type.
    var elementType: PostgresDataType
    /// How many elements.
    var count: Int
    /// Whether an element is NULL.
    var holdsNull: Bool
    /// The elements, each its length and bytes.
    var elements: ByteBuffer

    var psqlType: PostgresDataType { PGCellArray.arrayType(of: elementType) }
    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        PGCellArray.writeHeader(elementType: elementType, count: count, holdsNull: holdsNull, into: &buffer)
        buffer.writeImmutableBuffer(elements)
    }
}
