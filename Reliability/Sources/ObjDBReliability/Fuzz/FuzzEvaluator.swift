import Foundation
@_spi(Implementation) import ObjDB
import ObjDBTestModels

/// How far one fuzzed predicate got.
enum FuzzOutcome: String, Sendable, CaseIterable {
    /// `filter` threw a syntax error (`Invalid predicate at position …`).
    case syntaxError = "syntax"
    /// It parsed, and binding to the schema threw (`Invalid query on …`).
    case bindError = "binding"
    /// It threw something other than `invalidQuery`.
    case otherError = "other"
    /// It was evaluated, and matched no object.
    case evaluatedEmpty = "empty"
    /// It was evaluated, and matched objects.
    case evaluatedMatching = "matching"
}

/// Runs one fuzzed predicate against the fuzz database: `filter`, then `count`, iteration,
/// `first`, sorts, `distinct`, aggregates.
struct FuzzEvaluator {
    let db: Database
    let schema: FuzzSchema

    func run(_ fuzzCase: FuzzCase, seed: UInt64) -> (FuzzOutcome, String?) {
        var rng = SeededRandom(seed: seed ^ 0xE7A1, index: UInt64(fuzzCase.index))
        let arguments = fuzzCase.arguments.map { $0.value(db) }
        do {
            let matched: Bool
            switch (fuzzCase.source, fuzzCase.className) {
            case (.dynamic, let name):
                matched = try evaluate(db.dynamicObjects(name), fuzzCase, arguments, &rng)
            case (.collection, "Pet"):
                guard let owner = db.objects(Owner.self).first(where: { $0.pets.count > 1 }) else { return (.otherError, "no owner with pets") }
                // A collection's `filter(_:_:)` takes variadic arguments; it filters its `_results`.
                let results = try owner.pets._results.filter(fuzzCase.text, argumentArray: arguments)
                matched = try evaluate(results, fuzzCase, nil, &rng)
            case (.collection, "Owner"):
                if rng.percent(50), let pet = db.objects(Pet.self).first(where: { !$0.owners.isEmpty }) {
                    matched = try evaluate(try pet.owners._results.filter(fuzzCase.text, argumentArray: arguments), fuzzCase, nil, &rng)
                } else if let owner = db.objects(Owner.self).first(where: { !$0.friends.isEmpty }) {
                    matched = try evaluate(try owner.friends._results.filter(fuzzCase.text, argumentArray: arguments), fuzzCase, nil, &rng)
                } else {
                    return (.otherError, "no owner with friends")
                }
            case (_, "Person"): matched = try evaluate(db.objects(Person.self), fuzzCase, arguments, &rng)
            case (_, "Owner"): matched = try evaluate(db.objects(Owner.self), fuzzCase, arguments, &rng)
            case (_, "Pet"): matched = try evaluate(db.objects(Pet.self), fuzzCase, arguments, &rng)
            case (_, "AllTypes"): matched = try evaluate(db.objects(AllTypes.self), fuzzCase, arguments, &rng)
            case (_, let name): matched = try evaluate(db.dynamicObjects(name), fuzzCase, arguments, &rng)
            }
            return (matched ? .evaluatedMatching : .evaluatedEmpty, nil)
        } catch let error as ObjDBError where error.code == .invalidQuery {
            return (error.message.hasPrefix("Invalid predicate") ? .syntaxError : .bindError, error.message)
        } catch {
            return (.otherError, "\(error)")
        }
    }

    /// Filters `base` with the case (unless `arguments` is `nil`: already filtered) and reads
    /// the results every way; returns whether anything matched.
    func evaluate<T: Object>(_ base: Results<T>, _ fuzzCase: FuzzCase, _ arguments: [Any?]?, _ rng: inout SeededRandom) throws -> Bool {
        var results = base
        if let arguments { results = try base.filter(fuzzCase.text, argumentArray: arguments) }
        if let chained = fuzzCase.chained { results = try results.filter(chained) }
        let count = results.count
        _ = results.isEmpty
        if let first = results.first { touch(first) }
        for object in results.prefix(30) { touch(object) }
        let sortable = schema.sortable(fuzzCase.className)
        if !sortable.isEmpty {
            let sorted = results.sorted(byKeyPath: rng.pick(sortable), ascending: rng.percent(50))
            for object in sorted.prefix(rng.pick([1, 5, 50])) { touch(object) }
            let twice = results.sorted(by: [
                SortDescriptor(keyPath: rng.pick(sortable), ascending: rng.percent(50)), SortDescriptor(keyPath: rng.pick(sortable)),
            ])
            _ = twice.first
            _ = results.distinct(by: [rng.pick(sortable)]).count
        }
        if count > 0 {
            let smallest: Int? = results.min(ofProperty: "id")
            let total: Int = results.sum(ofProperty: "id")
            _ = (smallest, total, results.average(ofProperty: "id"))
            if fuzzCase.className == "AllTypes" {
                let sum: Double = results.sum(ofProperty: "double")
                let latest: Date? = results.max(ofProperty: "date")
                _ = (sum, latest)
            }
        }
        return count > 0
    }

    /// Reads the object's first two properties.
    func touch(_ object: ObjectBase) {
        for property in object.objectSchema.properties.prefix(2) where !property.isComputed {
            _ = object[property.name]
        }
    }
}
