#ifndef OBJDB_CLMDB_SHIM_H
#define OBJDB_CLMDB_SHIM_H
#include <lmdb.h>
#endif
