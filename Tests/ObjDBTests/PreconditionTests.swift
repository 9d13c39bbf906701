import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// Programmer errors stop the process with a message, as Swift does for an index out of range.
struct PreconditionTests {
    @Test func settingAManagedPropertyOutsideAWriteTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            let ann = person(1, "Ann")
            try db.write { try db.add(ann) }
            ann.name = "Changed"
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self).contains(#"Cannot set 'Person.name' outside a write transaction"#) } == true)
    }

    @Test func changingAPrimaryKeyTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            let ann = person(1, "Ann")
            try db.write { try db.add(ann) }
            try db.write { ann.id = 2 }
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self).contains(#"The primary key 'Person.id' cannot be changed"#) } == true)
    }

    @Test func settingThePrimaryKeyToTheSameValueIsAllowed() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open()
        let ann = person(1, "Ann")
        try db.write { try db.add(ann) }
        try db.write { ann.id = 1 }
        #expect(ann.id == 1)
    }

    @Test func readingADeletedObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            let ann = person(1, "Ann")
            try db.write { try db.add(ann) }
            try db.write { db.delete(ann) }
            _ = ann.name
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self).contains(#"Object of class 'Person' with key 1 has been deleted or invalidated"#) } == true)
    }

    @Test func deletingAnUnmanagedObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            try db.write { db.delete(person(1, "Ann")) }
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self).contains(#"the Person is not managed"#) } == true)
    }

    @Test func nestedWritesTrap() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            try db.write { try db.write {} }
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self).contains(#"nested write transactions are not supported"#) } == true)
    }

    @Test func unknownKeyInSubscriptTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = person(1, "Ann")["nope"]
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self).contains(#"has no persisted property 'nope'"#) } == true)
    }
}
