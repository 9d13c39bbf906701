#ifndef OBJDB_BENCH_CLMDB_SHIM_H
#define OBJDB_BENCH_CLMDB_SHIM_H
#include <lmdb.h>
#endif
