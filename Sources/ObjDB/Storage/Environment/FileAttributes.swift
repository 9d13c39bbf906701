import CLMDB
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a file keeps when a compacted copy replaces it: permissions, owner and group, and
/// extended attributes (on Linux also its ACLs and security labels, which live there; on Apple
/// platforms tags and other attributes, but not ACLs, which `listxattr` does not show).
enum FileAttributes {
    /// Gives `copy` the permissions, owner, group and extended attributes of `original`; throws
    /// `storage` naming what could not be carried over (the copy then must not replace the file).
    static func carry(from original: String, to copy: String) throws {
        var status = stat()
        guard stat(original, &status) == 0 else { throw failure("read the attributes of", original) }
        guard chmod(copy, status.st_mode & 0o7777) == 0 else { throw failure("give the copy the permissions of", original) }
        var copied = stat()
        if stat(copy, &copied) == 0, copied.st_uid != status.st_uid || copied.st_gid != status.st_gid {
            guard chown(copy, status.st_uid, status.st_gid) == 0 else { throw failure("give the copy the owner and group of", original) }
            // chown clears the set-user-ID and set-group-ID bits: set the permissions again.
            guard chmod(copy, status.st_mode & 0o7777) == 0 else { throw failure("give the copy the permissions of", original) }
        }
        for name in try attributeNames(original) {
            let value = try attribute(name, of: original)
            // The copy may have it already (a security label the directory gives new files), and a
            // confined process may not be allowed to write it again.
            // try?: an attribute the copy does not have, or that cannot be read, is written.
            if (try? attribute(name, of: copy)) == value { continue }
            let stored = value.withUnsafeBytes { bytes in setAttribute(copy, name, bytes) }
            guard stored == 0 else { throw failure("copy the extended attribute '\(name)' of", original) }
        }
    }

    /// The names of the extended attributes of `path`.
    private static func attributeNames(_ path: String) throws -> [String] {
        while true {
            let size = listAttributes(path, nil, 0)
            if size < 0 {
                // A file system without extended attributes has none to keep.
                if errno == ENOTSUP { return [] }
                throw failure("list the extended attributes of", path)
            }
            if size == 0 { return [] }
            var buffer = [CChar](repeating: 0, count: size)
            let read = listAttributes(path, &buffer, size)
            if read < 0 {
                if errno == ERANGE { continue }  // an attribute was added meanwhile
                throw failure("list the extended attributes of", path)
            }
            return buffer[..<read].split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
    }

    /// The value of the extended attribute `name` of `path`.
    private static func attribute(_ name: String, of path: String) throws -> [UInt8] {
        while true {
            let size = getAttribute(path, name, nil, 0)
            guard size >= 0 else { throw failure("read the extended attribute '\(name)' of", path) }
            var value = [UInt8](repeating: 0, count: size)
            let read = value.withUnsafeMutableBytes { getAttribute(path, name, $0.baseAddress, size) }
            if read < 0 {
                if errno == ERANGE { continue }  // the value grew meanwhile
                throw failure("read the extended attribute '\(name)' of", path)
            }
            return Array(value[..<read])
        }
    }

    #if OBJDB_INTERNAL_CHECKS
    /// Tests only: sets an extended attribute; whether the file system took it.
    static func setForTesting(_ name: String, _ value: [UInt8], on path: String) -> Bool {
        value.withUnsafeBytes { setAttribute(path, name, $0) } == 0
    }

    /// Tests only: an extended attribute's value, `nil` if it cannot be read.
    static func getForTesting(_ name: String, of path: String) -> [UInt8]? {
        try? attribute(name, of: path)  // try?: tests only; nil says it could not be read
    }
    #endif

    private static func failure(_ action: String, _ path: String) -> ObjDBError {
        ObjDBError(.storage, "Could not \(action) \(path) (\(String(cString: strerror(errno))))", path: path)
    }

    // The extended-attribute calls, whose signatures differ between Linux and Apple platforms.
    #if canImport(Darwin)
    /// `listxattr` without following links.
    private static func listAttributes(_ path: String, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int {
        listxattr(path, buffer, size, XATTR_NOFOLLOW)
    }
    /// `getxattr` without following links.
    private static func getAttribute(_ path: String, _ name: String, _ value: UnsafeMutableRawPointer?, _ size: Int) -> Int {
        getxattr(path, name, value, size, 0, XATTR_NOFOLLOW)
    }
    /// `setxattr` without following links.
    private static func setAttribute(_ path: String, _ name: String, _ value: UnsafeRawBufferPointer) -> Int32 {
        setxattr(path, name, value.baseAddress, value.count, 0, XATTR_NOFOLLOW)
    }
    #else
    /// `listxattr`.
    private static func listAttributes(_ path: String, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int {
        listxattr(path, buffer, size)
    }
    /// `getxattr`.
    private static func getAttribute(_ path: String, _ name: String, _ value: UnsafeMutableRawPointer?, _ size: Int) -> Int {
        getxattr(path, name, value, size)
    }
    /// `setxattr`.
    private static func setAttribute(_ path: String, _ name: String, _ value: UnsafeRawBufferPointer) -> Int32 {
        setxattr(path, name, value.baseAddress, value.count, 0)
    }
    #endif
}
