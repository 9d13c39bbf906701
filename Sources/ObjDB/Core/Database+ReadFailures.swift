import Foundation

/// The read-failure channel: where reads that cannot throw (property getters, `count`,
/// iteration, lookups that return an optional) report a damaged row, a value that does not
/// decode, or a storage failure, instead of passing off a default or an empty result as data.
///
/// The read itself goes on — a damaged value reads as the property's declared default, a row
/// that cannot be read as an object of defaults, a query that cannot run as empty — and the
/// failure goes to ``Configuration/readFailureHandler``, or, without one, to standard error,
/// once per distinct failure.
extension Database {
    /// Reports a failure met by a read that cannot throw.
    func reportReadFailure(_ error: ObjDBError) {
        let error = error.with(path: path)
        if let handler = configuration.readFailureHandler {
            handler(error)
        } else {
            ReadFailureLog.shared.write(error)
        }
    }

    /// Reports a storage failure (any error) met by a read that cannot throw, saying what the
    /// read was doing: `Scanning the objects of 'Person': The database file is damaged (…)`.
    func reportReadFailure(_ error: any Error, while operation: @autoclosure () -> String) {
        guard let error = error as? ObjDBError else {
            reportReadFailure(ObjDBError(.storage, "\(operation()) failed: \(error)"))
            return
        }
        reportReadFailure(ObjDBError(
            error.code, "\(operation()): \(error.message)", className: error.className, propertyName: error.propertyName,
            key: error.key, path: error.path, lmdbCode: error.lmdbCode, lmdbMessage: error.lmdbMessage))
    }

    /// What stands for an object that a link, a list or a backlink of a damaged file names but
    /// that does not exist: reported, and read as an unmanaged object of declared defaults (as a
    /// damaged row reads as defaults), so that the read goes on.
    @inline(never)
    func danglingObject<T: ObjectBase>(_ type: T.Type, className: String, key: UInt64, _ where: String) -> T {
        reportReadFailure(ObjDBError(
            .corruptFile,
            "\(`where`) names the '\(className)' with object key \(key), which does not exist: the file is damaged; run Database.verify() to check it",
            className: className, key: "\(key)", path: path))
        return T()
    }

    /// Reports a row of `info` that is damaged: its bytes are not a row, or do not match its checksum.
    func reportDamagedRow(_ info: ClassInfo, key: UInt64, _ problem: String) {
        reportReadFailure(ObjDBError(
            .corruptFile,
            "The stored row of '\(info.name)' with object key \(key) is damaged (\(problem)); run Database.verify() to check the whole file",
            className: info.name, key: "\(key)"))
    }
}

extension ObjectBase {
    /// Reports a stored value of `column` that does not decode as `type` (a getter then returns
    /// the property's declared default).
    @usableFromInline @inline(never)
    final func _objdbReportUndecodable(_ column: Int, as type: Any.Type) {
        guard let database = _objdbDatabase, let info = _objdbInfo else { return }
        let property = column < info.columnNames.count ? info.columnNames[column] : "#\(column)"
        database.reportReadFailure(ObjDBError(
            .corruptFile,
            "The stored value of '\(info.name).\(property)' of object key \(_objdbKey) does not decode as \(type) (a damaged value, or an enum raw value with no case); it reads as the property's default",
            className: info.name, propertyName: property, key: "\(_objdbKey)"))
    }
}

/// The default destination of read failures: standard error, each distinct message once, at
/// most ``limit`` of them per process.
final class ReadFailureLog: @unchecked Sendable {
    /// The log of the process.
    static let shared = ReadFailureLog()
    /// The most distinct messages written.
    static let limit = 1_000

    private let lock = NSLock()
    private var seen: Set<String> = []

    /// Writes `error` to standard error unless the same message was written before.
    func write(_ error: ObjDBError) {
        let text = error.description
        let isNew = lock.withLock { () -> Bool in
            guard seen.count < Self.limit else { return false }
            return seen.insert(text).inserted
        }
        guard isNew else { return }
        FileHandle.standardError.write(Data("ObjDB read failure: \(text)\n".utf8))
    }
}
