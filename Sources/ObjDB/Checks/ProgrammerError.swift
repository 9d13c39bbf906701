/// Stops the program because ObjDB was used in a way its API does not allow: a programmer
/// error, such as a write outside a write transaction, as opposed to a problem with the
/// user's data (those throw an ``ObjDBError``).
///
/// The message goes to standard error as `ObjDB: <message>` in every build configuration.
/// Swift's `precondition` and `preconditionFailure` drop their messages in release builds
/// (only "precondition failure" remains), so ObjDB reports its programmer errors through this
/// function, which is built on `fatalError`, whose message is kept.
///
/// - Parameters:
///   - message: What was wrong, naming the class, property, key or call, and what to do.
@inline(never)
@usableFromInline
func objdbFatal(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("ObjDB: " + message, file: file, line: line)
}

/// Stops the program with `message` (see ``objdbFatal(_:file:line:)``) unless `condition` holds.
///
/// As cheap as `precondition` where the condition holds: the check is inlined and the message
/// is built only when it fails.
@inline(__always)
@usableFromInline
func objdbPrecondition(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if _slowPath(!condition()) { objdbFatal(message(), file: file, line: line) }
}
