import Foundation
import ObjDB

/// Collects what ``Configuration/readFailureHandler`` receives, from any thread.
public final class FailureCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [ObjDBError] = []
    private var total = 0

    /// An empty collector.
    public init() {}

    /// A handler for ``Configuration/readFailureHandler`` that records into this collector
    /// (the first 100 errors are kept, all are counted).
    public var handler: @Sendable (ObjDBError) -> Void {
        { [self] error in
            lock.withLock {
                total += 1
                if stored.count < 100 { stored.append(error) }
            }
        }
    }

    /// The number of failures received.
    public var count: Int { lock.withLock { total } }

    /// The first failures received.
    public var errors: [ObjDBError] { lock.withLock { stored } }
}
