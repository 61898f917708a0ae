/*
 * tsan_shim: three entry points LLVM's ThreadSanitizer instrumentation (a
 * Rust library built with -Zsanitizer=thread) calls and gcc's runtime
 * (Debian's libtsan2, preloaded to run such a library under a C program)
 * does not export. They forward to the libc functions, which that runtime
 * intercepts, so the accesses are still checked.
 */
#include <string.h>

void *__tsan_memcpy(void *dst, const void *src, size_t n);
void *__tsan_memmove(void *dst, const void *src, size_t n);
void *__tsan_memset(void *dst, int c, size_t n);

void *__tsan_memcpy(void *dst, const void *src, size_t n) { return memcpy(dst, src, n); }
void *__tsan_memmove(void *dst, const void *src, size_t n) { return memmove(dst, src, n); }
void *__tsan_memset(void *dst, int c, size_t n) { return memset(dst, c, n); }
