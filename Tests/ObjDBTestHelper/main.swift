import Foundation
import ObjDB
import ObjDBTestModels

// A second process for the tests. Commands:
//   put <file> <id> <name>          adds or updates a Person and commits
//   hold-write <file> <seconds>     begins a write, prints "holding", waits, then commits
//   count <file>                    prints the number of Person objects

/// Fails with a message on standard error and exit code 2.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ObjDBTestHelper: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.first, arguments.count >= 2 else { fail("usage: put|hold-write|count <file> …") }
let url = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
let config = Configuration(fileURL: url, objectTypes: [Person.self])

do {
    let db = try Database(configuration: config)
    switch command {
    case "put":
        guard arguments.count == 4, let id = Int(arguments[arguments.startIndex + 2]) else { fail("put <file> <id> <name>") }
        let person = Person()
        person.id = id
        person.name = arguments[arguments.startIndex + 3]
        try db.write { try db.add(person, update: .modified) }
    case "hold-write":
        guard arguments.count == 3, let seconds = Double(arguments[arguments.startIndex + 2]) else { fail("hold-write <file> <seconds>") }
        try db.write {
            let person = Person()
            person.id = 1_000_000
            person.name = "held"
            try db.add(person, update: .modified)
            FileHandle.standardOutput.write(Data("holding\n".utf8))
            Thread.sleep(forTimeInterval: seconds)
        }
    case "count":
        print(db.objects(Person.self).count)
    default:
        fail("unknown command \(command)")
    }
} catch {
    fail("\(error)")
}
