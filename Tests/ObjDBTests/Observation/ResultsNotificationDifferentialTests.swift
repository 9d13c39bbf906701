import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Random commits against several observed queries at once; after each delivery, the reported
/// change must turn the previous array into the new one exactly (Realm's semantics: deletions
/// and modifications in old indices, insertions in new ones), and modifications must list
/// exactly the surviving objects whose observed data changed — checked against a brute-force
/// comparison of the arrays and of each object's observed values before and after.
@Suite(.serialized)
struct ResultsNotificationDifferentialTests {
    let directory = TemporaryDirectory()

    /// One observed query and what it last showed.
    final class Observed {
        let label: String
        let results: Results<Owner>
        /// What a modification means for this observer: the values it watches.
        let watched: (Owner) -> String
        /// Whether the results are in key order (objects never move).
        let keyOrdered: Bool
        var calls: [CollectionChange<Results<Owner>>] = []
        var token: NotificationToken?
        /// The ids shown at the last check, and their watched values.
        var previous: [(id: Int, watched: String)] = []

        init(_ label: String, _ results: Results<Owner>, keyPaths: [String]? = nil, keyOrdered: Bool, watched: @escaping (Owner) -> String) {
            self.label = label
            self.results = results
            self.watched = watched
            self.keyOrdered = keyOrdered
            token = results.observe(keyPaths: keyPaths) { [unowned self] in calls.append($0) }
        }

        func snapshot() -> [(id: Int, watched: String)] { results.map { ($0.id, watched($0)) } }
    }

    static func everything(_ owner: Owner) -> String {
        let pets = owner.pets.map { "\($0.id):\($0.name)" }.joined(separator: ",")
        let favorite = owner.favorite.map { "\($0.id):\($0.name)" } ?? "-"
        return "\(owner.name)|\(pets)|\(favorite)"
    }

    static let ownerNames = ["ann", "al", "amy", "bo", "cy", "dan"]
    static let petNames = ["rex", "fido", "tom", "kit"]

    /// A name from `names` other than `current`, so that every assignment changes a value.
    static func other(_ current: String, _ names: [String], _ random: inout SeededRandom) -> String {
        names.filter { $0 != current }.randomElement(using: &random) ?? current
    }

    /// One random edit; adds to `touched` the owners it wrote to or whose linked pets it wrote
    /// to (an object written twice in one commit can end with its old values, which Realm still
    /// reports as a modification).
    static func edit(_ db: Database, _ random: inout SeededRandom, nextID: inout Int, touched: inout Set<Int>) throws {
        let owners = Array(db.objects(Owner.self))
        let pets = Array(db.objects(Pet.self))
        let owner = owners.randomElement(using: &random)
        if let owner { touched.insert(owner.id) }
        func linking(_ pet: Pet) { touched.formUnion(pet.owners.map(\.id) + pet.fans.map(\.id)) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            let new = Owner()
            new.id = nextID
            new.name = ownerNames.randomElement(using: &random) ?? "ann"
            nextID += 1
            for _ in 0..<Int.random(in: 0...2, using: &random) { if let pet = pets.randomElement(using: &random) { new.pets.append(pet) } }
            try db.add(new)
        case 2:
            if let owner { db.delete(owner) }
        case 3:
            owner?.name = other(owner?.name ?? "", ownerNames, &random)
        case 4:
            if let pet = pets.randomElement(using: &random) {
                linking(pet)
                pet.name = other(pet.name, petNames, &random)
            }
        case 5:
            if let owner, let pet = pets.randomElement(using: &random) { owner.pets.append(pet) }
        case 6:
            if let owner, !owner.pets.isEmpty { owner.pets.remove(at: Int.random(in: 0..<owner.pets.count, using: &random)) }
        case 7:
            if let owner, owner.pets.count > 1 {
                let from = Int.random(in: 0..<owner.pets.count, using: &random)
                var to = Int.random(in: 0..<owner.pets.count, using: &random)
                if to == from { to = (from + 1) % owner.pets.count }
                owner.pets.move(from: from, to: to)
            }
        case 8:
            if let owner {
                let pet = pets.randomElement(using: &random)
                if pet?.id != owner.favorite?.id { owner.favorite = pet }
            }
        default:
            if Bool.random(using: &random), let pet = pets.randomElement(using: &random) {
                linking(pet)
                db.delete(pet)
            } else {
                let pet = Pet()
                pet.id = 10_000 + nextID
                pet.name = petNames.randomElement(using: &random) ?? "rex"
                nextID += 1
                try db.add(pet)
            }
        }
    }

    /// Checks what `observed` was told since the last check against the arrays.
    static func check(_ observed: Observed, step: Int, touched: Set<Int>) {
        let now = observed.snapshot()
        let calls = observed.calls
        observed.calls = []
        defer { observed.previous = now }
        let old = observed.previous
        let unchanged = old.map(\.id) == now.map(\.id) && old.map(\.watched) == now.map(\.watched)
        guard let call = calls.first else {
            #expect(unchanged, "\(observed.label) step \(step): no call, but \(old) became \(now)")
            return
        }
        #expect(calls.count == 1, "\(observed.label) step \(step): \(calls.count) calls for one delivery")
        guard case .update(_, let deletions, let insertions, let modifications) = call else {
            Issue.record("\(observed.label) step \(step): expected an update, got \(call)")
            return
        }
        #expect(!(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty), "\(observed.label) step \(step): an empty update")
        #expect(deletions == deletions.sorted() && insertions == insertions.sorted() && modifications == modifications.sorted())
        #expect(Set(deletions).count == deletions.count && Set(insertions).count == insertions.count)
        #expect(deletions.allSatisfy { old.indices.contains($0) } && modifications.allSatisfy { old.indices.contains($0) })
        #expect(insertions.allSatisfy { now.indices.contains($0) })
        // Applying the change to the old array gives the new one.
        let deleted = Set(deletions), inserted = Set(insertions)
        let kept = old.indices.filter { !deleted.contains($0) }.map { old[$0].id }
        let placed = now.indices.filter { !inserted.contains($0) }.map { now[$0].id }
        #expect(kept == placed, "\(observed.label) step \(step): \(old.map(\.id)) − \(deletions) ≠ \(now.map(\.id)) − \(insertions)")
        // Modifications: every object that stayed in place and whose watched values changed, and
        // beyond those only objects the commit wrote to.
        let newValues = Dictionary(now.map { ($0.id, $0.watched) }, uniquingKeysWith: { a, _ in a })
        let expected = old.indices.filter { !deleted.contains($0) && newValues[old[$0].id] != old[$0].watched }
        #expect(Set(expected).isSubset(of: modifications), "\(observed.label) step \(step): modifications \(modifications), expected \(expected) (\(old) → \(now))")
        let extra = Set(modifications).subtracting(expected)
        #expect(extra.allSatisfy { touched.contains(old[$0].id) && !deleted.contains($0) },
                "\(observed.label) step \(step): \(extra.sorted()) reported modified but untouched (\(old) → \(now))")
        if observed.keyOrdered {
            // In key order nothing moves: a deleted object is not in the new array.
            let newIDs = Set(now.map(\.id))
            #expect(deletions.allSatisfy { !newIDs.contains(old[$0].id) }, "\(observed.label) step \(step): a move in key order")
        }
    }

    @Test(arguments: [1, 2, 3])
    func randomCommitsAreReportedExactly(seed: UInt64) throws {
        let db = try directory.open([Owner.self, Pet.self], name: "seed\(seed).objdb")
        let writer = try directory.open([Owner.self, Pet.self], name: "seed\(seed).objdb")
        var random = SeededRandom(seed: seed)
        var nextID = 0
        var touched: Set<Int> = []
        try db.write { for _ in 0..<20 { try Self.edit(db, &random, nextID: &nextID, touched: &touched) } }
        let owners = db.objects(Owner.self)
        let observed = [
            Observed("filtered", try owners.filter("name BEGINSWITH 'a'"), keyOrdered: true, watched: Self.everything),
            Observed("sorted", owners.sorted(by: [SortDescriptor(keyPath: "name"), SortDescriptor(keyPath: "id")]),
                     keyOrdered: false, watched: Self.everything),
            Observed("sorted, filtered", try owners.filter("name != 'dan'").sorted(by: [SortDescriptor(keyPath: "name", ascending: false), SortDescriptor(keyPath: "id")]),
                     keyOrdered: false, watched: Self.everything),
            Observed("sorted with ties", owners.sorted(by: \.name), keyPaths: ["name"], keyOrdered: false, watched: { $0.name }),
            Observed("through links", try owners.filter("ANY pets.name == 'rex'").sorted(by: \.id, ascending: false),
                     keyOrdered: false, watched: Self.everything),
            Observed("names only", owners, keyPaths: ["name"], keyOrdered: true, watched: { $0.name }),
            Observed("pet names", owners.sorted(by: \.name), keyPaths: ["pets.name"], keyOrdered: false,
                     watched: { $0.pets.map { "\($0.id):\($0.name)" }.joined(separator: ",") }),
        ]
        db.refresh()
        for item in observed {
            #expect(item.calls.count == 1)
            item.calls = []
            item.previous = item.snapshot()
        }
        for step in 0..<150 {
            let edits = Int.random(in: 1...3, using: &random)
            touched = []
            switch Int.random(in: 0..<3, using: &random) {
            case 0:  // this instance: notified at commit
                try db.write { for _ in 0..<edits { try Self.edit(db, &random, nextID: &nextID, touched: &touched) } }
            case 1:  // another instance, seen at refresh
                try writer.write { for _ in 0..<edits { try Self.edit(writer, &random, nextID: &nextID, touched: &touched) } }
                db.refresh()
            default:  // two commits elsewhere, delivered as one
                try writer.write { try Self.edit(writer, &random, nextID: &nextID, touched: &touched) }
                try writer.write { for _ in 0..<edits { try Self.edit(writer, &random, nextID: &nextID, touched: &touched) } }
                db.refresh()
            }
            for item in observed { Self.check(item, step: step, touched: touched) }
        }
        withExtendedLifetime(observed) {}
    }
}
