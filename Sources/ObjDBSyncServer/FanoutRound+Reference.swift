import Foundation
import ObjDB

/// The slow twin of ``FanoutRound/parts(_:)``: one view's part, each changed row tested against
/// the view's predicate with ``PortablePredicate/matches(_:variables:)``. It is what a round
/// uses with the fast path `fanoutLookups` switched off (`OBJDB_DISABLE_FAST_PATHS`), and what
/// builds with internal checks compare every round's parts with.
extension FanoutRound {
    /// One member's part, evaluated row by row.
    mutating func referencePart(_ member: Member) -> [SyncObjectBatch] {
        var batches: [SyncObjectBatch] = []
        for (className, keys) in sortedChanges[member.base] ?? [] {
            guard let predicate = member.view.reads[className], predicate != .constant(false), let m = mappings[className],
                let names = read.propertyNames[className]
            else { continue }
            var batch = SyncObjectBatch(className: className, propertyNames: names, rows: [])
            func selects(_ values: [String: SyncValue]) -> Bool {
                (try? predicate.matches({ values[$0] }, variables: member.view.variables)) ?? false
            }
            for key in keys {
                if let row = read.rows[className]?[ExactText(key)], row.values != nil {
                    if predicate == .constant(true) || selects(namedRow(className, key, names).values) {
                        batch.rows.append(row)
                        continue
                    }
                }
                if predicate != .constant(true) {
                    guard oldRows(member.base, className, key, names).contains(where: selects) else { continue }
                }
                guard let primaryKey = try? PGText.scalarValue(key, m.primaryKey.type) else { continue }
                batch.rows.append(SyncObjectBatch.Row(primaryKey: primaryKey, values: nil))
            }
            if !batch.rows.isEmpty { batches.append(batch) }
        }
        return batches
    }

    #if OBJDB_INTERNAL_CHECKS
    /// Stops with "Internal check failed" if ``parts(_:)`` gave any member another part than
    /// its slow twin.
    mutating func checkParts(_ parts: [[SyncObjectBatch]], of members: [Member]) {
        for (i, member) in members.enumerated() {
            let expected = Self.outline(referencePart(member))
            let found = Self.outline(parts[i])
            internalCheck(
                found == expected,
                "the fan-out's lookup gave a view \(found) where testing each row gives \(expected) (view \(member.view.reads), variables \(member.view.variables))")
        }
    }

    /// A part as its classes and, per row, its primary key's bytes and whether it is a removal
    /// (rows come from the read, so their values are equal when their keys are).
    private static func outline(_ part: [SyncObjectBatch]) -> [String] {
        part.map { batch in
            batch.className + ":" + batch.rows.map { row in
                var bytes: [UInt8] = []
                SyncValueBytes.append(row.primaryKey, to: &bytes)
                return bytes.map { String($0, radix: 16) }.joined() + (row.values == nil ? "-" : "+")
            }.joined(separator: ",")
        }
    }
    #endif
}
