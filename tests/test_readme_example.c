/* The library example of README.md, compiled and run: block 866342 with its
 * undo data rendered at verbosity 3 must start with Core's first keys and
 * carry the coinbase's fee-less shape. If the README's API drifts, this
 * stops compiling. */
#include "check.h"

#include <blockkit/blockkit.h>

static int render(const uint8_t *bytes, size_t len, const uint8_t *undo_bytes, size_t undo_len,
                  bk_writer *out)
{
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    bk_block block;
    bk_error err;
    int rc = 0;
    if (bk_block_decode(&dec, bytes, len, &block, &err) != BK_OK) {
        fprintf(stderr, "%s at byte %llu\n", err.msg, (unsigned long long)err.offset);
        rc = 65;
        goto done;
    }
    bk_block_undo undo;
    if (bk_block_undo_parse(undo_bytes, undo_len, &undo, &err) != BK_OK ||
        bk_block_undo_check(&undo, &block, &err) != BK_OK) {
        rc = 65;
        goto done;
    }
    uint32_t height;                          /* from the BIP34 coinbase push, or your index */
    if (bk_block_bip34_height(&block, &height) != BK_OK) {
        rc = 65;
        goto done;
    }
    bk_chain_context ctx;
    bk_chain_context_standalone(&ctx, &block, BK_NET_MAIN, height);
    bk_json json;
    bk_json_init(&json, out, 0);
    bk_block_json_opts opts;
    bk_block_json_opts_init(&opts);
    opts.verbosity = 3;
    if (bk_json_block(&json, &block, &undo, &ctx, &opts, &err) != BK_OK) rc = 65;
done:
    bk_block_decoder_free(&dec);
    return rc;
}

static void readme_library_example(void)
{
    size_t len, ulen;
    uint8_t *b = check_read_file(BK_TEST_DATA "/../../data/block866342.raw", &len);
    uint8_t *u = check_read_file(BK_TEST_DATA "/../../data/block866342_undo.raw", &ulen);
    bk_writer out;
    bk_writer_init(&out, NULL);
    CHECK_EQ_INT(render(b, len, u, ulen, &out), 0);
    bk_writer_putc(&out, '\0');
    const char *s = (const char *)out.data;
    const char *head = "{\"hash\":\"000000000000000000014ce9ba7c6760053c3c82ce6ab43d60afb101d3c8f1f1\","
                       "\"confirmations\":1,\"height\":866342,";
    CHECK(s && strncmp(s, head, strlen(head)) == 0);
    if (s && strncmp(s, head, strlen(head)) != 0) fprintf(stderr, "got: %.130s\n", s);
    CHECK(s && strstr(s, "\"prevout\":{\"generated\":") != NULL);
    CHECK(s && strstr(s, "\"fee\":") != NULL);
    bk_writer_free(&out);
    free(b);
    free(u);
}

int main(void)
{
    RUN(readme_library_example);
    return check_finish();
}
