import Testing
import ObjDB
import ObjDBTestModels

// Seeded-random differential tests: thousands of random operations are applied to an ObjDB
// collection and, in lockstep, to a plain Swift model; after every operation (and after every
// commit, cancel and reopen) the collection must equal the model. Strings are compared by their
// UTF-8 bytes, because ObjDB stores bytes and compares set members and map keys bytewise, while
// Swift's `==` on `String` uses canonical equivalence ("é" == "e\u{301}").

/// The most recent operations of a run, for failure messages.
private struct OpTrace: CustomStringConvertible {
    /// The seed of the run.
    let seed: UInt64
    /// How many operations ran.
    var step = 0
    /// The last few operations, numbered.
    var recent: [String] = []

    /// Records one operation.
    mutating func add(_ op: String) {
        step += 1
        recent.append("#\(step) \(op)")
        if recent.count > 12 { recent.removeFirst() }
    }

    /// The seed, the operation count and the last operations.
    var description: String { "seed \(seed), after op #\(step); last ops:\n  " + recent.joined(separator: "\n  ") }
}

/// Records a failure with the trace; returns `false` so callers can stop the run.
private func fail(_ message: String, _ trace: OpTrace) -> Bool {
    Issue.record(Comment(rawValue: "\(message)\n\(trace)"))
    return false
}

/// A value as Swift source would spell it (strings quoted and escaped).
private func show<T>(_ value: T) -> String { String(reflecting: value) }

/// The UTF-8 bytes of a string.
private func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

/// The string of some UTF-8 bytes (always valid here).
private func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// Whether two strings have the same UTF-8 bytes.
private func sameBytes(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

/// Whether two optional integers are equal.
private func sameInt(_ a: Int?, _ b: Int?) -> Bool { a == b }

// MARK: - Random values

/// Strings that tend to break things: empty, NUL, combining marks (two spellings of "é"),
/// emoji and ZWJ sequences, astral-plane scalars, CR LF, case pairs, a long string.
private let edgeStrings: [String] = [
    "", "a", "A", "b", "ab", "aa", "z", "Z", " ", "é", "e\u{301}", "E\u{301}", "日本語", "🐶", "👨‍👩‍👧",
    "\u{0}", "a\u{0}b", "Ω", "𝄞", "\u{FFFD}", "\u{FEFF}", "ß", "ss", "İ", "ǅ", "\r\n", "\n", "\u{7F}",
    String(repeating: "long·", count: 80),
]

/// Scalars from which random short strings are built.
private let scalarAlphabet: [Unicode.Scalar] = ["a", "b", "é", "\u{301}", "日", "🐶", "\u{0}", " ", "Z", "\u{10FFFF}"]

/// A random string: an edge case, or a short random string of varied scalars.
private func randomString(_ rng: inout SeededRandom) -> String {
    if rng.percent(50) { return rng.pick(edgeStrings) }
    var result = String.UnicodeScalarView()
    for _ in 0..<rng.below(7) { result.append(rng.pick(scalarAlphabet)) }
    return String(result)
}

/// A random key from a small space, so that keys collide often.
private func randomKey(_ rng: inout SeededRandom) -> String {
    if rng.percent(50) { return rng.pick(edgeStrings) }
    var result = String.UnicodeScalarView()
    for _ in 0..<rng.below(3) { result.append(rng.pick(["a", "b", "é", "\u{301}", "🐶"] as [Unicode.Scalar])) }
    return String(result)
}

/// A random optional integer, often `nil` or an edge value.
private func randomOptionalInt(_ rng: inout SeededRandom) -> Int? {
    switch rng.below(10) {
    case 0, 1: return nil
    case 2: return Int.min
    case 3: return Int.max
    case 4: return rng.pick([0, -1, 1, Int.min + 1, Int.max - 1, Int(Int32.min), Int(UInt32.max)])
    case 5, 6: return rng.below(200) - 100
    default: return Int(truncatingIfNeeded: rng.next())
    }
}

/// A random double: never NaN nor -0.0; often an edge value.
private func randomDouble(_ rng: inout SeededRandom) -> Double {
    switch rng.below(8) {
    case 0:
        return rng.pick([
            0, 1, -1, 1.5, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, -.leastNormalMagnitude, .ulpOfOne, Double(Int.max), 0.1,
        ])
    case 1, 2, 3: return Double(rng.below(2001) - 1000) / 4
    default:
        while true {
            let value = Double(bitPattern: rng.next())
            if !value.isNaN && !(value == 0 && value.sign == .minus) { return value }
        }
    }
}

/// A few random elements.
private func randomElements<E>(_ rng: inout SeededRandom, upTo limit: Int, _ make: (inout SeededRandom) -> E) -> [E] {
    var elements: [E] = []
    for _ in 0..<rng.below(limit + 1) { elements.append(make(&rng)) }
    return elements
}

// MARK: - List operations

/// Applies one random operation to `list` and to `model` alike; returns its description and
/// whether the values it returned agreed.
private func randomListOp<E: CollectionElementType>(
    _ list: List<E>, _ model: inout [E], _ rng: inout SeededRandom, maxCount: Int = 60,
    same: (E, E) -> Bool, make: (inout SeededRandom) -> E
) -> (op: String, ok: Bool) {
    let count = model.count
    var roll = rng.below(100)
    if count == 0 {
        roll = rng.below(30)  // only operations that work on an empty list
    } else if count >= maxCount && roll < 30 {
        roll = 30 + rng.below(70)  // no growing operations on a long list
    }
    switch roll {
    case 0..<12:
        let element = make(&rng)
        list.append(element)
        model.append(element)
        return ("append(\(show(element)))", true)
    case 12..<20:
        let i = rng.below(count + 1)
        let element = make(&rng)
        list.insert(element, at: i)
        model.insert(element, at: i)
        return ("insert(\(show(element)), at: \(i))", true)
    case 20..<26:
        let elements = randomElements(&rng, upTo: 4, make)
        list.append(contentsOf: elements)
        model.append(contentsOf: elements)
        return ("append(contentsOf: \(show(elements)))", true)
    case 26..<30:
        let i = rng.below(count + 1)
        let elements = randomElements(&rng, upTo: 4, make)
        list.insert(contentsOf: elements, at: i)
        model.insert(contentsOf: elements, at: i)
        return ("insert(contentsOf: \(show(elements)), at: \(i))", true)
    case 30..<45:
        let i = rng.below(count)
        let removed = list.remove(at: i)
        let expected = model.remove(at: i)
        return ("remove(at: \(i)) -> \(show(removed)) (expected \(show(expected)))", same(removed, expected))
    case 45..<55:
        let from = rng.below(count)
        let to = rng.below(count)
        list.move(from: from, to: to)
        model.insert(model.remove(at: from), at: to)
        return ("move(from: \(from), to: \(to))", true)
    case 55..<65:
        let i = rng.below(count)
        let j = rng.percent(10) ? i : rng.below(count)
        list.swapAt(i, j)
        model.swapAt(i, j)
        return ("swapAt(\(i), \(j))", true)
    case 65..<77:
        let i = rng.below(count)
        let element = make(&rng)
        list[i] = element
        model[i] = element
        return ("[\(i)] = \(show(element))", true)
    case 77..<84:
        let removed = list.removeLast()
        let expected = model.removeLast()
        return ("removeLast() -> \(show(removed)) (expected \(show(expected)))", same(removed, expected))
    case 84..<94:
        let lower = rng.below(count + 1)
        let upper = lower + rng.below(count - lower + 1)
        let elements = randomElements(&rng, upTo: 4, make)
        list.replaceSubrange(lower..<upper, with: elements)
        model.replaceSubrange(lower..<upper, with: elements)
        return ("replaceSubrange(\(lower)..<\(upper), with: \(show(elements)))", true)
    case 94..<96:
        let lower = rng.below(count + 1)
        let upper = lower + rng.below(min(count - lower, 5) + 1)
        list.removeSubrange(lower..<upper)
        model.removeSubrange(lower..<upper)
        return ("removeSubrange(\(lower)..<\(upper))", true)
    case 96:
        let removed = list.removeFirst()
        let expected = model.removeFirst()
        return ("removeFirst() -> \(show(removed)) (expected \(show(expected)))", same(removed, expected))
    case 97:
        list.removeAll()
        model.removeAll()
        return ("removeAll()", true)
    default:
        let i = rng.below(count)
        let element = list[i]
        let first = list.first
        let last = list.last
        let ok = same(element, model[i]) && first.map { same($0, model[0]) } == true
            && last.map { same($0, model[count - 1]) } == true
        return ("read [\(i)] -> \(show(element)), first \(show(first)), last \(show(last))", ok)
    }
}

/// `nil` if `list` holds exactly `model` (count, every element, `isEmpty`), else what differs.
private func listMismatch<E: CollectionElementType>(_ list: List<E>, _ model: [E], same: (E, E) -> Bool) -> String? {
    let actual = Array(list)
    let count = list.count
    if count == model.count && actual.count == model.count && list.isEmpty == model.isEmpty
        && zip(actual, model).allSatisfy(same)
    {
        return nil
    }
    return "list is \(show(actual)) (count \(count)), expected \(show(model)) (count \(model.count))"
}

// MARK: - Set operations

/// Applies one random operation to `set` and to `model` (distinct UTF-8 byte strings in
/// insertion order); returns its description and whether the values it returned agreed.
private func randomSetOp(_ set: MutableSet<String>, _ model: inout [[UInt8]], _ rng: inout SeededRandom) -> (op: String, ok: Bool) {
    /// A key: usually a member when there are members.
    func someKey(_ rng: inout SeededRandom) -> String {
        if !model.isEmpty && rng.percent(50) { return string(rng.pick(model)) }
        return randomKey(&rng)
    }
    /// A few keys, members and others.
    func someKeys(_ rng: inout SeededRandom, upTo limit: Int) -> [String] {
        var keys: [String] = []
        for _ in 0..<rng.below(limit + 1) { keys.append(someKey(&rng)) }
        return keys
    }
    switch rng.below(100) {
    case 0..<30:
        let key = someKey(&rng)
        set.insert(key)
        if !model.contains(bytes(key)) { model.append(bytes(key)) }
        return ("insert(\(show(key)))", true)
    case 30..<50:
        let key = someKey(&rng)
        set.remove(key)
        model.removeAll { $0 == bytes(key) }
        return ("remove(\(show(key)))", true)
    case 50..<60:
        let keys = someKeys(&rng, upTo: 6)
        set.formUnion(keys)
        for key in keys where !model.contains(bytes(key)) { model.append(bytes(key)) }
        return ("formUnion(\(show(keys)))", true)
    case 60..<65:
        let keys = someKeys(&rng, upTo: 30)
        set.formIntersection(keys)
        let kept = Set(keys.map(bytes))
        model.removeAll { !kept.contains($0) }
        return ("formIntersection(\(show(keys)))", true)
    case 65..<72:
        let keys = someKeys(&rng, upTo: 5)
        set.subtract(keys)
        let removed = Set(keys.map(bytes))
        model.removeAll { removed.contains($0) }
        return ("subtract(\(show(keys)))", true)
    case 72:
        set.removeAll()
        model.removeAll()
        return ("removeAll()", true)
    case 73..<85:
        let key = someKey(&rng)
        let found = set.contains(key)
        let expected = model.contains(bytes(key))
        return ("contains(\(show(key))) -> \(found)", found == expected)
    case 85..<93:
        let keys = someKeys(&rng, upTo: 30)
        let subset = set.isSubset(of: keys)
        let all = Set(keys.map(bytes))
        let expected = model.allSatisfy { all.contains($0) }
        return ("isSubset(of: \(show(keys))) -> \(subset)", subset == expected)
    default:
        let keys = someKeys(&rng, upTo: 4)
        let intersects = set.intersects(keys)
        let expected = keys.contains { model.contains(bytes($0)) }
        return ("intersects(\(show(keys))) -> \(intersects)", intersects == expected)
    }
}

/// `nil` if `set` holds exactly the members of `model`, else what differs. Also checks the
/// documented insertion order and `contains` for every member.
private func setMismatch(_ set: MutableSet<String>, _ model: [[UInt8]]) -> String? {
    let actual = set.map(bytes)
    let count = set.count
    guard count == model.count, actual.count == model.count, Set(actual) == Set(model) else {
        return "set is \(show(actual.map(string))) (count \(count)), expected \(show(model.map(string))) in any order"
    }
    guard actual == model else {
        return "set order is \(show(actual.map(string))), expected insertion order \(show(model.map(string)))"
    }
    if let missing = model.first(where: { !set.contains(string($0)) }) {
        return "set.contains(\(show(string(missing)))) is false"
    }
    return nil
}

// MARK: - Map operations

/// How merges combine an existing value with a new one (none can make NaN).
private let combiners: [(String, @Sendable (Double, Double) -> Double)] = [
    ("new", { _, new in new }), ("old", { old, _ in old }), ("max", { Swift.max($0, $1) }), ("min", { Swift.min($0, $1) }),
]

/// Applies one random operation to `map` and to `model` (keyed by UTF-8 bytes); returns its
/// description and whether the values it returned agreed.
private func randomMapOp(_ map: Map<String, Double>, _ model: inout [[UInt8]: Double], _ rng: inout SeededRandom) -> (op: String, ok: Bool) {
    /// A key: usually present when there are entries.
    func someKey(_ rng: inout SeededRandom) -> String {
        if !model.isEmpty && rng.percent(50) { return string(rng.pick(Array(model.keys))) }
        return randomKey(&rng)
    }
    /// Whether two optional doubles have the same bits.
    func same(_ a: Double?, _ b: Double?) -> Bool { a?.bitPattern == b?.bitPattern }
    switch rng.below(100) {
    case 0..<25:
        let key = someKey(&rng)
        let value = randomDouble(&rng)
        map[key] = value
        model[bytes(key)] = value
        return ("[\(show(key))] = \(value)", true)
    case 25..<35:
        let key = someKey(&rng)
        map[key] = nil
        model[bytes(key)] = nil
        return ("[\(show(key))] = nil", true)
    case 35..<50:
        let key = someKey(&rng)
        let value = randomDouble(&rng)
        let old = map.updateValue(value, forKey: key)
        let expected = model.updateValue(value, forKey: bytes(key))
        return ("updateValue(\(value), forKey: \(show(key))) -> \(show(old))", same(old, expected))
    case 50..<62:
        let key = someKey(&rng)
        let old = map.removeValue(forKey: key)
        let expected = model.removeValue(forKey: bytes(key))
        return ("removeValue(forKey: \(show(key))) -> \(show(old))", same(old, expected))
    case 62..<68:
        // A sequence of pairs may repeat a key; each is combined in turn, as Dictionary does.
        var pairs: [(key: String, value: Double)] = []
        for _ in 0..<rng.below(5) { pairs.append((someKey(&rng), randomDouble(&rng))) }
        let (name, combine) = rng.pick(combiners)
        map.merge(pairs, uniquingKeysWith: combine)
        for (key, value) in pairs { model[bytes(key)] = model[bytes(key)].map { combine($0, value) } ?? value }
        return ("merge(\(show(pairs)), \(name))", true)
    case 68..<72:
        var dictionary: [String: Double] = [:]
        for _ in 0..<rng.below(5) { dictionary[someKey(&rng)] = randomDouble(&rng) }
        let (name, combine) = rng.pick(combiners)
        map.merge(dictionary, uniquingKeysWith: combine)
        for (key, value) in dictionary { model[bytes(key)] = model[bytes(key)].map { combine($0, value) } ?? value }
        return ("merge(\(show(dictionary)), \(name))", true)
    case 72:
        map.removeAll()
        model.removeAll()
        return ("removeAll()", true)
    case 73..<90:
        let key = someKey(&rng)
        let value = map[key]
        return ("[\(show(key))] -> \(show(value))", same(value, model[bytes(key)]))
    default:
        guard !model.isEmpty else { return ("isEmpty -> \(map.isEmpty)", map.isEmpty) }
        let sorted = model.keys.sorted { $0.lexicographicallyPrecedes($1) }
        let i = rng.below(sorted.count)
        let entry = map[i]
        return ("[\(i)] -> \(show(entry))", bytes(entry.key) == sorted[i] && same(entry.value, model[sorted[i]]))
    }
}

/// `nil` if `map` holds exactly the entries of `model`, in UTF-8 key order, else what differs.
private func mapMismatch(_ map: Map<String, Double>, _ model: [[UInt8]: Double], _ rng: inout SeededRandom) -> String? {
    let entries = map.map { (key: bytes($0.key), value: $0.value.bitPattern) }
    let expected = model.map { (key: $0.key, value: $0.value.bitPattern) }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
    let count = map.count
    guard count == model.count, entries.count == expected.count,
        zip(entries, expected).allSatisfy({ $0.key == $1.key && $0.value == $1.value })
    else {
        return "map is \(show(map.map { ($0.key, $0.value) })) (count \(count)), expected "
            + show(expected.map { (string($0.key), Double(bitPattern: $0.value)) })
    }
    let keys = map.keys
    guard keys.map(bytes) == keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).map(bytes) else {
        return "map.keys \(show(keys)) are not in UTF-8 order"
    }
    guard map.values.map(\.bitPattern) == expected.map(\.value) else { return "map.values are \(show(map.values))" }
    // Lookups of present and absent keys.
    for _ in 0..<6 {
        let key = rng.percent(50) && !model.isEmpty ? string(rng.pick(Array(model.keys))) : randomKey(&rng)
        if map[key]?.bitPattern != model[bytes(key)]?.bitPattern {
            return "map[\(show(key))] is \(show(map[key])), expected \(show(model[bytes(key)]))"
        }
    }
    return nil
}

// MARK: - Pets

/// The pets and owners of a pet-list run.
private struct PetModel {
    /// Pet ids in each owner's `pets`, by owner id.
    var lists: [Int: [Int]] = [1: [], 2: []]
    /// Every stored pet's id.
    var stored: [Int] = []
    /// The id the next new pet gets.
    var nextID = 100
}

/// Applies one random operation to the pets of a random owner and to `model`; returns its
/// description and whether the values it returned agreed.
private func randomPetOp(_ db: Database, _ model: inout PetModel, _ rng: inout SeededRandom) -> (op: String, ok: Bool) {
    let ownerID = rng.below(2) + 1
    guard let owner = db.object(ofType: Owner.self, forPrimaryKey: ownerID) else { return ("owner \(ownerID) is missing", false) }
    let list = owner.pets
    var ids = model.lists[ownerID]!
    defer { model.lists[ownerID] = ids }
    /// A stored pet, from the first few so that pets repeat.
    func existing(_ rng: inout SeededRandom) -> Pet {
        let id = rng.pick(Array(model.stored.prefix(12)) + [rng.pick(model.stored)])
        return db.object(ofType: Pet.self, forPrimaryKey: id)!
    }
    /// A new, unmanaged pet.
    func fresh() -> Pet {
        let pet = Pet()
        pet.id = model.nextID
        pet.name = "pet \(model.nextID)"
        model.nextID += 1
        model.stored.append(pet.id)
        return pet
    }
    let count = ids.count
    var roll = rng.below(100)
    if count == 0 {
        roll = rng.below(30)
    } else if count >= 40 && roll < 30 {
        roll = 30 + rng.below(70)
    }
    let prefix = "owner \(ownerID): "
    switch roll {
    case 0..<12:
        let pet = existing(&rng)
        list.append(pet)
        ids.append(pet.id)
        return (prefix + "append(stored \(pet.id))", true)
    case 12..<16:
        let pet = fresh()
        list.append(pet)
        ids.append(pet.id)
        return (prefix + "append(new \(pet.id))", true)
    case 16..<19:
        // The same unmanaged instance twice, and a stored pet.
        let pet = fresh()
        let other = existing(&rng)
        list.append(contentsOf: [pet, other, pet])
        ids += [pet.id, other.id, pet.id]
        return (prefix + "append(contentsOf: [new \(pet.id), stored \(other.id), same new \(pet.id)])", true)
    case 19..<26:
        let i = rng.below(count + 1)
        let pet = rng.percent(20) ? fresh() : existing(&rng)
        list.insert(pet, at: i)
        ids.insert(pet.id, at: i)
        return (prefix + "insert(\(pet.id), at: \(i))", true)
    case 26..<30:
        let i = rng.below(count + 1)
        let pets = [existing(&rng), existing(&rng)]
        list.replaceSubrange(i..<i, with: pets)
        ids.replaceSubrange(i..<i, with: pets.map(\.id))
        return (prefix + "replaceSubrange(\(i)..<\(i), with: \(pets.map(\.id)))", true)
    case 30..<46:
        let i = rng.below(count)
        let removed = list.remove(at: i).id
        let expected = ids.remove(at: i)
        return (prefix + "remove(at: \(i)) -> \(removed)", removed == expected)
    case 46..<58:
        let from = rng.below(count)
        let to = rng.below(count)
        list.move(from: from, to: to)
        ids.insert(ids.remove(at: from), at: to)
        return (prefix + "move(from: \(from), to: \(to))", true)
    case 58..<66:
        let i = rng.below(count)
        let j = rng.below(count)
        list.swapAt(i, j)
        ids.swapAt(i, j)
        return (prefix + "swapAt(\(i), \(j))", true)
    case 66..<76:
        let i = rng.below(count)
        let pet = existing(&rng)
        list[i] = pet
        ids[i] = pet.id
        return (prefix + "[\(i)] = \(pet.id)", true)
    case 76..<84:
        let removed = list.removeLast().id
        let expected = ids.removeLast()
        return (prefix + "removeLast() -> \(removed)", removed == expected)
    case 84..<94:
        let lower = rng.below(count + 1)
        let upper = lower + rng.below(min(count - lower, 4) + 1)
        let pets = (0..<rng.below(3)).map { _ in existing(&rng) }
        list.replaceSubrange(lower..<upper, with: pets)
        ids.replaceSubrange(lower..<upper, with: pets.map(\.id))
        return (prefix + "replaceSubrange(\(lower)..<\(upper), with: \(pets.map(\.id)))", true)
    case 94:
        list.removeAll()
        ids.removeAll()
        return (prefix + "removeAll()", true)
    default:
        let i = rng.below(count)
        let id = list[i].id
        return (prefix + "read [\(i)] -> \(id)", id == ids[i])
    }
}

/// `nil` if every owner's pets are the model's, else what differs.
private func petListMismatch(_ db: Database, _ model: PetModel) -> String? {
    for (ownerID, ids) in model.lists.sorted(by: { $0.key < $1.key }) {
        guard let owner = db.object(ofType: Owner.self, forPrimaryKey: ownerID) else { return "owner \(ownerID) is missing" }
        let actual = owner.pets.map(\.id)
        if actual != ids || owner.pets.count != ids.count {
            return "owner \(ownerID) pets are \(actual) (count \(owner.pets.count)), expected \(ids)"
        }
    }
    return nil
}

/// `nil` if the stored pets are the model's and each pet's `owners` lists exactly the owners
/// whose model list holds it, once per entry of the list (Realm's linking objects); else what
/// differs.
private func linkingMismatch(_ db: Database, _ model: PetModel) -> String? {
    let stored = db.objects(Pet.self).map(\.id).sorted()
    guard stored == model.stored.sorted() else { return "stored pets are \(stored), expected \(model.stored.sorted())" }
    for id in model.stored {
        guard let pet = db.object(ofType: Pet.self, forPrimaryKey: id) else { return "pet \(id) is missing" }
        let owners = pet.owners.map(\.id)
        let expected = model.lists.keys.sorted().flatMap { owner in
            Array(repeating: owner, count: model.lists[owner, default: []].filter { $0 == id }.count)
        }
        if owners.sorted() != expected || pet.owners.count != expected.count {
            return "pet \(id).owners is \(owners), expected \(expected) (once per link)"
        }
    }
    return nil
}

// MARK: - Tests

struct CollectionDifferentialTests {
    let directory = TemporaryDirectory()

    /// Opens the test database on the directory's file.
    func open() throws -> Database { try directory.open([Owner.self]) }

    /// Applies `ops` operations to an unmanaged owner's collection, then adds the owner and
    /// reopens the database, checking against the model after every step.
    fileprivate func unmanagedRun<Model>(
        seed: UInt64, ops: Int, initial: Model,
        step: (Owner, inout Model, inout SeededRandom) -> (op: String, ok: Bool),
        mismatch: (Owner, Model, inout SeededRandom) -> String?
    ) throws {
        var rng = SeededRandom(seed: seed)
        var trace = OpTrace(seed: seed)
        var model = initial
        do {
            let owner = Owner()
            owner.id = 1
            for _ in 0..<ops {
                let (op, ok) = step(owner, &model, &rng)
                trace.add(op)
                guard ok || fail("unmanaged: returned value differs", trace) else { return }
                if let problem = mismatch(owner, model, &rng) { _ = fail("unmanaged: \(problem)", trace); return }
            }
            let db = try open()
            try db.write { try db.add(owner) }
            if let problem = mismatch(owner, model, &rng) { _ = fail("after add: \(problem)", trace); return }
        }
        let db = try open()
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        if let problem = mismatch(owner, model, &rng) { _ = fail("after reopen: \(problem)", trace); return }
    }

    /// Applies `ops` operations to a managed owner's collection in write transactions of
    /// about 200 operations (every fifth one cancelled), reopening the database halfway and at
    /// the end, checking against the model after every operation, commit, cancel and reopen.
    fileprivate func managedRun<Model>(
        seed: UInt64, ops: Int, initial: Model,
        step: (Owner, inout Model, inout SeededRandom) -> (op: String, ok: Bool),
        mismatch: (Owner, Model, inout SeededRandom) -> String?
    ) throws {
        var rng = SeededRandom(seed: seed)
        var trace = OpTrace(seed: seed)
        var model = initial
        // An unmanaged start, then added.
        do {
            let db = try open()
            let owner = Owner()
            owner.id = 1
            for _ in 0..<20 { trace.add("unmanaged " + step(owner, &model, &rng).op) }
            let pet = Pet()
            pet.id = 1
            try db.write { try db.add([owner]); try db.add(pet) }
            if let problem = mismatch(owner, model, &rng) { _ = fail("after add: \(problem)", trace); return }
            guard try managedBatches(db, ops: ops / 2, &model, &rng, &trace, step, mismatch) else { return }
        }
        do {
            let db = try open()
            let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
            if let problem = mismatch(owner, model, &rng) { _ = fail("after reopen: \(problem)", trace); return }
            guard try managedBatches(db, ops: ops - ops / 2, &model, &rng, &trace, step, mismatch) else { return }
        }
        let db = try open()
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        if let problem = mismatch(owner, model, &rng) { _ = fail("after second reopen: \(problem)", trace); return }
    }

    /// Runs `ops` operations on owner 1 of `db` in write transactions; `false` after a failure.
    fileprivate func managedBatches<Model>(
        _ db: Database, ops: Int, _ model: inout Model, _ rng: inout SeededRandom, _ trace: inout OpTrace,
        _ step: (Owner, inout Model, inout SeededRandom) -> (op: String, ok: Bool),
        _ mismatch: (Owner, Model, inout SeededRandom) -> String?
    ) throws -> Bool {
        let held = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        var done = 0
        var batch = 0
        while done < ops {
            let size = min(ops - done, 100 + rng.below(201))
            let cancelled = batch % 5 == 3
            batch += 1
            done += size
            /// One transaction's operations, on the held owner or a freshly read one; occasionally
            /// flushes the pending collections by reading linking objects.
            func run(_ model: inout Model) -> Bool {
                for _ in 0..<size {
                    let owner = rng.percent(70) ? held : db.object(ofType: Owner.self, forPrimaryKey: 1)!
                    let (op, ok) = step(owner, &model, &rng)
                    trace.add(op)
                    guard ok || fail("in write: returned value differs", trace) else { return false }
                    if rng.percent(3) {
                        // Writes the pending collections back into their rows.
                        _ = db.object(ofType: Pet.self, forPrimaryKey: 1)?.owners.count
                        trace.add("(flush via pet.owners)")
                    }
                    let reader = rng.percent(70) ? held : db.object(ofType: Owner.self, forPrimaryKey: 1)!
                    if let problem = mismatch(reader, model, &rng) { return fail("in write: \(problem)", trace) }
                }
                return true
            }
            if cancelled {
                var scratch = model
                db.beginWrite()
                let ok = run(&scratch)
                db.cancelWrite()
                trace.add("cancelWrite()")
                guard ok else { return false }
            } else {
                var ok = true
                try db.write { ok = run(&model) }
                trace.add("commit")
                guard ok else { return false }
            }
            if let problem = mismatch(held, model, &rng) { return fail("after \(cancelled ? "cancel" : "commit"): \(problem)", trace) }
        }
        return true
    }

    // MARK: List<Int?>

    /// `List<Int?>` (nil, Int.min, Int.max) of an unmanaged owner matches `[Int?]`.
    @Test func optionalIntListUnmanaged() throws {
        try unmanagedRun(
            seed: 0x1001, ops: 3_000, initial: [Int?](),
            step: { randomListOp($0.numbers, &$1, &$2, same: sameInt, make: randomOptionalInt) },
            mismatch: { owner, model, _ in listMismatch(owner.numbers, model, same: sameInt) })
    }

    /// `List<Int?>` of a managed owner matches `[Int?]` in, after and across transactions and reopens.
    @Test func optionalIntListManaged() throws {
        try managedRun(
            seed: 0x1002, ops: 3_000, initial: [Int?](),
            step: { randomListOp($0.numbers, &$1, &$2, same: sameInt, make: randomOptionalInt) },
            mismatch: { owner, model, _ in listMismatch(owner.numbers, model, same: sameInt) })
    }

    // MARK: List<String>

    /// `List<String>` (Unicode, empty, NUL) of an unmanaged owner matches `[String]` bytewise.
    @Test func stringListUnmanaged() throws {
        try unmanagedRun(
            seed: 0x2001, ops: 3_000, initial: [String](),
            step: { randomListOp($0.tags, &$1, &$2, same: sameBytes, make: randomString) },
            mismatch: { owner, model, _ in listMismatch(owner.tags, model, same: sameBytes) })
    }

    /// `List<String>` of a managed owner matches `[String]` bytewise across transactions and reopens.
    @Test func stringListManaged() throws {
        try managedRun(
            seed: 0x2002, ops: 3_000, initial: [String](),
            step: { randomListOp($0.tags, &$1, &$2, same: sameBytes, make: randomString) },
            mismatch: { owner, model, _ in listMismatch(owner.tags, model, same: sameBytes) })
    }

    // MARK: MutableSet<String>

    /// `MutableSet<String>` of an unmanaged owner matches a set of UTF-8 byte strings.
    @Test func stringSetUnmanaged() throws {
        try unmanagedRun(
            seed: 0x3001, ops: 3_000, initial: [[UInt8]](),
            step: { randomSetOp($0.nicknames, &$1, &$2) },
            mismatch: { owner, model, _ in setMismatch(owner.nicknames, model) })
    }

    /// `MutableSet<String>` of a managed owner matches a set of byte strings across transactions and reopens.
    @Test func stringSetManaged() throws {
        try managedRun(
            seed: 0x3002, ops: 3_000, initial: [[UInt8]](),
            step: { randomSetOp($0.nicknames, &$1, &$2) },
            mismatch: { owner, model, _ in setMismatch(owner.nicknames, model) })
    }

    // MARK: Map<String, Double>

    /// `Map<String, Double>` of an unmanaged owner matches a dictionary, in UTF-8 key order.
    @Test func doubleMapUnmanaged() throws {
        try unmanagedRun(
            seed: 0x4001, ops: 3_000, initial: [[UInt8]: Double](),
            step: { randomMapOp($0.scores, &$1, &$2) },
            mismatch: { owner, model, rng in mapMismatch(owner.scores, model, &rng) })
    }

    /// `Map<String, Double>` of a managed owner matches a dictionary across transactions and reopens.
    @Test func doubleMapManaged() throws {
        try managedRun(
            seed: 0x4002, ops: 3_000, initial: [[UInt8]: Double](),
            step: { randomMapOp($0.scores, &$1, &$2) },
            mismatch: { owner, model, rng in mapMismatch(owner.scores, model, &rng) })
    }

    // MARK: List<Pet>

    /// Two managed owners' `List<Pet>` match arrays of pet ids (stored and new pets, repeats),
    /// and every pet's `owners` lists exactly the owners holding it, across commits, cancels and reopens.
    @Test func petListManaged() throws {
        let seed: UInt64 = 0x5001
        var rng = SeededRandom(seed: seed)
        var trace = OpTrace(seed: seed)
        var model = PetModel()
        /// Runs `ops` operations in transactions of about 200 (every fifth cancelled); `false` after a failure.
        func batches(_ db: Database, ops: Int) throws -> Bool {
            var done = 0
            var batch = 0
            while done < ops {
                let size = min(ops - done, 100 + rng.below(201))
                let cancelled = batch % 5 == 2
                batch += 1
                done += size
                let before = model
                var ok = true
                /// One transaction's operations.
                func run() {
                    for _ in 0..<size {
                        let (op, same) = randomPetOp(db, &model, &rng)
                        trace.add(op)
                        if !same { ok = fail("in write: returned value differs", trace); return }
                        if let problem = petListMismatch(db, model) { ok = fail("in write: \(problem)", trace); return }
                        if rng.percent(8), let problem = linkingMismatch(db, model) {
                            ok = fail("in write: \(problem)", trace)
                            return
                        }
                    }
                }
                if cancelled {
                    db.beginWrite()
                    run()
                    db.cancelWrite()
                    trace.add("cancelWrite()")
                    model = before
                } else {
                    try db.write { run() }
                    trace.add("commit")
                }
                guard ok else { return false }
                if let problem = petListMismatch(db, model) ?? linkingMismatch(db, model) {
                    return fail("after \(cancelled ? "cancel" : "commit"): \(problem)", trace)
                }
            }
            return true
        }
        do {
            let db = try open()
            try db.write {
                for ownerID in 1...2 {
                    let owner = Owner()
                    owner.id = ownerID
                    try db.add(owner)
                }
                for id in 1...8 {
                    let pet = Pet()
                    pet.id = id
                    try db.add(pet)
                    model.stored.append(id)
                }
            }
            guard try batches(db, ops: 1_200) else { return }
        }
        do {
            let db = try open()
            if let problem = petListMismatch(db, model) ?? linkingMismatch(db, model) {
                _ = fail("after reopen: \(problem)", trace)
                return
            }
            guard try batches(db, ops: 1_200) else { return }
        }
        let db = try open()
        if let problem = petListMismatch(db, model) ?? linkingMismatch(db, model) {
            _ = fail("after second reopen: \(problem)", trace)
        }
    }

    /// An unmanaged owner's `List<Pet>` of unmanaged pets (repeated instances) matches an array of
    /// ids; adding the owner stores each listed pet once, and `owners` finds the owner once per entry.
    @Test func petListUnmanaged() throws {
        let seed: UInt64 = 0x5002
        var rng = SeededRandom(seed: seed)
        var trace = OpTrace(seed: seed)
        let pool = (100..<112).map { id -> Pet in
            let pet = Pet()
            pet.id = id
            return pet
        }
        var model: [Int] = []
        let ownerID = 7
        do {
            let owner = Owner()
            owner.id = ownerID
            for _ in 0..<1_500 {
                let list = owner.pets
                let count = model.count
                var roll = rng.below(100)
                if count == 0 { roll = rng.below(25) } else if count >= 40 && roll < 25 { roll = 25 + rng.below(75) }
                switch roll {
                case 0..<15:
                    let pet = rng.pick(pool)
                    list.append(pet)
                    model.append(pet.id)
                    trace.add("append(\(pet.id))")
                case 15..<25:
                    let pet = rng.pick(pool)
                    let i = rng.below(count + 1)
                    list.insert(pet, at: i)
                    model.insert(pet.id, at: i)
                    trace.add("insert(\(pet.id), at: \(i))")
                case 25..<45:
                    let i = rng.below(count)
                    let removed = list.remove(at: i).id
                    trace.add("remove(at: \(i)) -> \(removed)")
                    guard removed == model.remove(at: i) || fail("returned value differs", trace) else { return }
                case 45..<60:
                    let from = rng.below(count)
                    let to = rng.below(count)
                    list.move(from: from, to: to)
                    model.insert(model.remove(at: from), at: to)
                    trace.add("move(from: \(from), to: \(to))")
                case 60..<72:
                    let i = rng.below(count)
                    let j = rng.below(count)
                    list.swapAt(i, j)
                    model.swapAt(i, j)
                    trace.add("swapAt(\(i), \(j))")
                case 72..<84:
                    let i = rng.below(count)
                    let pet = rng.pick(pool)
                    list[i] = pet
                    model[i] = pet.id
                    trace.add("[\(i)] = \(pet.id)")
                case 84..<94:
                    let removed = list.removeLast().id
                    trace.add("removeLast() -> \(removed)")
                    guard removed == model.removeLast() || fail("returned value differs", trace) else { return }
                case 94:
                    list.removeAll()
                    model.removeAll()
                    trace.add("removeAll()")
                default:
                    let i = rng.below(count)
                    let pets = [rng.pick(pool), rng.pick(pool)]
                    list.replaceSubrange(i..<min(i + 2, count), with: pets)
                    model.replaceSubrange(i..<min(i + 2, count), with: pets.map(\.id))
                    trace.add("replaceSubrange(\(i)..<\(min(i + 2, count)), with: \(pets.map(\.id)))")
                }
                let actual = owner.pets.map(\.id)
                guard actual == model || fail("unmanaged: pets are \(actual), expected \(model)", trace) else { return }
            }
            let db = try open()
            try db.write { try db.add(owner) }
            let actual = owner.pets.map(\.id)
            guard actual == model || fail("after add: pets are \(actual), expected \(model)", trace) else { return }
        }
        let db = try open()
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: ownerID))
        let actual = owner.pets.map(\.id)
        guard actual == model || fail("after reopen: pets are \(actual), expected \(model)", trace) else { return }
        // Only the pets listed at add time were stored, each once, each linking back to the owner
        // once per entry of the list.
        let listed = Set(model).sorted()
        #expect(db.objects(Pet.self).map(\.id).sorted() == listed, "\(trace)")
        for id in listed {
            let pet = try #require(db.object(ofType: Pet.self, forPrimaryKey: id))
            let links = model.filter { $0 == id }.count
            #expect(pet.owners.map(\.id) == Array(repeating: ownerID, count: links), "pet \(id)")
        }
    }
}
