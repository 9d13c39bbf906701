import ObjDB

/// A class's download predicate split in two for the fan-out: the shape many views share — the
/// predicate with each operand replaced by a slot — and each view's own part, the slots'
/// values.
///
/// `owner == $user OR shared == true` is the template `owner == $#0 OR shared == $#1` for every
/// user, with the slots `#0 = "ann"`, `#1 = true` for ann's view. Subscriptions that differ
/// only in their constants (`owner == "ann"`, `owner == "bob"`) share a template too. The views
/// of one template are then selected together by ``FanoutSelector``, which looks equality
/// comparisons up by value instead of testing the row once per view.
struct FanoutTemplate: Hashable, Sendable {
    /// The predicate, its operands the variables `#0`, `#1`, … in the order they occur.
    let predicate: PortablePredicate

    /// Splits a view's predicate: the template, and the slots' values as the variables that
    /// bind it (`"#0"`, `"#1"`, …).
    /// - Returns: `nil` when the predicate uses a variable without a value in `variables` (it
    ///   selects nothing then, as ``PortablePredicate/matches(_:variables:)`` decides).
    static func split(_ predicate: PortablePredicate, variables: [String: SyncValue]) -> (FanoutTemplate, [String: SyncValue])? {
        var slots: [String: SyncValue] = [:]
        func slottedAll(_ operands: [PortablePredicate]) -> [PortablePredicate]? {
            var out: [PortablePredicate] = []
            for operand in operands {
                guard let t = slotted(operand) else { return nil }
                out.append(t)
            }
            return out
        }
        func slotted(_ p: PortablePredicate) -> PortablePredicate? {
            switch p {
            case .constant: return p
            case .and(let operands): return slottedAll(operands).map { .and($0) }
            case .or(let operands): return slottedAll(operands).map { .or($0) }
            case .not(let operand): return slotted(operand).map { .not($0) }
            case .comparison(var c):
                for (i, operand) in c.operands.enumerated() {
                    let value: SyncValue
                    switch operand {
                    case .value(let v): value = v
                    case .variable(let name):
                        guard let v = variables[name] else { return nil }
                        value = v
                    }
                    let slot = "#\(slots.count)"
                    slots[slot] = value
                    c.operands[i] = .variable(slot)
                }
                return .comparison(c)
            }
        }
        guard let template = slotted(predicate) else { return nil }
        return (FanoutTemplate(predicate: template), slots)
    }
}
