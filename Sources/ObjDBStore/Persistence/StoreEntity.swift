import ObjDB

/// A model class that stores the elements of a collection in a ``Store``'s state one object
/// per element, so that the app and `objdb` can query them, and a change to one element
/// writes one object.
///
/// ```swift
/// struct Todo: Identifiable, Codable, Equatable { var id: Int; var title: String; var done = false }
///
/// final class TodoObject: Object, StoreEntity {
///     @Persisted(primaryKey: true) var id: Int = 0
///     @Persisted var title: String = ""
///     @Persisted var done: Bool = false
///
///     var value: Todo { Todo(id: id, title: title, done: done) }
///     func update(from todo: Todo) { id = todo.id; title = todo.title; done = todo.done }
/// }
///
/// persistence: StorePersistence.database(db, key: "app").collection(\.todos, as: TodoObject.self)
/// ```
///
/// The class's primary key must be the element's `id`: ``update(from:)`` sets it.
public protocol StoreEntity: Object {
    /// The element type of the state's collection.
    associatedtype Value: Identifiable & Codable & Equatable where Value.ID: Codable

    /// The element this object stores.
    var value: Value { get }

    /// Copies `value` into this object, its primary key (`value.id`) included. Called on new,
    /// unmanaged objects only.
    func update(from value: Value)
}
