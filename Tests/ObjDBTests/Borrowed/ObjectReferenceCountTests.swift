import Testing
@testable import ObjDB
import ObjDBTestModels

/// The one-word test that iteration uses to reuse an object (`objectRecycling`), against each
/// kind of reference and against the runtime's own answers. Each answer is taken before
/// `#expect`, whose expansion holds references of its own to what it looks at.
struct ObjectReferenceCountTests {
    /// The word's answer, the runtime's and the one iteration uses, in that order.
    static func answers(_ object: inout ObjectBase) -> (word: Bool, runtime: Bool, used: Bool) {
        let word = ReferenceCountWord.wordSaysOnlyReference(&object)
        let runtime = ReferenceCountWord.runtimeSaysOnlyReference(&object)
        let used = ReferenceCountWord.isOnlyReference(&object)
        return (word, runtime, used)
    }

    @Test func aLoneObjectIsUnshared() {
        var object: ObjectBase = Note()
        let answers = Self.answers(&object)
        #expect(answers == (true, true, true))
    }

    @Test func aSecondStrongReferenceShares() {
        var object: ObjectBase = Note()
        var other: ObjectBase? = object
        let shared = withExtendedLifetime(other) { Self.answers(&object) }
        #expect(shared == (false, false, false))
        other = nil
        // Once the other reference is gone, the object is unshared again.
        let alone = Self.answers(&object)
        #expect(alone == (true, true, true))
        #expect(other == nil)
    }

    @Test func aWeakReferenceShares() {
        var object: ObjectBase = Note()
        weak let weakReference = object
        let answers = Self.answers(&object)
        #expect(answers == (false, false, false))
        #expect(weakReference != nil)
    }

    @Test func anUnownedReferenceShares() {
        var object: ObjectBase = Note()
        unowned let unownedReference = object
        let answers = Self.answers(&object)
        #expect(answers == (false, false, false))
        withExtendedLifetime(unownedReference) {}
    }

    /// A weak reference leaves a side table behind after it is gone: the word then says
    /// "shared" where the runtime says "unshared". That only costs a new object, never a reused
    /// one somebody can see.
    @Test func aSideTableLeftByAWeakReferenceReadsAsShared() {
        var object: ObjectBase = Note()
        do {
            weak var weakReference = object
            let taken = weakReference != nil
            #expect(taken)
            weakReference = nil
        }
        let answers = Self.answers(&object)
        #expect(answers == (false, true, false))
    }
}
