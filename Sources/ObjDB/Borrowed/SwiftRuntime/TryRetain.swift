import CObjDBRuntime

/// BORROWED: the Swift runtime's `swift_tryRetain`, for the registry of live databases
/// (``LiveInstances``, Decisions/0040).
///
/// **What is borrowed, from which version.** An exported entry point of libswiftCore,
/// `HeapObject *swift_tryRetain(HeapObject *)` in the runtime's `HeapObject.h`, declared with its
/// C signature in the `CObjDBRuntime` module: it retains and returns the object unless its
/// deinitialization has begun (its strong count reached zero), and then returns `NULL` — what
/// loading a weak reference does, without the side table a weak reference gives its object.
/// It is part of the runtime's stable ABI on Apple platforms, and exported by the Linux runtime
/// of the Swift 6 toolchains ObjDB is built with.
///
/// **How it is verified at run time.** By the dynamic linker only: a runtime without the symbol
/// does not load ObjDB. Its behaviour is pinned by `LiveInstancesTests` (listing, removal at
/// `deinit`, lookups racing with last releases; run them under the thread sanitizer when this
/// code changes).
///
/// **Fast path and slow twin.** None, and no ``FastPaths`` switch. The twin would be a `weak`
/// reference, which gives the same answer but sends every retain and release of the `Database`
/// through the runtime's slow path (what Decisions/0040 removed); it is not kept in the code.
enum TryRetain {
    /// The object of `reference`, retained (+1, balanced by the returned reference), unless its
    /// deinitialization has begun; then `nil`. The object's memory must still be allocated: the
    /// caller knows its `deinit` has not finished.
    @inline(__always)
    static func objectUnlessDeinitializing<T: AnyObject>(_ reference: Unmanaged<T>) -> T? {
        guard swift_tryRetain(reference.toOpaque()) != nil else { return nil }
        return reference.takeRetainedValue()
    }
}
