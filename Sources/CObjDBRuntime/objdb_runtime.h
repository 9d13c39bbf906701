#ifndef OBJDB_RUNTIME_H
#define OBJDB_RUNTIME_H

// One entry point of the Swift runtime (libswiftCore, linked into every Swift program; part of
// its stable ABI), declared with its C signature for ObjDB's registry of live databases
// (LiveInstances in Sources/ObjDB/Frozen/IsolationContext.swift). Swift code calls it only
// through Sources/ObjDB/Borrowed/SwiftRuntime/TryRetain.swift, which says what is borrowed.
//
// swift_tryRetain retains a Swift object and returns it, unless the object's deinitialization
// has begun (its strong count reached zero), in which case it does nothing and returns NULL:
// what loading a weak reference does, without a weak reference. A weak reference gives its
// object a side table, which sends every retain and release of that object through the
// runtime's slow path; a Database is retained and released by each result and object it hands out.

extern void *swift_tryRetain(void *object);

#endif
