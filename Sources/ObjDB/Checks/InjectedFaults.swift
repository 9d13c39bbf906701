import Foundation

/// Tests only: faults injected on purpose into the general test of queries (``QueryEvaluator``),
/// which is no fast path and so has no switch of its own, so that a test can see the internal
/// check that compares every query's answer with the reference interpreter
/// (``ReferenceInterpreter``) catch the wrong answers they give. Each fault breaks one of the
/// helpers the reference interpreter once shared with the general test: the comparison of two
/// values, a string operator, the walk along a key path, an aggregate.
///
/// Named in the environment variable `OBJDB_INJECT_FAULTS` (a comma-separated list), read once;
/// empty without internal checks, so release builds never read it.
struct InjectedFaults: OptionSet, Sendable {
    /// One bit per fault.
    let rawValue: UInt32

    /// The faults of the bits `rawValue`.
    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `CONTAINS[c]` compares without folding case.
    static let foldedContains = InjectedFaults(rawValue: 1 << 0)
    /// `<` holds for equal values too, as `<=` does.
    static let lessIsLessOrEqual = InjectedFaults(rawValue: 1 << 1)
    /// A key path through a list or set of objects skips the last object of it.
    static let listSkipsLastObject = InjectedFaults(rawValue: 1 << 2)
    /// `@sum` of integers is one too large.
    static let sumOffByOne = InjectedFaults(rawValue: 1 << 3)

    /// Every fault, with the name `OBJDB_INJECT_FAULTS` knows it by.
    static let named: [(name: String, fault: InjectedFaults)] = [
        ("foldedContains", .foldedContains), ("lessIsLessOrEqual", .lessIsLessOrEqual),
        ("listSkipsLastObject", .listSkipsLastObject), ("sumOffByOne", .sumOffByOne),
    ]

    /// The faults a comma-separated list of names names; unknown names are ignored.
    init(names list: String) {
        let names = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        self = InjectedFaults(Self.named.filter { names.contains($0.name) }.map(\.fault))
    }

    /// The faults `OBJDB_INJECT_FAULTS` names, read once; empty without internal checks.
    static let active: InjectedFaults = {
        #if OBJDB_INTERNAL_CHECKS
        guard internalChecksEnabled else { return [] }
        return ProcessInfo.processInfo.environment["OBJDB_INJECT_FAULTS"].map { InjectedFaults(names: $0) } ?? []
        #else
        return []
        #endif
    }()
}
