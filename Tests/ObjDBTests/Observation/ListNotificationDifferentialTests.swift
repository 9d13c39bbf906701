import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Random edits of one list (appends, inserts, removals, moves, swaps, replacements, a query that
/// writes the list back mid-transaction, the list created again whole), committed here or by
/// another instance, one or two commits per delivery. After each delivery the reported change
/// must turn the previous list into the new one exactly, modifications must be surviving
/// positions, and a commit that only replaces elements must report exactly those positions as
/// modifications, as Realm does.
@Suite(.serialized)
struct ListNotificationDifferentialTests {
    let directory = TemporaryDirectory()

    static func newPet(_ id: inout Int) -> Pet {
        let pet = Pet()
        pet.id = id
        pet.name = "p\(id)"
        id += 1
        return pet
    }

    /// One random edit of `owner.pets` in the write transaction of its database; the position
    /// replaced, for a replacement.
    static func edit(_ owner: Owner, _ db: Database, _ random: inout SeededRandom, _ nextID: inout Int) throws -> Int? {
        let pets = owner.pets
        let count = pets.count
        switch Int.random(in: 0..<9, using: &random) {
        case 0: pets.append(newPet(&nextID))
        case 1: pets.insert(newPet(&nextID), at: Int.random(in: 0...count, using: &random))
        case 2 where count > 0: pets.remove(at: Int.random(in: 0..<count, using: &random))
        case 3 where count > 1: pets.move(from: Int.random(in: 0..<count, using: &random), to: Int.random(in: 0..<count, using: &random))
        case 4 where count > 1: pets.swapAt(Int.random(in: 0..<count, using: &random), Int.random(in: 0..<count, using: &random))
        case 5 where count > 0:
            let at = Int.random(in: 0..<count, using: &random)
            pets[at] = newPet(&nextID)
            return at
        case 6 where count > 0:
            // An element listed twice.
            pets.append(pets[Int.random(in: 0..<count, using: &random)])
        case 7: _ = try db.objects(Owner.self).filter("ANY pets.id == 1").count  // writes the list back
        case 8 where Int.random(in: 0..<4, using: &random) == 0:
            // Created again whole: no edits listed for this commit.
            let shuffled = Array(pets).shuffled(using: &random)
            try db.create(Owner.self, value: ["id": owner.id, "pets": shuffled], update: .modified)
        default: pets.append(newPet(&nextID))
        }
        return nil
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomListEditsAreReportedExactly(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var nextID = 1_000
        let db = try directory.open([Owner.self, Pet.self], name: "list-\(seed).objdb")
        let other = try directory.open([Owner.self, Pet.self], name: "list-\(seed).objdb")
        try db.write {
            let owner = Owner()
            owner.id = 1
            for _ in 0..<8 { owner.pets.append(Self.newPet(&nextID)) }
            try db.add(owner)
        }
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        let theirs = try #require(other.object(ofType: Owner.self, forPrimaryKey: 1))
        // Each call with the list's ids when it was made (a commit here is told at once, so two
        // commits here are two calls).
        var calls: [(ids: [Int], deletions: [Int], insertions: [Int], modifications: [Int])] = []
        let token = owner.pets.observe { change in
            if case .update(let list, let deletions, let insertions, let modifications) = change {
                calls.append((list.map(\.id), deletions, insertions, modifications))
            }
        }
        db.refresh()
        var previous = owner.pets.map(\.id)
        for round in 0..<150 {
            let here = Int.random(in: 0..<2, using: &random) == 0
            let commits = Int.random(in: 1...2, using: &random)
            var replaced: [Int] = []
            var onlyReplacements = commits == 1
            for _ in 0..<commits {
                let (database, holder) = here ? (db, owner) : (other, theirs)
                if !here { other.refresh() }
                try database.write {
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        if let at = try Self.edit(holder, database, &random, &nextID) { replaced.append(at) } else { onlyReplacements = false }
                    }
                }
            }
            db.refresh()
            for call in calls {
                // Deletions, then insertions, give the new positions; a surviving position whose
                // object changed (a replacement) must be a modification.
                var mirror = previous.enumerated().map { (old: $0.offset, id: $0.element) }
                for index in call.deletions.sorted(by: >) { mirror.remove(at: index) }
                for index in call.insertions.sorted() { mirror.insert((-1, call.ids[index]), at: index) }
                #expect(mirror.count == call.ids.count, "round \(round): \(previous) → \(call.ids) with -\(call.deletions) +\(call.insertions)")
                guard mirror.count == call.ids.count else { return }
                for (position, entry) in mirror.enumerated() where entry.old >= 0 && entry.id != call.ids[position] {
                    #expect(call.modifications.contains(entry.old), "round \(round): position \(position) changed without a modification")
                }
                #expect(call.modifications.allSatisfy { $0 < previous.count && !call.deletions.contains($0) }, "round \(round)")
                previous = call.ids
            }
            if onlyReplacements, calls.count == 1 {
                #expect(calls[0].deletions.isEmpty && calls[0].insertions.isEmpty, "round \(round)")
                #expect(calls[0].modifications == Array(Set(replaced)).sorted(), "round \(round): replaced \(replaced)")
            }
            #expect(previous == owner.pets.map(\.id), "round \(round)")
            calls.removeAll()
        }
        withExtendedLifetime(token) {}
    }
}
