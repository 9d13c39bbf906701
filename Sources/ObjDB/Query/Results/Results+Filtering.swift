/// Building queries: filters, sorting, distinct and limits compose into one query.
extension Results {
    /// The results of the same source with `change` applied to the query.
    func with(_ change: (inout ResultsQuery) -> Void) -> Results<Element> {
        var query = self.query
        change(&query)
        return Results(database: database, query: query)
    }

    /// The objects that also match a predicate string in Realm's (NSPredicate) syntax.
    ///
    /// ```swift
    /// let adults = try people.filter("age >= %@ AND name BEGINSWITH[c] %@", 18, "a")
    /// let viaLink = try dogs.filter("owner.name == 'Ann'")
    /// let someRex = try people.filter("ANY dogs.name == $0", "Rex")
    /// ```
    ///
    /// See `Docs/Queries.md` for the grammar.
    ///
    /// - Throws: ``ObjDBError/Code/invalidQuery`` for a string that does not parse (naming the
    ///   position), an unknown property, a value of the wrong type, an operator the property's
    ///   type does not support, or a wrong number of arguments.
    public func filter(_ predicateFormat: String, _ arguments: Any?...) throws -> Results<Element> {
        try filter(predicateFormat, argumentArray: arguments)
    }

    /// ``filter(_:_:)`` with the arguments as an array.
    public func filter(_ predicateFormat: String, argumentArray arguments: [Any?]) throws -> Results<Element> {
        let (predicate, clauses) = try PredicateParser.parseQuery(predicateFormat, arguments: arguments)
        var results = with { $0.addFilter(predicate) }
        try results.checkPredicates()
        for clause in clauses {
            switch clause {
            case .sort(let keys):
                try results.checkOrderingKeyPaths(keys.map(\.keyPath), "SORT")
                results = results.with { $0.addSort(keys.map { SortDescriptor(keyPath: $0.keyPath, ascending: $0.ascending) }) }
            case .distinct(let keyPaths):
                try results.checkOrderingKeyPaths(keyPaths, "DISTINCT")
                results = results.with { $0.addDistinct(keyPaths) }
            case .limit(let count):
                results = results.with { $0.addLimit(count) }
            }
        }
        return results
    }

    /// Checks the key paths of a `SORT` or `DISTINCT` clause: known, and to-one.
    private func checkOrderingKeyPaths(_ keyPaths: [String], _ clause: String) throws {
        let binder = checkingBinder()
        for keyPath in keyPaths {
            let path = try binder.bindPath(QueryKeyPath(components: keyPath.split(separator: ".").map(String.init)))
            if path.isToMany {
                throw binder.error(nil, "\(clause)(\(keyPath)): '\(keyPath)' is to-many; sort and distinct need a property or a to-one link's property")
            }
        }
    }

    /// The objects that also match a predicate built with the ``Query`` DSL.
    ///
    /// ```swift
    /// let adults = people.where { $0.age >= 18 && $0.name.starts(with: "A") }
    /// let withRex = people.where { $0.dogs.name == "Rex" }       // ANY over a list
    /// ```
    ///
    /// A predicate the schema cannot evaluate (which the DSL's types mostly prevent) is a
    /// programmer error.
    public func `where`(_ build: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let predicate = build(Query<Element>(path: [])).predicate()
        let results = with { $0.addFilter(predicate) }
        do {
            try results.checkPredicates()
        } catch {
            objdbFatal("Results.where: \(error)")
        }
        return results
    }

    /// The results sorted by a property, given as a key path of the model.
    ///
    /// ```swift
    /// people.sorted(by: \.age, ascending: false)
    /// ```
    public func sorted<Value>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: KeyPathNames.require(keyPath, "sorted(by:)"), ascending: ascending)])
    }

    /// The results sorted by a property or a key path through to-one links (`"owner.name"`).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The results sorted by several keys, most significant first. Sorting is stable.
    ///
    /// Sorting by an unknown property, or by a to-many key path, is a programmer error.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        let descriptors = Array(descriptors)
        let binder = checkingBinder()
        for descriptor in descriptors {
            let path: BoundPath
            do {
                path = try binder.bindPath(QueryKeyPath(components: descriptor.keyPath.split(separator: ".").map(String.init)))
            } catch {
                objdbFatal("Results.sorted: \(error)")
            }
            objdbPrecondition(!path.isToMany, "Results.sorted: '\(descriptor.keyPath)' is to-many (a collection or linking objects); sort by a property or a to-one link's property")
        }
        return with {
            $0.sort = descriptors
            // A sort replaces the order of a search.
            $0.later.removeAll { if case .rank = $0 { true } else { false } }
        }
    }

    /// The first object of each distinct combination of the values of `keyPaths`.
    ///
    /// ```swift
    /// people.distinct(by: ["name"])
    /// ```
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        let names = Array(keyPaths)
        let binder = checkingBinder()
        for name in names {
            do {
                let path = try binder.bindPath(QueryKeyPath(components: name.split(separator: ".").map(String.init)))
                objdbPrecondition(!path.isToMany, "Results.distinct: '\(name)' is to-many")
            } catch {
                objdbFatal("Results.distinct: \(error)")
            }
        }
        return with { $0.distinct = names }
    }

    /// At most the first `maxLength` objects. Unsorted results stop evaluating after that many
    /// matches. The limit applies after filtering, sorting and distinct, whatever order the calls
    /// were chained in (a predicate string's `LIMIT(n) SORT(…)` clauses apply in their order).
    public func prefix(_ maxLength: Int) -> Results<Element> {
        objdbPrecondition(maxLength >= 0, "Results.prefix: the length \(maxLength) is negative")
        return with {
            // After a search, the limit keeps the most relevant.
            if $0.later.contains(where: { if case .rank = $0 { true } else { false } }) {
                $0.later.append(.limit(maxLength))
            } else {
                $0.limit = Swift.min($0.limit ?? .max, maxLength)
            }
        }
    }
}
