/* Shim for OpenPMIx's internal "src/util/pmix_output.h": pmix_output(0, ...)
 * prints one line to stderr. */
#ifndef EXSHIM_PMIX_OUTPUT_H
#define EXSHIM_PMIX_OUTPUT_H
void exshim_output(int id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define pmix_output(id, ...) exshim_output((id), __VA_ARGS__)
#endif
