#include <blockkit/status.h>

#include <stdarg.h>
#include <stdio.h>

static const char *const status_names[BK_STATUS_COUNT_] = {
    [BK_OK] = "ok",
    [BK_ERR_ARG] = "invalid argument",
    [BK_ERR_NOMEM] = "out of memory",
    [BK_ERR_BUFFER] = "buffer too small",
    [BK_ERR_TRUNCATED] = "truncated",
    [BK_ERR_NONCANONICAL] = "non-canonical encoding",
    [BK_ERR_SIZE] = "size too large",
    [BK_ERR_OVERFLOW] = "overflow",
    [BK_ERR_TRAILING] = "trailing bytes",
    [BK_ERR_COUNT] = "count exceeds data",
    [BK_ERR_WITNESS_FLAG] = "unknown witness flag",
    [BK_ERR_SUPERFLUOUS_WITNESS] = "superfluous witness record",
    [BK_ERR_NO_TX] = "no transactions",
    [BK_ERR_MAGIC] = "bad magic",
    [BK_ERR_CHECKSUM] = "checksum mismatch",
    [BK_ERR_MISMATCH] = "mismatch",
    [BK_ERR_SCRIPT] = "bad script",
    [BK_ERR_IO] = "i/o error",
    [BK_ERR_NOT_FOUND] = "not found",
    [BK_ERR_UNSUPPORTED] = "unsupported",
    [BK_ERR_TYPE] = "bad type",
    [BK_ERR_OFFSET] = "bad offset",
    [BK_ERR_LENGTH] = "bad length",
    [BK_ERR_VALUE] = "bad value",
    [BK_ERR_INVALID] = "invalid data",
    [BK_ERR_CANCELLED] = "cancelled",
    [BK_ERR_LOCKED] = "locked",
};

const char *bk_status_str(bk_status st)
{
    if ((unsigned)st >= BK_STATUS_COUNT_ || !status_names[st]) return "unknown status";
    return status_names[st];
}

bk_status bk_error_set(bk_error *err, bk_status st, uint64_t offset, const char *fmt, ...)
{
    if (!err) return st;
    err->status = st;
    err->offset = offset;
    err->path[0] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return st;
}

void bk_error_clear(bk_error *err)
{
    if (!err) return;
    err->status = BK_OK;
    err->offset = 0;
    err->msg[0] = '\0';
    err->path[0] = '\0';
}
