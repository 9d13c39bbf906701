import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Notifications of `List`, `MutableSet` and `LinkingObjects` of objects. Modelled on
/// realm-swift's `Realm/Tests/NotificationTests.m` `LinkViewChangesetTests` (a list of ten
/// objects; deletes, inserts, moves and modifications through the list, and deleting the
/// objects themselves); the expected indices follow Realm's semantics, worked out by hand.
@Suite(.serialized)
struct CollectionNotificationTests {
    let directory = TemporaryDirectory()

    /// An owner (id 1) whose `pets` are the pets 100…109, in order, and a database observing it.
    func setUp() throws -> (db: Database, owner: Owner) {
        let db = try directory.open([Owner.self, Pet.self])
        try db.write {
            let owner = Owner()
            owner.id = 1
            for i in 0..<10 {
                let pet = Pet()
                pet.id = 100 + i
                pet.name = "pet \(i)"
                owner.pets.append(pet)
            }
            try db.add(owner)
        }
        return (db, try #require(db.object(ofType: Owner.self, forPrimaryKey: 1)))
    }

    func pet(_ db: Database, _ id: Int) throws -> Pet { try #require(db.object(ofType: Pet.self, forPrimaryKey: id)) }

    /// Observes the owner's pets; returns the recorder after the initial call.
    func observePets(_ db: Database, _ owner: Owner, keyPaths: [String]? = nil) -> (ChangeRecorder<List<Pet>>, NotificationToken) {
        let log = ChangeRecorder<List<Pet>>()
        let token = owner.pets.observe(keyPaths: keyPaths) { log.record($0, count: \.count) }
        db.refresh()
        return (log, token)
    }

    // LinkViewChangesetTests testAddObjectToLinkView / testInsertObjectIntoLinkView
    @Test func appendingAndInserting() throws {
        let (db, owner) = try setUp()
        let (log, token) = observePets(db, owner)
        #expect(log.calls == [.initial(count: 10)])
        try db.write {
            let pet = Pet()
            pet.id = 200
            owner.pets.append(pet)
        }
        #expect(log.updates.last == .update(deletions: [], insertions: [10], modifications: []))
        try db.write { owner.pets.insert(try pet(db, 200), at: 2) }  // listed twice now
        #expect(log.updates.last == .update(deletions: [], insertions: [2], modifications: []))
        #expect(owner.pets.count == 12)
        withExtendedLifetime(token) {}
    }

    // LinkViewChangesetTests testDeleteObjectFromLinkView / testDeleteMultipleObjectsFromLinkView
    @Test func removingFromTheList() throws {
        let (db, owner) = try setUp()
        let (log, token) = observePets(db, owner)
        try db.write { owner.pets.remove(at: 3) }
        #expect(log.updates.last == .update(deletions: [3], insertions: [], modifications: []))
        try db.write {
            owner.pets.remove(at: 8)  // pet 109
            owner.pets.remove(at: 0)  // pet 100
        }
        #expect(log.updates.last == .update(deletions: [0, 8], insertions: [], modifications: []))
        withExtendedLifetime(token) {}
    }

    // LinkViewChangesetTests testMoveObjectInLinkView: a move is a deletion plus an insertion.
    @Test func movingIsADeletionAndAnInsertion() throws {
        let (db, owner) = try setUp()
        let (log, token) = observePets(db, owner)
        try db.write { owner.pets.move(from: 0, to: 5) }
        #expect(log.updates.last == .update(deletions: [0], insertions: [5], modifications: []))
        try db.write { owner.pets.swapAt(1, 8) }
        // [101 … 105 100 106 … 109] with 102 and 108 swapped: 101, 102 … run, the longest,
        // stays; the two swapped objects move.
        #expect(log.updates.count == 2)
        #expect(log.updates.last == .update(deletions: [1, 8], insertions: [1, 8], modifications: []))
        withExtendedLifetime(token) {}
    }

    // Realm's list_set: replacing an element is a modification of its position, as with
    // `replace(index:object:)`; several edits in one commit combine as Realm's builder combines
    // them.
    @Test func replacingAnElementIsAModification() throws {
        let (db, owner) = try setUp()
        let (log, token) = observePets(db, owner)
        func newPet(_ id: Int) -> Pet {
            let pet = Pet()
            pet.id = id
            return pet
        }
        try db.write { owner.pets[2] = newPet(300) }
        #expect(log.updates.last == .update(deletions: [], insertions: [], modifications: [2]))
        try db.write { owner.pets.replace(index: 7, object: newPet(301)) }
        #expect(log.updates.last == .update(deletions: [], insertions: [], modifications: [7]))
        try db.write {
            owner.pets[1] = newPet(302)
            owner.pets.remove(at: 0)
            owner.pets.append(newPet(303))
        }
        #expect(log.updates.last == .update(deletions: [0], insertions: [9], modifications: [1]))
        #expect(log.updates.count == 3)
        withExtendedLifetime(token) {}
    }

    // Edits on either side of a read that writes the list back mid-transaction (a query reads
    // lists from rows) still add up.
    @Test func editsAcrossAWriteBackInOneTransactionAddUp() throws {
        let (db, owner) = try setUp()
        let (log, token) = observePets(db, owner)
        try db.write {
            let pet = Pet()
            pet.id = 500
            owner.pets[3] = pet
            let holding = try db.objects(Owner.self).filter("ANY pets.id == 500").count
            #expect(holding == 1)
            owner.pets.move(from: 0, to: 9)
        }
        #expect(log.updates.last == .update(deletions: [0], insertions: [9], modifications: [3]))
        withExtendedLifetime(token) {}
    }

    // Filtered or sorted results of a list do not keep the list's positions: their changes come
    // from comparing them, whatever the list's edits.
    @Test func filteredAndSortedListResultsIgnoreTheListsEdits() throws {
        let (db, owner) = try setUp()
        try db.write { for (index, pet) in owner.pets.enumerated() { pet.name = index.isMultiple(of: 2) ? "even" : "odd" } }
        let log = ChangeRecorder<Results<Pet>>()
        let evens = owner.pets.where { $0.name == "even" }
        let token = evens.observe { log.record($0, count: \.count) }
        let sortedLog = ChangeRecorder<Results<Pet>>()
        let sorted = owner.pets.sorted(by: \.id)
        let sortedToken = sorted.observe { sortedLog.record($0, count: \.count) }
        db.refresh()
        // Replaces odd pet 101 at position 1: the evens do not change (the list's edit, a set at
        // 1, must not become a modification of the evens' position 1); in id order 101 leaves
        // and 600 comes last.
        try db.write {
            let odd = Pet()
            odd.id = 600
            odd.name = "odd"
            owner.pets[1] = odd
        }
        // Swaps the ends of the list: in id order nothing moves (the list's two moves must not
        // become deletions and insertions); among the evens, 100 goes last.
        try db.write { owner.pets.swapAt(0, 9) }
        #expect(log.updates == [.update(deletions: [0], insertions: [4], modifications: [])])
        #expect(sortedLog.updates == [.update(deletions: [1], insertions: [9], modifications: [])])
        withExtendedLifetime([token, sortedToken]) {}
    }

    // A list edited back to what it was is not written: no call for it, even when the commit
    // wrote its holder.
    @Test func aListEditedBackToWhatItWasIsNotReported() throws {
        let (db, owner) = try setUp()
        let (log, token) = observePets(db, owner)
        try db.write {
            owner.pets.swapAt(0, 1)
            owner.pets.swapAt(0, 1)
            owner.name = "renamed"
        }
        #expect(log.updates.isEmpty, "\(log.updates)")
        withExtendedLifetime(token) {}
    }

    // The same through the change log: another instance's commit.
    @Test func anotherInstancesEditsArriveThroughTheLog() throws {
        let (db, owner) = try setUp()
        let (log, token) = observePets(db, owner)
        let writer = try directory.open([Owner.self, Pet.self])
        let theirs = try #require(writer.object(ofType: Owner.self, forPrimaryKey: 1))
        try writer.write {
            let pet = Pet()
            pet.id = 400
            theirs.pets[4] = pet
            theirs.pets.swapAt(0, 9)
        }
        db.refresh()
        #expect(log.updates.last == .update(deletions: [0, 9], insertions: [0, 9], modifications: [4]))
        // A list changed without edits (created again whole) is compared instead: still exact.
        let before = owner.pets.map(\.id)
        try writer.write {
            try writer.create(Owner.self, value: ["id": 1, "pets": Array(theirs.pets.reversed())], update: .modified)
        }
        db.refresh()
        guard case .update(let deletions, let insertions, _)? = log.updates.last, log.updates.count == 2 else {
            Issue.record("no second update: \(log.calls)")
            return
        }
        let after = owner.pets.map(\.id)
        #expect(after == before.reversed())
        var mirror = before
        for index in deletions.sorted(by: >) { mirror.remove(at: index) }
        for index in insertions.sorted() { mirror.insert(after[index], at: index) }
        #expect(mirror == after)
        withExtendedLifetime(token) {}
    }

    // LinkViewChangesetTests testModifyObjectInLinkView: a changed element is a modification at
    // its old index; key paths limit what counts.
    @Test func modifyingAnElement() throws {
        let (db, owner) = try setUp()
        let (all, allToken) = observePets(db, owner)
        let (owners, ownersToken) = observePets(db, owner, keyPaths: ["owner"])
        try db.write { try pet(db, 104).name = "renamed" }
        #expect(all.updates == [.update(deletions: [], insertions: [], modifications: [4])])
        #expect(owners.updates.isEmpty)
        withExtendedLifetime([allToken, ownersToken]) {}
    }

    // LinkViewChangesetTests testDeleteObjectInLinkView: deleting an element's object removes
    // it from the list.
    @Test func deletingAnElementsObject() throws {
        let (db, owner) = try setUp()
        let (log, token) = observePets(db, owner)
        try db.write { db.delete(try pet(db, 106)) }
        #expect(log.updates == [.update(deletions: [6], insertions: [], modifications: [])])
        withExtendedLifetime(token) {}
    }

    // Deleting the object that holds the list empties it.
    @Test func deletingTheOwnerDeletesEveryElement() throws {
        let (db, owner) = try setUp()
        let (log, token) = observePets(db, owner)
        try db.write { db.delete(owner) }
        #expect(log.updates == [.update(deletions: Array(0..<10), insertions: [], modifications: [])])
        withExtendedLifetime(token) {}
    }

    // Changes made by another instance arrive at refresh().
    @Test func anotherInstancesEditsArriveAtRefresh() throws {
        let (db, owner) = try setUp()
        let (log, token) = observePets(db, owner)
        let writer = try directory.open([Owner.self, Pet.self])
        try writer.write {
            let theirs = try #require(writer.object(ofType: Owner.self, forPrimaryKey: 1))
            theirs.pets.remove(at: 9)
            theirs.pets.append(try pet(writer, 100))  // 100 listed twice
        }
        #expect(log.updates.isEmpty)
        db.refresh()
        #expect(log.updates == [.update(deletions: [9], insertions: [9], modifications: [])])
        withExtendedLifetime(token) {}
    }

    @Test func linkingObjectsReportOriginsThatStartAndStopLinking() throws {
        let (db, owner) = try setUp()
        let rex = try pet(db, 103)
        let log = ChangeRecorder<LinkingObjects<Owner>>()
        let token = rex.owners.observe(keyPaths: ["name"]) { log.record($0, count: \.count) }
        db.refresh()
        #expect(log.calls == [.initial(count: 1)])
        try db.write {
            let second = Owner()
            second.id = 2
            second.pets.append(rex)
            try db.add(second)
        }
        #expect(log.updates.last == .update(deletions: [], insertions: [1], modifications: []))
        try db.write { owner.name = "renamed" }
        #expect(log.updates.last == .update(deletions: [], insertions: [], modifications: [0]))
        try db.write { owner.pets.remove(at: 3) }
        #expect(log.updates.last == .update(deletions: [0], insertions: [], modifications: []))
        #expect(log.updates.count == 3)
        withExtendedLifetime(token) {}
    }

    @Test func setsReportInsertionsAndRemovals() throws {
        let (db, owner) = try setUp()
        try db.write {
            for id in 2...4 {
                let friend = Owner()
                friend.id = id
                owner.friends.insert(friend)
            }
        }
        let log = ChangeRecorder<MutableSet<Owner>>()
        let token = owner.friends.observe { log.record($0, count: \.count) }
        db.refresh()
        #expect(log.calls == [.initial(count: 3)])
        try db.write { owner.friends.remove(try #require(db.object(ofType: Owner.self, forPrimaryKey: 3))) }
        #expect(log.updates.last == .update(deletions: [1], insertions: [], modifications: []))
        try db.write { db.object(ofType: Owner.self, forPrimaryKey: 4)?.name = "four" }
        #expect(log.updates.last == .update(deletions: [], insertions: [], modifications: [1]))
        withExtendedLifetime(token) {}
    }
}

extension CollectionNotificationTests {
    /// A list and linking objects observed on a queue arrive there, read by an instance confined
    /// to the queue, with the same indices.
    @Test func observingAListAndLinkingObjectsOnAQueue() throws {
        let (db, owner) = try setUp()
        let queue = DispatchQueue(label: "collection observer")
        let calls = LockedCalls()
        let listToken = owner.pets.observe(on: queue) { change in
            switch change {
            case .initial(let pets): calls.append("list initial \(pets.count)")
            case .update(let pets, let deletions, let insertions, _):
                calls.append("list \(pets.count) -\(deletions) +\(insertions) frozen: \(pets.isFrozen)")
            case .error(let error): calls.append("error \(error)")
            }
        }
        let rex = try pet(db, 103)
        let ownersToken = rex.owners.observe(on: queue) { change in
            switch change {
            case .initial(let owners): calls.append("owners initial \(owners.map(\.id))")
            case .update(let owners, let deletions, let insertions, _): calls.append("owners \(owners.map(\.id)) -\(deletions) +\(insertions)")
            case .error(let error): calls.append("error \(error)")
            }
        }
        try calls.wait(for: 2)  // both initial calls: a commit before one would be part of it
        try db.write { owner.pets.remove(at: 3) }
        try calls.wait(for: 4)
        // Two instances on one queue: their calls may interleave.
        #expect(Set(calls.all) == ["list initial 10", "owners initial [1]", "list 9 -[3] +[] frozen: false", "owners [] -[0] +[]"])
        #expect(calls.all.count == 4)
        listToken.invalidate()
        ownersToken.invalidate()
    }

    /// A concurrent queue (here a global one) works: the calls run on it (its precondition holds),
    /// one at a time and in commit order.
    @Test func observingOnAConcurrentQueueDeliversOneCallAtATime() throws {
        let (db, owner) = try setUp()
        let queue = DispatchQueue.global()
        let calls = LockedCalls()
        let inside = LockedCalls()
        let token = owner.pets.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            inside.append("enter")
            defer { inside.append("leave") }
            Thread.sleep(forTimeInterval: 0.002)  // long enough for a second call to overlap if it could
            switch change {
            case .initial(let pets): calls.append("initial \(pets.count)")
            case .update(let pets, _, _, _): calls.append("\(pets.count)")
            case .error(let error): calls.append("error \(error)")
            }
        }
        try calls.wait(for: 1)
        for _ in 0..<5 {
            try db.write { owner.pets.remove(at: 0) }
        }
        // Commits may be told together: wait for the last state.
        for _ in 0..<500 where calls.all.last != "5" { Thread.sleep(forTimeInterval: 0.01) }
        #expect(calls.all.first == "initial 10")
        #expect(calls.all.last == "5")
        let counts = calls.all.dropFirst().compactMap { Int($0) }
        #expect(counts == counts.sorted(by: >), "\(calls.all)")
        // Never two calls inside at once.
        #expect(inside.all.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0 ? "enter" : "leave") }, "\(inside.all)")
        token.invalidate()
    }
}
