/// The superclass of model classes whose objects live inside one parent object.
///
/// ```swift
/// final class Address: EmbeddedObject {
///     @Persisted var city: String = ""
/// }
///
/// final class Person: Object {
///     @Persisted var address: Address?            // owned by this person
///     @Persisted var previous: List<Address>      // owned through a list
/// }
/// ```
///
/// An embedded object has no primary key and cannot be queried on its own (`db.objects` takes
/// only ``Object`` subclasses). It is owned by exactly one parent, through a to-one, ``List`` or
/// ``Map`` property: it is deleted when the parent is deleted or stops pointing to it (for
/// example when a new object is assigned in its place). Assigning an embedded object that
/// already belongs to a parent is an error: assign a new, unmanaged one instead.
open class EmbeddedObject: ObjectBase {}
