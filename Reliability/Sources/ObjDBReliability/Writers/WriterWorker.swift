import Foundation
import ObjDB
import ObjDBTestModels

/// One writer process of the multi-process attack, and the check after all of them.
///
/// Writer `p` commits `commits` transactions; each adds the person with id
/// `p × 10,000,000 + i` and increments the shared counter (the person with id 0, its `age`);
/// every `batchEvery`-th commit also adds `batchSize` owners with two pets each.
enum WriterWorker {
    /// The classes of the writers' file.
    static let types: [ObjectBase.Type] = [Person.self, Owner.self, Pet.self]

    /// The id of the `i`-th single person of writer `process`.
    static func personID(_ process: Int, _ i: Int) -> Int { process * 10_000_000 + i + 1 }

    /// The id of the `j`-th owner of batch commit `i` of writer `process`.
    static func ownerID(_ process: Int, _ i: Int, _ j: Int) -> Int { process * 10_000_000 + 5_000_000 + i * 1_000 + j }

    static func run(file: String, process: Int, commits: Int, batchEvery: Int, batchSize: Int) throws {
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: types))
        for i in 0..<commits {
            try db.write {
                guard let counter = db.object(ofType: Person.self, forPrimaryKey: 0) else {
                    throw HarnessError("writer \(process): the counter is missing")
                }
                counter.age = (counter.age ?? 0) + 1
                let person = Person()
                person.id = personID(process, i)
                person.name = "writer \(process) commit \(i)"
                try db.add(person)
                if batchEvery > 0, i % batchEvery == batchEvery - 1 {
                    try db.add((0..<batchSize).map { j in owner(ownerID(process, i, j)) })
                }
            }
        }
        Output.line("done process=\(process) commits=\(commits)")
    }

    /// Owner `id` with its two pets.
    static func owner(_ id: Int) -> Owner {
        let owner = Owner()
        owner.id = id
        owner.name = "owner \(id)"
        for k in 0..<2 {
            let pet = Pet()
            pet.id = id * 10 + k
            pet.name = "pet \(k)"
            owner.pets.append(pet)
        }
        owner.tags.append(contentsOf: ["a", "b"])
        return owner
    }

    /// Checks the file after `processes` writers: prints `writers healthy=<bool> people=<n>
    /// owners=<n> pets=<n> counter=<n> problems=<n> first=<…>`.
    static func check(file: String, processes: Int, commits: Int, batchEvery: Int, batchSize: Int) throws {
        let failures = FailureCollector()
        var config = Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: types)
        config.readFailureHandler = failures.handler
        let db = try Database(configuration: config)
        let report = try db.verify()
        var problems: [String] = report.problems.map(\.description)
        var expectedPeople: Set<Int> = [0]
        var expectedOwners: Set<Int> = []
        for p in 0..<processes {
            for i in 0..<commits {
                expectedPeople.insert(personID(p, i))
                if batchEvery > 0, i % batchEvery == batchEvery - 1 {
                    for j in 0..<batchSize { expectedOwners.insert(ownerID(p, i, j)) }
                }
            }
        }
        let people = db.objects(Person.self).map(\.id)
        if people.count != Set(people).count { problems.append("a person id appears twice") }
        if Set(people) != expectedPeople {
            problems.append("people: \(expectedPeople.subtracting(people).count) missing, \(Set(people).subtracting(expectedPeople).count) unexpected")
        }
        let owners = db.objects(Owner.self)
        if Set(owners.map(\.id)) != expectedOwners || owners.count != expectedOwners.count {
            problems.append("owners: \(owners.count), expected \(expectedOwners.count)")
        }
        for owner in owners where owner.pets.map(\.id) != [owner.id * 10, owner.id * 10 + 1] || Array(owner.tags) != ["a", "b"] {
            problems.append("owner \(owner.id) holds \(owner.pets.map(\.id)) \(Array(owner.tags))")
        }
        let pets = db.objects(Pet.self).count
        if pets != 2 * expectedOwners.count { problems.append("pets: \(pets), expected \(2 * expectedOwners.count)") }
        let counter = db.object(ofType: Person.self, forPrimaryKey: 0)?.age ?? -1
        if counter != processes * commits { problems.append("the counter is \(counter), expected \(processes * commits)") }
        if failures.count > 0 { problems.append("\(failures.count) read failures") }
        Output.line(
            "writers healthy=\(report.isHealthy) people=\(people.count) owners=\(owners.count) pets=\(pets) counter=\(counter) problems=\(problems.count) first=\(fieldText(problems.first ?? "-"))"
        )
    }
}
