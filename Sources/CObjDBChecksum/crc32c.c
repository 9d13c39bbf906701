// CRC-32C for ObjDB's row and meta checksums (see Docs/FileFormat.md).
//
// One entry point, objdb_crc32c, picks the fastest implementation the CPU supports once per
// call through a cached flag: hardware CRC instructions (about 8 bytes per 3 cycles) or a
// slicing-by-8 table (about 1 byte per cycle). Both compute the same function, which the tests
// check on random inputs and against the standard check value (0xE3069283 for "123456789").

#include "objdb_crc32c.h"
#include <string.h>

#if defined(__linux__) && defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif

#define POLY 0x82F63B78u /* CRC-32C, reflected */

static uint32_t table[8][256];
static volatile int table_ready = 0;

static void build_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = table[0][n];
        for (int k = 1; k < 8; k++) {
            c = table[0][c & 0xFF] ^ (c >> 8);
            table[k][n] = c;
        }
    }
    // Every thread that races here writes the same values; the flag only skips the work.
    __atomic_store_n(&table_ready, 1, __ATOMIC_RELEASE);
}

uint32_t objdb_crc32c_portable(uint32_t crc, const void *bytes, size_t count) {
    if (!__atomic_load_n(&table_ready, __ATOMIC_ACQUIRE)) build_table();
    const unsigned char *p = bytes;
    crc = ~crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word);
#endif
        word ^= crc;
        crc = table[7][word & 0xFF] ^ table[6][(word >> 8) & 0xFF] ^ table[5][(word >> 16) & 0xFF]
            ^ table[4][(word >> 24) & 0xFF] ^ table[3][(word >> 32) & 0xFF] ^ table[2][(word >> 40) & 0xFF]
            ^ table[1][(word >> 48) & 0xFF] ^ table[0][word >> 56];
        p += 8;
        count -= 8;
    }
    while (count--) crc = table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hardware(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint64_t c = ~crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        count -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (count--) c32 = __builtin_ia32_crc32qi(c32, *p++);
    return ~c32;
}

static int detect_hardware(void) { return __builtin_cpu_supports("sse4.2") ? 1 : 0; }

#elif defined(__aarch64__)
__attribute__((target("crc")))
static uint32_t crc32c_hardware(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
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

static int detect_hardware(void) {
#if defined(__APPLE__)
    return 1; /* every Apple ARM64 CPU has the CRC extension */
#elif defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) ? 1 : 0;
#else
    return 0;
#endif
}

#else
static uint32_t crc32c_hardware(uint32_t crc, const void *bytes, size_t count) {
    return objdb_crc32c_portable(crc, bytes, count);
}

static int detect_hardware(void) { return 0; }
#endif

/// -1 until detected, then 0 or 1. Races write the same value.
static volatile int hardware = -1;

int objdb_crc32c_is_hardware(void) {
    int h = __atomic_load_n(&hardware, __ATOMIC_RELAXED);
    if (h < 0) {
        h = detect_hardware();
        __atomic_store_n(&hardware, h, __ATOMIC_RELAXED);
    }
    return h;
}

uint32_t objdb_crc32c(uint32_t crc, const void *bytes, size_t count) {
    return objdb_crc32c_is_hardware() ? crc32c_hardware(crc, bytes, count) : objdb_crc32c_portable(crc, bytes, count);
}
