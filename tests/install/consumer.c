/* A program built against an installed blockkit (pkg-config and CMake). */
#include <blockkit/blockkit.h>
#include <stdio.h>

int main(void)
{
    uint8_t d[32];
    bk_sha256(d, "abc", 3);
    /* FIPS 180-4: SHA-256("abc") starts ba7816bf. */
    if (d[0] != 0xba || d[1] != 0x78 || d[2] != 0x16 || d[3] != 0xbf) return 1;
    printf("blockkit %s ok\n", BK_VERSION_STRING);
    return 0;
}
