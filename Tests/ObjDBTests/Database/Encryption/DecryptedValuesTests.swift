import Foundation
import Testing
@_spi(Benchmarks) @testable import ObjDB

/// The opened values of a snapshot (``DecryptedValues``) and the benchmark's cipher floor.
struct DecryptedValuesTests {
    let directory = TemporaryDirectory()

    /// Keys of three tables in ascending, strided, descending and scattered orders, past several
    /// growths of the table: each found again at the memory it was opened into, and no other.
    @Test func everyValueIsFoundAgainUnderItsTableAndKey() {
        let values = DecryptedValues(remembers: true)
        var keys: [(table: UInt32, key: UInt64)] = []
        for key in UInt64(1)...3_000 { keys.append((1, key)) }
        for key in stride(from: UInt64(16), through: 48_000, by: 16) { keys.append((2, key)) }
        for key in (UInt64(1)...3_000).reversed() { keys.append((3, key)) }
        var generator = SeededRandom(seed: 42)
        for _ in 0..<3_000 { keys.append((2, generator.next() | 1 << 63)) }
        var opened: [UnsafeRawBufferPointer] = []
        for (index, entry) in keys.enumerated() {
            var bytes = UInt64(index)
            let plain = withUnsafeBytes(of: &bytes) { source in
                values.value(table: entry.table, objectKey: entry.key, count: 8) { target in
                    target.copyMemory(from: source)
                    return true
                }
            }
            guard let plain else {
                Issue.record("value \(index) did not open")
                return
            }
            opened.append(plain)
        }
        for (index, entry) in keys.enumerated() {
            let found = values.value(table: entry.table, objectKey: entry.key, count: 8) { _ in
                Issue.record("value \(index) was opened again")
                return false
            }
            #expect(found?.baseAddress == opened[index].baseAddress)
            #expect(found?.loadUnaligned(as: UInt64.self) == UInt64(index))
        }
        var missing = UInt64(3_001)
        #expect(withUnsafeBytes(of: &missing) { values.opened(table: 1, key: $0) } == nil)
        var present = UInt64(17)
        #expect(withUnsafeBytes(of: &present) { values.opened(table: 1, key: $0) }?.baseAddress == opened[16].baseAddress)
        #expect(withUnsafeBytes(of: &present) { values.opened(table: 4, key: $0) } == nil)
        #expect(values.byteCount == 8 * keys.count)
    }

    /// A value that does not open is not remembered: the next read opens it again.
    @Test func aValueThatDoesNotOpenIsNotRemembered() {
        let values = DecryptedValues(remembers: true)
        #expect(values.value(table: 1, objectKey: 7, count: 4) { _ in false } == nil)
        var calls = 0
        let again = values.value(table: 1, objectKey: 7, count: 4) { _ in
            calls += 1
            return true
        }
        #expect(again != nil)
        #expect(calls == 1)
    }

    /// A write transaction's values are never found again.
    @Test func aWriteTransactionsValuesAreNotRemembered() {
        let values = DecryptedValues(remembers: false)
        var calls = 0
        for _ in 0..<2 {
            _ = values.value(table: 1, objectKey: 7, count: 4) { _ in
                calls += 1
                return true
            }
        }
        #expect(calls == 2)
    }

    #if canImport(CCryptoBoringSSL)
    /// The floor opens every row it sealed with either algorithm, and seals every row.
    @Test func theCipherFloorSealsAndOpensEveryRow() throws {
        let db = try Database(configuration: EncryptionFixture.configuration(directory.file("floor.objdb")))
        try EncryptionFixture.fill(db, count: 30)
        let floor = try #require(try db.cipherFloor(ofClassNamed: "ZebraPatient"))
        #expect(floor.rowCount == 31)
        for algorithm in CipherFloor.Algorithm.allCases {
            #expect(floor.openAll(algorithm) == 31)
            #expect(floor.sealAll(algorithm) == 31)
        }
        #expect(floor.openAllAsObjDB() == 31)
        #expect(floor.sealAllAsObjDB() == 31)
        #expect(try db.cipherFloor(ofClassNamed: "NoSuchClass") == nil)
    }
    #endif
}
