/* blockkit: status codes and error reports.
 *
 * Every fallible function returns a bk_status (BK_OK == 0) and takes an
 * optional bk_error * (may be NULL) that receives the status, a message naming
 * what is wrong, the byte offset of the fault in the input, and for nested
 * formats (SSZ) a path such as ".data.target.epoch". */
#ifndef BLOCKKIT_STATUS_H
#define BLOCKKIT_STATUS_H

#include <stddef.h>
#include <stdint.h>

/* The library's version. */
#define BK_VERSION_MAJOR 0
#define BK_VERSION_MINOR 1
#define BK_VERSION_PATCH 0
#define BK_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(BK_BUILD_SHARED)
#define BK_API __declspec(dllexport)
#elif defined(__GNUC__)
#define BK_API __attribute__((visibility("default")))
#else
#define BK_API
#endif

#if defined(__GNUC__)
#define BK_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define BK_WARN_UNUSED
#endif

typedef enum bk_status {
    BK_OK = 0,
    BK_ERR_ARG,                 /* invalid argument (caller error) */
    BK_ERR_NOMEM,               /* the allocator returned NULL */
    BK_ERR_BUFFER,              /* the caller's output buffer is too small */
    BK_ERR_TRUNCATED,           /* input ends before the structure does */
    BK_ERR_NONCANONICAL,        /* non-canonical CompactSize encoding */
    BK_ERR_SIZE,                /* size over Core's MAX_SIZE (0x02000000) */
    BK_ERR_OVERFLOW,            /* integer (VARINT) overflow */
    BK_ERR_TRAILING,            /* bytes left after the structure */
    BK_ERR_COUNT,               /* a count that cannot fit in the remaining bytes */
    BK_ERR_WITNESS_FLAG,        /* segwit flag other than 1 ("Unknown transaction optional data") */
    BK_ERR_SUPERFLUOUS_WITNESS, /* flag set but all witness stacks empty */
    BK_ERR_NO_TX,               /* block with zero transactions */
    BK_ERR_MAGIC,               /* bad network magic in a block/undo file record */
    BK_ERR_CHECKSUM,            /* undo record checksum mismatch */
    BK_ERR_MISMATCH,            /* data does not match (undo vs block, merkle vs header) */
    BK_ERR_SCRIPT,              /* script cannot be decompressed / is invalid */
    BK_ERR_IO,                  /* read/open/mmap failure */
    BK_ERR_NOT_FOUND,           /* a requested item does not exist */
    BK_ERR_UNSUPPORTED,         /* a feature or backend not available here */
    BK_ERR_TYPE,                /* illegal or unparsable type (SSZ) / schema */
    BK_ERR_OFFSET,              /* bad SSZ offset (first offset, order, bounds) */
    BK_ERR_LENGTH,              /* wrong length for a fixed-size type, or over a limit */
    BK_ERR_VALUE,               /* invalid value: bool not 0/1, bit padding, bitlist delimiter, union selector */
    BK_ERR_INVALID,             /* other invalid data; the message says what */
    BK_ERR_CANCELLED,           /* stopped by the caller's cancel flag (a signal) */
    BK_ERR_LOCKED,              /* another process holds the lock (an export's output directory) */
    BK_STATUS_COUNT_
} bk_status;

#define BK_ERROR_MSG_MAX 256 /* a path, a hash and the numbers fit */
#define BK_ERROR_PATH_MAX 128

typedef struct bk_error {
    bk_status status;
    uint64_t offset;                 /* byte offset of the fault in the input */
    char msg[BK_ERROR_MSG_MAX];      /* what is wrong, NUL-terminated */
    char path[BK_ERROR_PATH_MAX];    /* nested location (SSZ), "" when none */
} bk_error;

/* A short constant name for a status, e.g. "truncated". Never NULL. */
BK_API const char *bk_status_str(bk_status st);

/* Fill *err (if not NULL) and return st. fmt is printf-style. The path is
 * cleared. Used by the library and usable by callers composing errors. */
BK_API bk_status bk_error_set(bk_error *err, bk_status st, uint64_t offset,
                              const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Reset *err to BK_OK with empty strings. */
BK_API void bk_error_clear(bk_error *err);

#ifdef __cplusplus
}
#endif
#endif
