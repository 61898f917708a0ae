/* Writes MIB MiB to stdout and MIB MiB to stderr, content unique per rank
 * (PMIX_RANK) and stream, in chunks of varying size that split lines, the
 * two streams interleaved; the last line of each is unterminated. With a
 * GATE path, waits (up to 60 s) until that file exists before writing, so a
 * test can attach its tools first. Deterministic: run it standalone with
 * PMIX_RANK=r to get the expected bytes.
 *   iof_ranks MIB [GATE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) return -1;
        p += w;
        n -= (size_t) w;
    }
    return 0;
}

/* Fill buf with stream `fd`'s bytes starting at offset `off`. */
static void fill(char *buf, size_t n, size_t off, const char *rank, int fd)
{
    char line[128];
    size_t i = 0;
    while (i < n) {
        size_t lineno = (off + i) / 80, in = (off + i) % 80;
        int len = snprintf(line, sizeof line, "r%s %s line %09zu ", rank, fd == 1 ? "out" : "err", lineno);
        for (; len < 79; len++) line[len] = (char) ('a' + (lineno + (size_t) len) % 26);
        line[79] = '\n';
        size_t take = 80 - in < n - i ? 80 - in : n - i;
        memcpy(buf + i, line + in, take);
        i += take;
    }
}

int main(int argc, char **argv)
{
    size_t total = (size_t) atol(argc > 1 ? argv[1] : "1") << 20;
    const char *rank = getenv("PMIX_RANK") ? getenv("PMIX_RANK") : "0";
    static char buf[1 << 16];
    size_t done[3] = {0, 0, 0}, step = 0;
    int waited;
    total += 37; /* the last line ends mid-way */
    for (waited = 0; argc > 2 && access(argv[2], F_OK) != 0; waited++) {
        if (waited > 6000) return 2;
        usleep(10000);
    }
    while (done[1] < total || done[2] < total) {
        int fd = (step & 1) ? 2 : 1;
        size_t n = 1000 + (step * 7919) % 60000;
        step++;
        if (done[fd] >= total) continue;
        if (n > total - done[fd]) n = total - done[fd];
        fill(buf, n, done[fd], rank, fd);
        if (write_all(fd, buf, n) != 0) return 1;
        done[fd] += n;
    }
    return 0;
}
