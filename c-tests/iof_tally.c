/* Reads stdin to its end and prints its length and a digest of how many
 * times each byte value occurs: the same for any interleaving of the same
 * streams cut anywhere (the forwarding benchmark's check that a tool got
 * every byte the ranks wrote, each once, when their chunks interleave). */
#include <stdio.h>
#include <stdint.h>
#include <unistd.h>
int main(void)
{
    static unsigned char buf[1 << 20];
    /* four tallies summed at the end: consecutive equal bytes do not wait
     * on each other's increment */
    static uint64_t count[4][256];
    uint64_t total = 0, h = 1469598103934665603ULL;
    ssize_t n, i;
    while ((n = read(0, buf, sizeof buf)) > 0) {
        for (i = 0; i + 4 <= n; i += 4) {
            count[0][buf[i]]++;
            count[1][buf[i + 1]]++;
            count[2][buf[i + 2]]++;
            count[3][buf[i + 3]]++;
        }
        for (; i < n; i++) count[0][buf[i]]++;
        total += (uint64_t) n;
    }
    if (n < 0) return 1;
    for (i = 0; i < 256; i++) {
        h ^= count[0][i] + count[1][i] + count[2][i] + count[3][i];
        h *= 1099511628211ULL;
    }
    printf("%llu %016llx\n", (unsigned long long) total, (unsigned long long) h);
    return 0;
}
