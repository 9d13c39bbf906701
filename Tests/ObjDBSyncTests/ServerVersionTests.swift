import ObjDB
@testable import ObjDBSyncServer
import Testing

/// The service needs PostgreSQL 14 (its triggers are made with `CREATE OR REPLACE TRIGGER`): an
/// older server is a clear error naming its version, before any table is touched.
@Suite("PostgreSQL server version")
struct ServerVersionTests {
    @Test func aServerOlderThan14IsRefusedByName() throws {
        #expect(throws: Never.self) { try SyncStore.checkServerVersion(140000) }
        #expect(throws: Never.self) { try SyncStore.checkServerVersion(150018) }
        let error = #expect(throws: ObjDBError.self) { try SyncStore.checkServerVersion(130012) }
        #expect(error?.code == .sync)
        #expect(error?.message.contains("PostgreSQL 13.12 is older than 14") == true)
    }
}
