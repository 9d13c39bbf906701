import Foundation

/// Stored rows read as sync values: what the outbox records of a commit. Links become the
/// target's primary key, embedded objects their property values.
extension Database {
    /// The properties of `row` (an object of `info`) in `columns` (every stored one if `nil`),
    /// by name, read in `txn`.
    func syncValues(_ info: ClassInfo, row: RowView, columns: [Int]? = nil, txn: Txn) throws -> [String: SyncValue] {
        var values: [String: SyncValue] = [:]
        for column in columns ?? Array(0..<info.columnCount) {
            let property = info.stored.properties[column]
            guard property.type != .linkingObjects else { continue }
            values[property.name] = try syncValue(info, row: row, column: column, txn: txn, depth: 0)
        }
        return values
    }

    /// The primary key of `row`, an object of `info`; `nil` for a class without one.
    func syncPrimaryKey(_ info: ClassInfo, row: RowView) -> SyncValue? {
        guard let column = info.primaryKeyColumn else { return nil }
        return Self.scalarSyncValue(
            info.valueType(column: column).anyValue(from: row.column(column)), type: info.stored.properties[column].type)
    }

    /// The value of one column of `row`.
    private func syncValue(_ info: ClassInfo, row: RowView, column: Int, txn: Txn, depth: Int) throws -> SyncValue {
        let stored = info.stored.properties[column]
        let read = row.column(column)
        let target = targetInfo(info, column: column)
        let elementType = stored.property.elementSwiftType
        func element(_ read: ColumnRead) throws -> SyncValue {
            if stored.type == .mixed { try refuseUnsyncedMixed(read, info, stored) }
            guard let target else { return Self.scalarSyncValue(elementType.anyValue(from: read), type: stored.type) }
            guard case .value(let bytes) = read, bytes.count == 8 else { return .null }
            return try linked(target, key: bytes.loadUnaligned(as: UInt64.self), txn: txn, depth: depth)
        }
        switch info.columnKinds[column] {
        case .value:
            if stored.type == .mixed { try refuseUnsyncedMixed(read, info, stored) }
            return Self.scalarSyncValue(info.valueType(column: column).anyValue(from: read), type: stored.type)
        case .link: return try element(read)
        case .list, .set:
            if case .null = read { return .null }
            let view = SequenceView(read)
            return .list(try (0..<view.count).map { try element(view.element($0)) })
        case .map:
            if case .null = read { return .null }
            let map = MapView(read)
            var entries: [String: SyncValue] = [:]
            for i in 0..<map.count {
                guard case .value(let key) = map.keys.element(i) else { continue }
                entries[String(decoding: key, as: UTF8.self)] = try element(map.values.element(i))
            }
            return .map(entries)
        }
    }

    /// Refuses a mixed value the sync protocol cannot carry: one holding a link to an object, at
    /// any depth. Thrown at the local commit, so nothing is recorded that the server would lose.
    private func refuseUnsyncedMixed(_ read: ColumnRead, _ info: ClassInfo, _ stored: StoredProperty) throws {
        guard case .value(let bytes) = read else { return }
        var linked = false
        MixedFormat.forEachLink(bytes) { _, _ in linked = true }
        guard linked else { return }
        throw ObjDBError(
            .invalidValue,
            "\(info.name).\(stored.name) holds a mixed value linking to an object, which a synced class cannot store (sync carries mixed values, lists and dictionaries without links)",
            className: info.name, path: path)
    }

    /// A mixed value as a sync value: its held value, a list or a map (a link is refused before:
    /// ``refuseUnsyncedMixed(_:_:_:)``).
    static func mixedSyncValue(_ value: MixedValue) -> SyncValue {
        switch value {
        case .none, .object: .null
        case .int(let v): .int(Int64(v))
        case .bool(let v): .bool(v)
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .decimal(let v): .decimal(v)
        case .uuid(let v): .uuid(v)
        case .list(let v): .list(v.map(mixedSyncValue))
        case .dictionary(let v): .map(v.mapValues(mixedSyncValue))
        }
    }

    /// A link to object `key` of `target`: its primary key, or for an embedded class its values.
    private func linked(_ target: ClassInfo, key: UInt64, txn: Txn, depth: Int) throws -> SyncValue {
        guard depth < OutboxFormat.maxEmbeddedDepth else {
            throw ObjDBError(
                .invalidValue, "Embedded objects of '\(target.name)' nest more than \(OutboxFormat.maxEmbeddedDepth) deep", className: target.name,
                path: path)
        }
        guard let row = try RowReader.parsed(target, key: key, txn: txn) else { return .null }
        if target.stored.isEmbedded {
            var values: [String: SyncValue] = [:]
            for column in 0..<target.columnCount where target.stored.properties[column].type != .linkingObjects {
                values[target.stored.properties[column].name] = try syncValue(target, row: row, column: column, txn: txn, depth: depth + 1)
            }
            return .object(values)
        }
        return syncPrimaryKey(target, row: row).map { .link($0) } ?? .null
    }

    /// A value of a scalar property of stored type `type`, as ``PersistableType/anyValue(from:)``
    /// reads it.
    static func scalarSyncValue(_ value: Any?, type: PropertyType) -> SyncValue {
        guard let value else { return .null }
        switch value {
        case let v as Bool where type == .bool: return .bool(v)
        case let v as Int: return .int(Int64(v))
        case let v as Int64: return .int(v)
        case let v as Int32: return .int(Int64(v))
        case let v as Int16: return .int(Int64(v))
        case let v as Int8: return .int(Int64(v))
        case let v as Float: return .float(v)
        case let v as Double: return .double(v)
        case let v as String: return .string(v)
        case let v as Data: return .data(v)
        case let v as Date: return .date(v)
        case let v as Decimal: return .decimal(v)
        case let v as UUID: return .uuid(v)
        case let v as ObjectId: return .objectId(v)
        case let v as Bool: return .bool(v)
        // A mixed value as the value it holds, which keeps its type on the wire.
        case let v as MixedValue: return mixedSyncValue(v)
        default: return .null
        }
    }
}
