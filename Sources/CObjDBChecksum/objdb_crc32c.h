#ifndef OBJDB_CRC32C_H
#define OBJDB_CRC32C_H

// CRC-32C (Castagnoli: the polynomial of iSCSI, ext4 and SSE 4.2's crc32 instruction) for
// ObjDB's row and meta checksums (see Docs/FileFormat.md).
//
// Header-only, so no C file is compiled: the importing Swift module compiles these inline
// functions itself, with its own debug-information format (valgrind, which profiles the
// benchmarks, cannot read the DWARF 5 a separate C target would get).
//
// objdb_crc32c uses the CPU's CRC instructions where it has them (SSE 4.2 on x86-64, the CRC
// extension on ARMv8: about 8 bytes per 3 cycles) and a byte-wise table otherwise; both compute
// the same function, which the tests check against a bit-by-bit reference and the standard
// check value (0xE3069283 for the ASCII bytes "123456789").

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <pthread.h>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

#define OBJDB_CRC32C_POLY 0x82F63B78u /* reflected */

/// The table's storage (a function's static: a header-only module cannot define globals).
static inline uint32_t *objdb_crc32c_table_storage(void) {
    static uint32_t table[256];
    return table;
}

static inline void objdb_crc32c_build_table(void) {
    uint32_t *table = objdb_crc32c_table_storage();
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ OBJDB_CRC32C_POLY : c >> 1;
        table[n] = c;
    }
}

/// The byte-wise table, built once (pthread_once: no thread reads it half-built).
static inline const uint32_t *objdb_crc32c_table(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, objdb_crc32c_build_table);
    return objdb_crc32c_table_storage();
}

/// The table-driven CRC-32C of `count` bytes, continuing from `crc` (0 to start).
static inline uint32_t objdb_crc32c_portable(uint32_t crc, const void *bytes, size_t count) {
    const uint32_t *table = objdb_crc32c_table();
    const unsigned char *p = (const unsigned char *)bytes;
    crc = ~crc;
    while (count--) crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__)
/// Continues the (inverted) CRC `c` over `count` bytes with SSE 4.2's crc32 instruction: 32
/// bytes a step (four instructions, no loop bookkeeping between them: a row's checksum is
/// mostly this loop), then 8, then 4, 2 and 1.
__attribute__((target("sse4.2")))
static inline uint32_t objdb_crc32c_steps(uint64_t c, const unsigned char *p, size_t count) {
    while (count >= 32) {
        uint64_t w0, w1, w2, w3;
        memcpy(&w0, p, 8);
        memcpy(&w1, p + 8, 8);
        memcpy(&w2, p + 16, 8);
        memcpy(&w3, p + 24, 8);
        c = __builtin_ia32_crc32di(c, w0);
        c = __builtin_ia32_crc32di(c, w1);
        c = __builtin_ia32_crc32di(c, w2);
        c = __builtin_ia32_crc32di(c, w3);
        p += 32;
        count -= 32;
    }
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        count -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    if (count & 4) {
        uint32_t word;
        memcpy(&word, p, 4);
        c32 = __builtin_ia32_crc32si(c32, word);
        p += 4;
    }
    if (count & 2) {
        uint16_t word;
        memcpy(&word, p, 2);
        c32 = __builtin_ia32_crc32hi(c32, word);
        p += 2;
    }
    if (count & 1) c32 = __builtin_ia32_crc32qi(c32, *p);
    return c32;
}

__attribute__((target("sse4.2")))
static inline uint32_t objdb_crc32c_hardware(uint32_t crc, const void *bytes, size_t count) {
    return ~objdb_crc32c_steps(~crc, (const unsigned char *)bytes, count);
}

__attribute__((target("sse4.2")))
static inline uint32_t objdb_crc32c_row_hardware(uint64_t key, const void *bytes, size_t count) {
    uint64_t c = __builtin_ia32_crc32di(0xFFFFFFFFu, key);
    return ~objdb_crc32c_steps(c, (const unsigned char *)bytes, count);
}

static inline int objdb_crc32c_detect(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) ? 1 : 0;
}

#elif defined(__aarch64__) && (defined(__linux__) || defined(__APPLE__))
__attribute__((target("crc")))
static inline uint32_t objdb_crc32c_hardware(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = (const unsigned char *)bytes;
    uint32_t c = ~crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __builtin_arm_crc32cd(c, word);
        p += 8;
        count -= 8;
    }
    while (count--) c = __builtin_arm_crc32cb(c, *p++);
    return ~c;
}

__attribute__((target("crc")))
static inline uint32_t objdb_crc32c_row_hardware(uint64_t key, const void *bytes, size_t count) {
    return objdb_crc32c_hardware(~__builtin_arm_crc32cd(0xFFFFFFFFu, key), bytes, count);
}

static inline int objdb_crc32c_detect(void) {
#if defined(__APPLE__)
    return 1; /* every Apple ARM64 CPU has the CRC extension */
#else
    return (getauxval(AT_HWCAP) & (1 << 7)) ? 1 : 0; /* HWCAP_CRC32 */
#endif
}

#else
static inline uint32_t objdb_crc32c_hardware(uint32_t crc, const void *bytes, size_t count) {
    return objdb_crc32c_portable(crc, bytes, count);
}

static inline uint32_t objdb_crc32c_row_hardware(uint64_t key, const void *bytes, size_t count) {
    return objdb_crc32c_portable(objdb_crc32c_portable(0, &key, 8), bytes, count);
}

static inline int objdb_crc32c_detect(void) { return 0; }
#endif

/// The storage of objdb_crc32c_is_hardware's answer: -1 until the first call.
static inline int *objdb_crc32c_hardware_flag(void) {
    static int hardware = -1; /* racing detectors store the same value */
    return &hardware;
}

/// Detects the CPU's CRC instructions and records the answer (first call only; kept out of line
/// so that the per-row callers stay a load, a test and a jump).
__attribute__((noinline, cold))
static int objdb_crc32c_detect_once(void) {
    int h = objdb_crc32c_detect();
    __atomic_store_n(objdb_crc32c_hardware_flag(), h, __ATOMIC_RELAXED);
    return h;
}

/// Whether objdb_crc32c runs on the CPU's CRC instructions (1) or the table (0).
static inline int objdb_crc32c_is_hardware(void) {
    int h = __atomic_load_n(objdb_crc32c_hardware_flag(), __ATOMIC_RELAXED);
    if (__builtin_expect(h < 0, 0)) h = objdb_crc32c_detect_once();
    return h;
}

/// CRC-32C of `count` bytes at `bytes`, continuing from `crc` (0 to start).
static inline uint32_t objdb_crc32c(uint32_t crc, const void *bytes, size_t count) {
    return objdb_crc32c_is_hardware() ? objdb_crc32c_hardware(crc, bytes, count) : objdb_crc32c_portable(crc, bytes, count);
}

/// objdb_crc32c_row off the CPU instructions' path: before the first detection, or on a CPU
/// without them (the table). Out of line, so that the per-row path saves no registers.
__attribute__((noinline))
static uint32_t objdb_crc32c_row_slow(uint64_t key, const void *bytes, size_t count) {
    if (objdb_crc32c_is_hardware()) return objdb_crc32c_row_hardware(key, bytes, count);
    return objdb_crc32c_portable(objdb_crc32c_portable(0, &key, 8), bytes, count);
}

/// CRC-32C of the 8 bytes of `key` in the machine's (little-endian) order followed by `count`
/// bytes at `bytes`: a row's checksum in one call.
static inline uint32_t objdb_crc32c_row(uint64_t key, const void *bytes, size_t count) {
    if (__builtin_expect(__atomic_load_n(objdb_crc32c_hardware_flag(), __ATOMIC_RELAXED) > 0, 1)) {
        return objdb_crc32c_row_hardware(key, bytes, count);
    }
    return objdb_crc32c_row_slow(key, bytes, count);
}

#endif
