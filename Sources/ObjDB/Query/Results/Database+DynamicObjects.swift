extension Database {
    /// The objects of the class named `className`, without its model class.
    ///
    /// ```swift
    /// let people = db.dynamicObjects("Person")
    /// try people.filter("name BEGINSWITH 'A'").sorted(byKeyPath: "age")
    /// ```
    ///
    /// Filtering, sorting, distinct and aggregates by property name work as on typed results.
    /// A class the file does not have gives empty results; embedded classes are included (for
    /// tools).
    public func dynamicObjects(_ className: String) -> Results<DynamicObject> {
        Results(database: self, query: ResultsQuery(className: className, isDynamic: true))
    }
}
