import ObjDB

/// Models for the misuse cases.
public enum MisuseModels {
    /// A class stored under the name `Person` with other properties than
    /// `ObjDBTestModels.Person`: reading a file of the one with the other is a schema mismatch.
    public final class Person: Object {
        /// Not the stored primary key.
        @Persisted public var nickname: String = ""

        /// The stored class name it claims.
        public override class var className: String { "Person" }
    }
}
