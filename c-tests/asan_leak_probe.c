/* asan_leak_probe: the positive control of the AddressSanitizer cases
 * (systests sanitizers.rs). It leaks an info array and the string the library copied into it,
 * on purpose: LeakSanitizer must report it, with the library's frames in
 * the stack, or the sanitizer is not watching rpmix. */
#include <stdio.h>

#include <pmix.h>

int main(void)
{
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, 4);
    if (info == NULL) {
        return 1;
    }
    PMIX_INFO_LOAD(&info[0], "probe.key", "a string the library copies", PMIX_STRING);
    info = NULL;
    printf("asan_leak_probe: leaked\n");
    return 0;
}
