/*
 * scale_measure.h: what the scale host and client measure about themselves
 * (c-tests/scale_host.c, c-tests/scale_client.c): a monotonic clock and the
 * process's resident and proportional memory.
 */
#ifndef SCALE_MEASURE_H
#define SCALE_MEASURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* seconds on the monotonic clock */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* smaps_rollup's Rss and Pss of this process, in kB (-1: unreadable) */
static void memory_kb(long *rss, long *pss)
{
    char line[256];
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    *rss = *pss = -1;
    if (!f) return;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "Rss:", 4) == 0) *rss = atol(line + 4);
        if (strncmp(line, "Pss:", 4) == 0) *pss = atol(line + 4);
    }
    fclose(f);
}

#endif
