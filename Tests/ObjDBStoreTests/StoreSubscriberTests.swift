import Testing
import ObjDBStore

/// Selecting parts of the state, skipping repeats, `skip(when:)` and `only(when:)` (ReSwift's
/// `StoreSubscriberTests` and `AutomaticallySkipRepeatsTests`). ReSwift runs each case with a
/// selector closure and with a key path; both forms are arguments here.
@MainActor
struct StoreSubscriberTests {
    // ReSwift: testAllowsSelectorClosure / testAllowsSelectorKeyPath.
    @Test(arguments: [false, true])
    func selectsASubstate(byKeyPath: Bool) {
        let store = Store(reducer: testReducer, state: TestAppState())
        let subscriber = TestFilteredSubscriber<Int?>()
        store.subscribe(subscriber) { byKeyPath ? $0.select(\.testValue) : $0.select { $0.testValue } }
        store.dispatch(SetValueAction(value: 3))
        #expect(subscriber.receivedValue == 3)
        store.dispatch(SetValueAction(value: nil))
        #expect(subscriber.receivedValue == .some(.none))
        #expect(subscriber.newStateCallCount == 3)
    }

    // ReSwift: testComplexStateSelector — a tuple selection (not Equatable: no skipping).
    @Test func selectsATuple() {
        struct Other { var name: String?; var age: Int? }
        struct Complex { var testValue: Int?; var other: Other? }
        struct SetOther: Action { var other: Other }
        let store = Store(reducer: { (action: any Action, state: Complex) in
            var state = state
            if let set = action as? SetValueAction { state.testValue = set.value }
            if let set = action as? SetOther { state.other = set.other }
            return state
        }, state: Complex())
        let subscriber = TestFilteredSubscriber<(Int?, String?)>()
        store.subscribe(subscriber) { $0.select { ($0.testValue, $0.other?.name) } }
        store.dispatch(SetValueAction(value: 5))
        store.dispatch(SetOther(other: Other(name: "TestName", age: 99)))
        #expect(subscriber.receivedValue?.0 == 5)
        #expect(subscriber.receivedValue?.1 == "TestName")
        #expect(subscriber.newStateCallCount == 3)
    }

    // ReSwift: testUnchangedStateWithRegularSubstateSelection / …WithKeyPath.
    @Test(arguments: [false, true])
    func customSkipRepeatsDropsAnUnchangedSubstate(byKeyPath: Bool) {
        let store = Store(reducer: testReducer, state: TestAppState(testValue: 3))
        let subscriber = TestFilteredSubscriber<Int?>()
        store.subscribe(subscriber) {
            (byKeyPath ? $0.select(\.testValue) : $0.select { $0.testValue }).skipRepeats { $0 == $1 }
        }
        #expect(subscriber.receivedValue == 3)
        store.dispatch(SetValueAction(value: 3))
        #expect(subscriber.receivedValue == 3)
        #expect(subscriber.newStateCallCount == 1)
    }

    // ReSwift: testUnchangedStateDefaultSkipRepeats… — `skipRepeats()` on an Equatable selection.
    @Test(arguments: [false, true])
    func defaultSkipRepeatsDropsAnUnchangedSubstate(byKeyPath: Bool) {
        let store = Store(reducer: testValueStringReducer, state: TestStringAppState())
        let subscriber = TestFilteredSubscriber<String>()
        store.subscribe(subscriber) {
            (byKeyPath ? $0.select(\.testValue) : $0.select { $0.testValue }).skipRepeats()
        }
        #expect(subscriber.receivedValue == "Initial")
        store.dispatch(SetValueStringAction(value: "Initial"))
        #expect(subscriber.receivedValue == "Initial")
        #expect(subscriber.newStateCallCount == 1)
    }

    // ReSwift: testSkipsStateUpdatesForCustomEqualityChecks….
    @Test(arguments: [false, true])
    func skipRepeatsWithACustomEquality(byKeyPath: Bool) {
        let store = Store(reducer: testCustomAppStateReducer, state: TestCustomAppState(substateValue: 5))
        let subscriber = TestFilteredSubscriber<TestCustomSubstate>()
        store.subscribe(subscriber) {
            (byKeyPath ? $0.select(\.substate) : $0.select { $0.substate }).skipRepeats { $0.value == $1.value }
        }
        #expect(subscriber.receivedValue?.value == 5)
        store.dispatch(SetCustomSubstateAction(value: 5))
        #expect(subscriber.receivedValue?.value == 5)
        #expect(subscriber.newStateCallCount == 1)
    }

    // ReSwift: testPassesOnDuplicateSubstateUpdatesByDefault… — nothing skips a non-Equatable selection.
    @Test(arguments: [false, true])
    func nonEquatableSelectionsAreNotSkipped(byKeyPath: Bool) {
        let store = Store(reducer: testNonEquatableReducer, state: TestNonEquatable())
        let subscriber = TestFilteredSubscriber<NonEquatable>()
        store.subscribe(subscriber) { byKeyPath ? $0.select(\.testValue) : $0.select { $0.testValue } }
        #expect(subscriber.receivedValue?.testValue == "Initial")
        store.dispatch(SetNonEquatableAction(value: NonEquatable()))
        #expect(subscriber.receivedValue?.testValue == "Initial")
        #expect(subscriber.newStateCallCount == 2)
    }

    // ReSwift: testPassesOnDuplicateSubstateWhenSkipsFalse… and
    // testPassesOnDuplicateStateUpdatesInCustomizedStore — automatic skipping turned off.
    @Test(arguments: [false, true])
    func automaticSkippingCanBeTurnedOff(wholeState: Bool) {
        let store = Store(reducer: testValueStringReducer, state: TestStringAppState(), middleware: [], automaticallySkipsRepeats: false)
        let values = TestFilteredSubscriber<String>()
        let states = TestFilteredSubscriber<TestStringAppState>()
        if wholeState { store.subscribe(states) } else { store.subscribe(values) { $0.select(\.testValue) } }
        store.dispatch(SetValueStringAction(value: "Initial"))
        #expect(values.newStateCallCount + states.newStateCallCount == 2)
    }

    // ReSwift: testSkipsStateUpdatesForEquatableStateByDefault.
    @Test func equatableStatesSkipRepeatsByDefault() {
        let store = Store(reducer: testValueStringReducer, state: TestStringAppState(), middleware: [])
        let subscriber = TestFilteredSubscriber<TestStringAppState>()
        store.subscribe(subscriber)
        #expect(subscriber.receivedValue?.testValue == "Initial")
        store.dispatch(SetValueStringAction(value: "Initial"))
        #expect(subscriber.receivedValue?.testValue == "Initial")
        #expect(subscriber.newStateCallCount == 1)
    }

    // ReSwift: testSkipsStateUpdatesForEquatableSubStateByDefault… — the selected substate is
    // Equatable although the state is not.
    @Test(arguments: [false, true])
    func equatableSubstatesSkipRepeatsByDefault(byKeyPath: Bool) {
        let store = Store(reducer: testNonEquatableReducer, state: TestNonEquatable())
        let subscriber = TestFilteredSubscriber<String>()
        store.subscribe(subscriber) { byKeyPath ? $0.select(\.testValue.testValue) : $0.select { $0.testValue.testValue } }
        #expect(subscriber.receivedValue == "Initial")
        store.dispatch(SetValueStringAction(value: "Initial"))
        #expect(subscriber.receivedValue == "Initial")
        #expect(subscriber.newStateCallCount == 1)
    }

    // ReSwift: testSkipWhen… and testOnlyWhen… — the first value always passes.
    @Test(arguments: [false, true])
    func skipWhenAndOnlyWhen(only: Bool) {
        let store = Store(reducer: testCustomAppStateReducer, state: TestCustomAppState(substateValue: 5))
        let subscriber = TestFilteredSubscriber<TestCustomSubstate>()
        store.subscribe(subscriber) {
            only ? $0.select(\.substate).only { $0.value != $1.value } : $0.select(\.substate).skip { $0.value == $1.value }
        }
        #expect(subscriber.receivedValue?.value == 5)
        store.dispatch(SetCustomSubstateAction(value: 5))
        #expect(subscriber.newStateCallCount == 1)
        store.dispatch(SetCustomSubstateAction(value: 6))
        #expect(subscriber.receivedValue?.value == 6)
        #expect(subscriber.newStateCallCount == 2)
    }

    // ReSwift's AutomaticallySkipRepeatsTests: a name selection is not told of an age change,
    // with or without an explicit skipRepeats().
    @Test(arguments: [false, true])
    func unrelatedChangesDoNotReachASelection(explicitSkip: Bool) {
        struct Person: Equatable { var age = 29; var name = "Daniel" }
        struct ChangeAge: Action { var age: Int }
        let store = Store(reducer: { (action: any Action, state: Person) in
            guard let change = action as? ChangeAge else { return state }
            return Person(age: change.age, name: state.name)
        }, state: Person())
        let subscriber = TestFilteredSubscriber<String>()
        store.subscribe(subscriber) { explicitSkip ? $0.select(\.name).skipRepeats() : $0.select(\.name) }
        #expect(subscriber.newStateCallCount == 1)
        store.dispatch(ChangeAge(age: 30))
        #expect(subscriber.newStateCallCount == 1)
        #expect(store.state.age == 30)
    }

    // A subscriber whose type is not the state's, without a transform, is a programmer error.
    @Test func aSubscriberOfAnotherTypeNeedsATransform() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let store = Store(reducer: testReducer, state: TestAppState())
                store.subscribe(TestFilteredSubscriber<Int>())
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("ObjDBStore: subscribe(_:) was given a TestFilteredSubscriber<Int>"))
        #expect(message.contains("without a transform"))
    }
}
