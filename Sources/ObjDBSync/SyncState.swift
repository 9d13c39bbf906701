import ObjDB

/// Whether a ``SyncClient`` is talking to the service.
public enum SyncState: Sendable, Hashable, CustomStringConvertible {
    /// Not started, or stopped: local writes are kept in the outbox.
    case stopped
    /// Connecting, or waiting for the service's welcome.
    case connecting
    /// Connected: local commits are uploaded and the service's changes applied as they come.
    case connected
    /// The last connection failed or was lost; the client retries after a delay.
    case offline

    /// The state's name.
    public var description: String {
        switch self {
        case .stopped: "stopped"
        case .connecting: "connecting"
        case .connected: "connected"
        case .offline: "offline"
        }
    }
}

/// Something a ``SyncClient`` reports while it works.
public enum SyncEvent: Sendable, Equatable {
    /// The service refused a local write (its class or a value does not fit the service's
    /// schema, say). The write is not in PostgreSQL; the next download returns the object to
    /// the service's state.
    case writeRejected(class: String, primaryKey: SyncValue, reason: String)
    /// A connection failed or the service reported an error; the client retries.
    case error(ObjDBError)
}
