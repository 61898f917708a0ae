/* Write N MiB of 100-byte lines to stdout (for the forwarding benchmark). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t) atol(argv[1]) : 64, total = mib << 20, done = 0;
    char buf[1 << 16];
    size_t i;
    for (i = 0; i < sizeof buf; i++) buf[i] = (i % 100 == 99) ? '\n' : 'a' + (i % 26);
    while (done < total) {
        size_t n = total - done < sizeof buf ? total - done : sizeof buf;
        ssize_t w = write(1, buf, n);
        if (w <= 0) return 1;
        done += (size_t) w;
    }
    return 0;
}
