/* The library example of README.md, compiled as written (tests/readme.test.cmake
 * copies the README's ```c block into readme_example.inc) and run: block
 * 866342 with its undo data rendered at verbosity 3 must start with Core's
 * first keys and carry the coinbase's fee-less shape; a damaged block must
 * come back as an error naming its byte offset. If the README's API drifts,
 * this stops compiling. */
#include "check.h"

#include "readme_example.inc"

static void readme_library_example(void)
{
    size_t len, ulen;
    uint8_t *b = check_read_file(BK_TEST_DATA "/../../data/block866342.raw", &len);
    uint8_t *u = check_read_file(BK_TEST_DATA "/../../data/block866342_undo.raw", &ulen);
    bk_writer out;
    bk_writer_init(&out, NULL);
    bk_error err;
    CHECK_EQ_INT(block_json(b, len, u, ulen, 866342, &out, &err), BK_OK);
    bk_writer_putc(&out, '\0');
    const char *s = (const char *)out.data;
    const char *head = "{\"hash\":\"000000000000000000014ce9ba7c6760053c3c82ce6ab43d60afb101d3c8f1f1\","
                       "\"confirmations\":1,\"height\":866342,";
    CHECK(s && strncmp(s, head, strlen(head)) == 0);
    if (s && strncmp(s, head, strlen(head)) != 0) fprintf(stderr, "got: %.130s\n", s);
    CHECK(s && strstr(s, "\"prevout\":{\"generated\":") != NULL);
    CHECK(s && strstr(s, "\"fee\":") != NULL);

    /* A block cut short: an error, with the offset where it ends. */
    bk_writer_reset(&out);
    bk_status st = block_json(b, 100, u, ulen, 866342, &out, &err);
    CHECK(st != BK_OK);
    CHECK(err.status == st);
    CHECK(err.offset <= 100);
    CHECK(err.msg[0] != '\0');
    bk_writer_free(&out);
    free(b);
    free(u);
}

int main(void)
{
    RUN(readme_library_example);
    return check_finish();
}
