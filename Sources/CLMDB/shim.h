#ifndef OBJDB_CLMDB_SHIM_H
#define OBJDB_CLMDB_SHIM_H
#include <lmdb.h>
/* Extended attributes, which Glibc's Swift module leaves out: the storage layer carries them
   over when a compacted copy replaces a file (Storage/Environment/FileAttributes.swift). */
#include <sys/xattr.h>
#endif
