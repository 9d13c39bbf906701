extension PredicateBinder {
    /// Binds the subscripts that follow component `index` of `components` — the property of
    /// `step`, which reads values of `valueType` — into ``BoundPath/Step/nested``, and moves
    /// `index` to the last of them: `value[0]`, `value[FIRST]`, `value[LAST]`, `value['key']`,
    /// `value.key`, `value[*]` and chains of them, after a mixed value (a mixed property, or
    /// `map['key']` of a map of mixed values). Returns whether a `[*]` makes the path to-many.
    /// Throws for a subscript after anything else.
    func bindSubscripts(
        _ step: inout BoundPath.Step, at index: inout Int, _ components: [String], valueType: PropertyType, stepIsToMany: Bool,
        _ keyPath: QueryKeyPath
    ) throws -> Bool {
        let next = index + 1
        guard next < components.count else { return false }
        let isSubscript = QueryKeyPath.isListSubscript(components[next]) || components[next].hasPrefix(QueryKeyPath.mapKeyPrefix)
        guard valueType == .mixed, !stepIsToMany else {
            guard isSubscript else { return false }
            let what = stepIsToMany ? "a collection of \(valueType) (subscripts on list, set and map properties other than map['key'] are not supported)" : "\(valueType)"
            throw error(
                keyPath.position,
                "'\(keyPath)': a subscript such as [0], [FIRST], [LAST], [*] or ['key'] applies to a mixed value holding a list or "
                    + "dictionary, and '\(step.className).\(components[index])' holds \(what)")
        }
        var j = next
        while j < components.count, let selector = MixedSelector(component: components[j]) {
            step.nested.append(selector)
            j += 1
        }
        index = j - 1
        return step.nested.contains(.every)
    }

    /// Refuses `@count`/`@size` after `[*]`: it measures one value (`value.@size`,
    /// `value[2].@size`), not each element.
    func checkSizeTarget(_ path: BoundPath, _ aggregate: QueryAggregate, _ position: Int?) throws {
        guard aggregate == .count, path.steps.contains(where: { $0.nested.contains(.every) }) else { return }
        throw error(
            position,
            "'\(path.text).@size' is not supported: @size and @count measure one list, dictionary or string (value.@size, value[2].@size), "
                + "not each element after [*]")
    }
}
