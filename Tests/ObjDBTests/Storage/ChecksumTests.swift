import Foundation
import Testing
@testable import ObjDB
import CObjDBChecksum

/// CRC-32C, the checksum of rows and meta records: the standard check value, the CPU-instruction
/// and table versions against a bit-by-bit reference, and rows sealed and checked.
struct ChecksumTests {
    @Test func standardCheckValue() {
        // The check value of CRC-32C (Castagnoli) for the ASCII bytes "123456789".
        let bytes = Array("123456789".utf8)
        #expect(referenceCRC32C(bytes) == 0xE306_9283)
        bytes.withUnsafeBytes { buffer in
            #expect(Checksum.crc32c(buffer) == 0xE306_9283)
            #expect(objdb_crc32c_portable(0, buffer.baseAddress, buffer.count) == 0xE306_9283)
        }
    }

    @Test func theCPUInstructionsAreUsedWhereTheyExist() {
        #if arch(x86_64)
        // Every x86-64 CPU since 2008 has SSE 4.2.
        #expect(RowChecksum.usesHardware)
        #endif
    }

    @Test func everyImplementationAgreesOnRandomInputs() {
        var generator = SeededRandom(seed: 7)
        for length in Array(0...80) + [255, 256, 1_000, 4_097] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = referenceCRC32C(bytes)
            bytes.withUnsafeBytes { buffer in
                #expect(Checksum.crc32c(buffer) == expected, "length \(length)")
                #expect(objdb_crc32c_portable(0, buffer.baseAddress, buffer.count) == expected, "length \(length)")
                // Continuing over two halves gives the checksum of the whole.
                let half = length / 2
                let first = Checksum.crc32c(UnsafeRawBufferPointer(rebasing: buffer[..<half]))
                #expect(Checksum.crc32c(UnsafeRawBufferPointer(rebasing: buffer[half...]), continuing: first) == expected)
            }
        }
    }

    /// The row checksum in one call (key, then bytes; the CPU instructions take the key as one
    /// 8-byte step) is the CRC-32C of the key's little-endian bytes followed by the row's.
    @Test func theRowFunctionIsTheChecksumOfKeyThenBytes() {
        var generator = SeededRandom(seed: 11)
        for length in Array(0...40) + [255, 4_097] {
            let key = UInt64.random(in: 0...UInt64.max, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let keyBytes = (0..<8).map { UInt8(truncatingIfNeeded: key >> (8 * $0)) }
            let expected = referenceCRC32C(keyBytes + bytes)
            bytes.withUnsafeBytes { buffer in
                #expect(objdb_crc32c_row(key, buffer.baseAddress, buffer.count) == expected, "length \(length)")
                #expect(RowChecksum.compute(key: key, body: buffer) == expected, "length \(length)")
            }
        }
    }

    @Test func aSealedRowMatchesUntilAByteOrItsKeyChanges() {
        let builder = RowBuilder()
        [UInt8]([1, 2, 3]).withUnsafeBytes { builder.append(raw: $0) }
        builder.append(raw: nil)
        Array("hello".utf8).withUnsafeBytes { builder.append(raw: $0) }
        var row = builder.encoded(key: 42)
        row.withUnsafeBytes { bytes in
            let view = RowView(bytes)
            #expect(view?.hasChecksum == true)
            #expect(view.flatMap { RowChecksum.matches($0, key: 42) } == true)
            #expect(view.flatMap { RowChecksum.matches($0, key: 43) } == false)
        }
        for index in row.indices {
            for bit in 0..<8 {
                row[index] ^= 1 << bit
                row.withUnsafeBytes { bytes in
                    // A flipped bit either makes the bytes no row, or a row that fails its checksum,
                    // or (flipping the checksum flag itself) a row without a checksum.
                    if let view = RowView(bytes), view.hasChecksum {
                        #expect(RowChecksum.matches(view, key: 42) == false, "byte \(index) bit \(bit)")
                    }
                }
                row[index] ^= 1 << bit
            }
        }
    }
}
