/// Object states of one class as the sync service sends them in bulk: the property names once,
/// then each object's values in that order. What a download part carries, without a dictionary
/// per object.
public struct SyncObjectBatch: Sendable, Hashable {
    /// One object of the batch.
    public struct Row: Sendable, Hashable {
        /// The object's primary key.
        public var primaryKey: SyncValue
        /// The values of ``SyncObjectBatch/propertyNames``, in their order; `nil` when the object
        /// was deleted.
        public var values: [SyncValue]?

        /// An object's row.
        public init(primaryKey: SyncValue, values: [SyncValue]?) {
            self.primaryKey = primaryKey
            self.values = values
        }
    }

    /// The name of the objects' class.
    public var className: String
    /// The names of the properties each row holds, in the order of the rows' values.
    public var propertyNames: [String]
    /// The objects, in order.
    public var rows: [Row]

    /// A batch.
    public init(className: String, propertyNames: [String], rows: [Row]) {
        self.className = className
        self.propertyNames = propertyNames
        self.rows = rows
    }

    /// The batch's objects as states, in order.
    public var states: [SyncObjectState] {
        rows.map { row in
            SyncObjectState(
                className: className, primaryKey: row.primaryKey,
                values: row.values.map { Dictionary(zip(propertyNames, $0), uniquingKeysWith: { _, last in last }) })
        }
    }

    /// `states` as batches, in order: consecutive states of one class with the same properties
    /// (deleted ones join any batch of their class) share a batch.
    ///
    /// - Complexity: O(*n* · *p*) for *n* states of *p* properties.
    public static func batches(_ states: [SyncObjectState]) -> [SyncObjectBatch] {
        var batches: [SyncObjectBatch] = []
        for state in states {
            if let last = batches.indices.last, batches[last].className == state.className {
                // Same class: joins the batch if deleted, or if it holds exactly its properties.
                let names = batches[last].propertyNames
                let row = state.values.map { values in names.compactMap { values[$0] } }
                if row == nil || (row?.count == names.count && state.values?.count == names.count) {
                    batches[last].rows.append(Row(primaryKey: state.primaryKey, values: row))
                    continue
                }
            }
            let names = (state.values?.keys).map { $0.sorted() } ?? []
            let values = state.values.map { values in names.map { values[$0] ?? .null } }
            batches.append(SyncObjectBatch(className: state.className, propertyNames: names, rows: [Row(primaryKey: state.primaryKey, values: values)]))
        }
        return batches
    }
}
