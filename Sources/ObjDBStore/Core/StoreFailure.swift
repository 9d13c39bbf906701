/// Stops the program because the Store was used in a way its API does not allow (a reducer
/// that dispatches, a subscriber of the wrong type): a programmer error.
///
/// Built on `fatalError`, whose message is kept in release builds (`precondition` drops it),
/// so the message — prefixed `ObjDBStore:` — always reaches standard error.
@inline(never)
func storeFatal(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("ObjDBStore: " + message, file: file, line: line)
}
