#ifndef OBJDB_CRC32C_H
#define OBJDB_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// CRC-32C (Castagnoli, the polynomial of iSCSI, ext4 and SSE 4.2) of `count` bytes at `bytes`,
/// continuing from `crc` (0 to start). Uses the CPU's CRC instructions where it has them
/// (SSE 4.2 on x86-64, the CRC extension on ARMv8), a table otherwise; all give the same value.
uint32_t objdb_crc32c(uint32_t crc, const void *bytes, size_t count);

/// Whether `objdb_crc32c` runs on the CPU's CRC instructions (1) or the table (0).
int objdb_crc32c_is_hardware(void);

/// The table-driven CRC-32C, for tests that compare it with the hardware path.
uint32_t objdb_crc32c_portable(uint32_t crc, const void *bytes, size_t count);

#endif
