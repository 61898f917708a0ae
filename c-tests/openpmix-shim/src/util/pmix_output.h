/* rpmix test shim: pmix_output(id, fmt, ...) writes one line on stderr;
 * pmix_output_verbose(level, id, ...) only at level 0 (no verbosity set). */
#ifndef PMIXSHIM_OUTPUT_H
#define PMIXSHIM_OUTPUT_H
#include "src/include/pmix_config.h"
static inline void pmixshim_voutput(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0 || NULL == s) return;
    size_t n = strlen(s);
    fprintf(stderr, (n > 0 && s[n - 1] == '\n') ? "%s" : "%s\n", s);
    fflush(stderr);
    free(s);
}
static inline __attribute__((format(printf, 2, 3))) void pmix_output(int id, const char *fmt, ...)
{
    va_list ap;
    (void) id;
    va_start(ap, fmt);
    pmixshim_voutput(fmt, ap);
    va_end(ap);
}
static inline __attribute__((format(printf, 3, 4))) void pmix_output_verbose(int level, int id, const char *fmt, ...)
{
    va_list ap;
    (void) id;
    if (level > 0) return;
    va_start(ap, fmt);
    pmixshim_voutput(fmt, ap);
    va_end(ap);
}
#endif
