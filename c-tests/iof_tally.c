/* Reads stdin to its end and prints its length and a digest of how many
 * times each byte value occurs: the same for any interleaving of the same
 * streams cut anywhere (the forwarding benchmark's check that a tool got
 * every byte the ranks wrote, each once, when their chunks interleave). */
#include <stdio.h>
#include <stdint.h>
#include <unistd.h>
int main(void)
{
    static unsigned char buf[1 << 16];
    uint64_t count[256] = {0}, total = 0, h = 1469598103934665603ULL;
    ssize_t n, i;
    while ((n = read(0, buf, sizeof buf)) > 0) {
        for (i = 0; i < n; i++) count[buf[i]]++;
        total += (uint64_t) n;
    }
    if (n < 0) return 1;
    for (i = 0; i < 256; i++) {
        h ^= count[i];
        h *= 1099511628211ULL;
    }
    printf("%llu %016llx\n", (unsigned long long) total, (unsigned long long) h);
    return 0;
}
