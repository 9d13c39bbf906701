/// An object read without its model class, by class name: what migrations, tools such as the
/// `objdb` command, and code that does not know the classes use.
///
/// ```swift
/// for person in db.dynamicObjects("Person").where("age > 30") {
///     print(person.name as? String ?? "", person["age"] as? Int ?? 0)
/// }
/// ```
///
/// Properties are read by name (``ObjectBase/subscript(_:)``, ``ObjectBase/value(forKey:)``
/// or dynamic member lookup) as `Any?`: values as their Swift types (enums as raw values),
/// links as `DynamicObject`s, lists and sets as `[Any?]`, maps as `[String: Any?]`.
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// The property `name`, as `Any?`; an unknown name is a programmer error.
    public subscript(dynamicMember name: String) -> Any? {
        get { self[name] }
        set { self[name] = newValue }
    }

    /// The stored class this object belongs to.
    public var className: String { _objdbInfo?.name ?? Self.className }
}

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
        Results(database: self, query: ResultsQuery(className: className))
    }
}
