/* Write N MiB (whole 100-byte lines: 64 bytes fewer for 64) to stdout (for the forwarding benchmark).
 * The lines carry the rank (PMIX_RANK), so ranks' output differs. With a
 * GATE path, waits (up to 60 s) until that file exists before writing, so
 * a tool can attach first.
 *   iof_writer MIB [GATE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    /* whole lines only: nothing of one rank's line waits for its end */
    size_t mib = argc > 1 ? (size_t) atol(argv[1]) : 64, total = (mib << 20) / 100 * 100, done = 0;
    const char *rank = getenv("PMIX_RANK") ? getenv("PMIX_RANK") : "0";
    static char buf[655 * 100]; /* whole lines */
    size_t i;
    int waited;
    for (i = 0; i < sizeof buf; i++) buf[i] = (i % 100 == 99) ? '\n' : (i % 100 == 0) ? rank[0] : 'a' + (i % 26);
    for (waited = 0; argc > 2 && access(argv[2], F_OK) != 0; waited++) {
        if (waited > 60000) return 2;
        usleep(1000);
    }
    while (done < total) {
        size_t n = total - done < sizeof buf ? total - done : sizeof buf;
        ssize_t w = write(1, buf, n);
        if (w <= 0) return 1;
        done += (size_t) w;
    }
    return 0;
}
