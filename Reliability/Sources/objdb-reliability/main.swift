import Foundation
import ObjDBReliability

// objdb-reliability: the reliability harness, one command per attack (Docs/Reliability.md).
// Hidden commands starting with "_" are the attacks' child processes.

let arguments = Array(CommandLine.arguments.dropFirst())
if let command = arguments.first, WorkerCommands.names.contains(command) {
    exit(WorkerCommands.run(arguments))
}
exit(ReliabilityCommand.run(arguments))
