import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the pages of a database file with `pread`, never through the memory map, so that a
/// page past the end of a truncated file is an answer (`nil`) rather than `SIGBUS`.
///
/// Reads see what LMDB's map shows (both go through the operating system's page cache). Pages of
/// a version pinned by an open read transaction do not change while it is open.
final class PageFile {
    /// The file's path, for messages.
    let path: String
    /// The file's size in bytes when it was opened.
    let fileSize: Int
    private let descriptor: Int32

    /// Opens `path` for reading.
    init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw ObjDBError(
                code == ENOENT ? .fileNotFound : code == EACCES || code == EPERM ? .permissionDenied : .storage,
                "Cannot open the file to read its pages: \(String(cString: strerror(code)))", path: path)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw ObjDBError(.storage, "Cannot read the file's size: \(String(cString: strerror(code)))", path: path)
        }
        descriptor = fd
        fileSize = Int(info.st_size)
    }

    deinit { close(descriptor) }

    /// `count` bytes at `offset`, or `nil` if the file ends before them.
    /// - Throws: an ``ObjDBError`` if the read fails (an I/O error).
    func read(offset: Int, count: Int) throws -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= fileSize, count <= fileSize - offset else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress.map { $0 + done }, count - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                throw ObjDBError(.storage, "Reading the file at offset \(offset + done) failed: \(String(cString: strerror(code)))", path: path)
            }
            if n == 0 { return nil }  // the file shrank meanwhile
            done += n
        }
        return bytes
    }

    /// Page `number` of `pageSize` bytes, or `nil` if the file ends before it.
    func page(_ number: UInt64, pageSize: Int) throws -> [UInt8]? {
        let (offset, overflow) = Int(truncatingIfNeeded: number).multipliedReportingOverflow(by: pageSize)
        guard number <= UInt64(Int.max), !overflow else { return nil }
        return try read(offset: offset, count: pageSize)
    }

    /// Whether the whole of pages `first ..< first + count` lies within the file.
    func contains(pages first: UInt64, count: UInt64 = 1, pageSize: Int) -> Bool {
        let (end, overflowA) = first.addingReportingOverflow(count)
        let (bytes, overflowB) = end.multipliedReportingOverflow(by: UInt64(pageSize))
        return !overflowA && !overflowB && bytes <= UInt64(fileSize)
    }
}
