import Foundation

/// The sync state a synced file keeps (see `SyncTables`): what the sync client reads when it
/// connects and after each exchange.
package struct SyncFileState: Sendable, Equatable {
    /// The classes kept in sync.
    package var classNames: [String]
    /// The service's name for this file.
    package var clientID: UUID
    /// The next outbox sequence the file will hand out; `nextSequence - 1` is the highest ever
    /// handed out.
    package var nextSequence: UInt64
    /// The highest sequence the service acknowledged.
    package var acknowledged: UInt64
    /// The last checkpoint applied; `nil` before the first download.
    package var checkpoint: String?
    /// The highest sequence of this file that the applied checkpoint includes.
    package var includedSequence: UInt64
    /// Operations in the outbox (acknowledged ones not yet in a checkpoint included).
    package var outboxCount: Int
}
