/*
 * test_badinput.c: bad input to the PMIx data utilities must give a
 * documented error status, never a crash, a hang, a leak or a success.
 *
 * Every case prints one line, "<case>: ok" or "<case>: FAIL got <status>
 * want <...>", and the program ends with "N passed, M failed"; the exit
 * status is 0 only when M == 0.
 *
 * Build and run (rpmix):
 *   gcc -std=c99 -Wall -Wextra -pedantic -Werror -I include \
 *       c-tests/test_badinput.c -o c-tests/build/test_badinput \
 *       -L target/release -lpmix
 *   LD_LIBRARY_PATH=target/release valgrind --error-exitcode=9 \
 *       --leak-check=full --errors-for-leak-kinds=definite \
 *       c-tests/build/test_badinput
 *
 * Cases that would kill the process when the library misbehaves (unbounded
 * recursion) run in a child process started with system(): the child is this
 * program with "--child <case>", and exits 0 only when the library behaved.
 * Such children are not traced by valgrind (they only need to not crash).
 *
 * The expected statuses are rpmix's (the sources in src/data and src/ffi): NULL ->
 * PMIX_ERR_BAD_PARAM, unknown type -> PMIX_ERR_UNKNOWN_DATA_TYPE, unpack of
 * another type than packed -> whatever those bytes are as that type (the
 * default buffer form carries no types, as OpenPMIx's), truncated ->
 * PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER or PMIX_ERR_UNPACK_FAILURE, too
 * small destination -> PMIX_ERR_UNPACK_INADEQUATE_SPACE. Compiles against
 * rpmix's and OpenPMIx 4.2.2's headers; it only needs to pass on rpmix.
 */
#define _DEFAULT_SOURCE /* OpenPMIx's header inlines need strdup, setenv, strncasecmp */
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TESTUTIL_CHECKS_ONLY
#include "testutil.h"

/* ------------------------------------------------------------------ */
/* reporting                                                           */

static const char *self_path;

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static void buf_init(pmix_data_buffer_t *b)
{
    memset(b, 0, sizeof *b);
}

static void buf_free(pmix_data_buffer_t *b)
{
    free(b->base_ptr);
    memset(b, 0, sizeof *b);
}

static size_t buf_off(const pmix_data_buffer_t *b)
{
    if (NULL == b->base_ptr || NULL == b->unpack_ptr) {
        return 0;
    }
    return (size_t) (b->unpack_ptr - b->base_ptr);
}

/* b = a fresh buffer holding a copy of len bytes. */
static pmix_status_t buf_embed(pmix_data_buffer_t *b, const unsigned char *bytes, size_t len)
{
    pmix_byte_object_t bo;
    buf_init(b);
    bo.bytes = (char *) bytes;
    bo.size = len;
    return PMIx_Data_embed(b, &bo);
}

static void set_nspace(pmix_proc_t *p, const char *ns, pmix_rank_t rank)
{
    memset(p, 0, sizeof *p);
    strncpy(p->nspace, ns, PMIX_MAX_NSLEN);
    p->rank = rank;
}

/* Statuses an unpack of malformed data may report. */
static bool is_unpack_error(pmix_status_t rc)
{
    return rc == PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER || rc == PMIX_ERR_UNPACK_FAILURE
           || rc == PMIX_ERR_TYPE_MISMATCH || rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE
           || rc == PMIX_ERR_UNKNOWN_DATA_TYPE;
}

static const pmix_data_type_t unknown_types[] = {26, 28, 29, 44, 70, 499, 500, 65535};
#define N_UNKNOWN (sizeof unknown_types / sizeof unknown_types[0])

/* Room for one element of any PMIx type (the largest is pmix_pdata_t). */
#define ELEM_MAX 2048

/* ------------------------------------------------------------------ */
/* NULL pointers                                                       */

static void test_null_pointers(void)
{
    pmix_value_t v, v2;
    pmix_info_t info;
    pmix_data_buffer_t b;
    pmix_byte_object_t bo;
    int ival = 7;
    int32_t n = 1;
    void *out = NULL;
    char *text = NULL;
    size_t sz = 0;
    void *data = &ival;
    uint8_t *obytes = NULL;
    size_t onb = 0;
    uint8_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    pmix_cpuset_t cs;

    memset(&v, 0, sizeof v);
    memset(&v2, 0, sizeof v2);
    memset(&info, 0, sizeof info);
    memset(&bo, 0, sizeof bo);
    buf_init(&b);
    v.type = PMIX_INT;
    v.data.integer = 3;

    check_status("value_load_null_value", PMIx_Value_load(NULL, &ival, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("value_unload_null_value", PMIx_Value_unload(NULL, &data, &sz), PMIX_ERR_BAD_PARAM);
    check_status("value_unload_null_data", PMIx_Value_unload(&v, NULL, &sz), PMIX_ERR_BAD_PARAM);
    check_status("value_unload_null_size", PMIx_Value_unload(&v, &data, NULL), PMIX_ERR_BAD_PARAM);
    data = NULL;
    check_status("value_unload_int_into_null_storage", PMIx_Value_unload(&v, &data, &sz), PMIX_ERR_BAD_PARAM);
    check_status("value_xfer_null_dest", PMIx_Value_xfer(NULL, &v), PMIX_ERR_BAD_PARAM);
    check_status("value_xfer_null_src", PMIx_Value_xfer(&v2, NULL), PMIX_ERR_BAD_PARAM);
    check(PMIx_Value_compare(NULL, &v) == PMIX_VALUE_COMPARISON_NOT_AVAIL, "value_compare_null_first",
          "got another result want PMIX_VALUE_COMPARISON_NOT_AVAIL");
    check(PMIx_Value_compare(&v, NULL) == PMIX_VALUE_COMPARISON_NOT_AVAIL, "value_compare_null_second",
          "got another result want PMIX_VALUE_COMPARISON_NOT_AVAIL");
    PMIx_Value_destruct(NULL);
    check_that(true, "value_destruct_null");

    check_status("info_load_null_info", PMIx_Info_load(NULL, "k", &ival, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("info_load_null_key", PMIx_Info_load(&info, NULL, &ival, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("info_xfer_null_dest", PMIx_Info_xfer(NULL, &info), PMIX_ERR_BAD_PARAM);
    check_status("info_xfer_null_src", PMIx_Info_xfer(&info, NULL), PMIX_ERR_BAD_PARAM);

    PMIx_Data_array_destruct(NULL);
    check_that(true, "data_array_destruct_null");

    check_status("data_pack_null_buffer", PMIx_Data_pack(NULL, NULL, &ival, 1, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("data_pack_null_src", PMIx_Data_pack(NULL, &b, NULL, 1, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("data_pack_negative_count", PMIx_Data_pack(NULL, &b, &ival, -1, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("data_pack_int32_min_count", PMIx_Data_pack(NULL, &b, &ival, INT32_MIN, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check(b.bytes_used == 0 && b.base_ptr == NULL, "data_pack_failures_leave_buffer_empty",
          "got bytes in the buffer want an empty buffer");
    (void) PMIx_Data_pack(NULL, &b, &ival, 1, PMIX_INT);
    check_status("data_unpack_null_buffer", PMIx_Data_unpack(NULL, NULL, &ival, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("data_unpack_null_dest", PMIx_Data_unpack(NULL, &b, NULL, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("data_unpack_null_count", PMIx_Data_unpack(NULL, &b, &ival, NULL, PMIX_INT), PMIX_ERR_BAD_PARAM);
    n = -1;
    check_status("data_unpack_negative_count", PMIx_Data_unpack(NULL, &b, &ival, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
    n = 1;
    ival = 0;
    check_status("data_unpack_after_bad_calls_still_works", PMIx_Data_unpack(NULL, &b, &ival, &n, PMIX_INT),
                 PMIX_SUCCESS);
    buf_free(&b);

    check_status("data_copy_null_dest", PMIx_Data_copy(NULL, &ival, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("data_copy_null_src", PMIx_Data_copy(&out, NULL, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check(out == NULL, "data_copy_failure_leaves_dest", "got dest changed want dest untouched");
    check_status("data_print_null_output", PMIx_Data_print(NULL, NULL, &ival, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("data_print_null_src", PMIx_Data_print(&text, NULL, NULL, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check(text == NULL, "data_print_failure_leaves_output", "got output changed want output untouched");

    check_status("data_copy_payload_null_dest", PMIx_Data_copy_payload(NULL, &b), PMIX_ERR_BAD_PARAM);
    check_status("data_copy_payload_null_src", PMIx_Data_copy_payload(&b, NULL), PMIX_ERR_BAD_PARAM);
    check_status("data_load_null_buffer", PMIx_Data_load(NULL, &bo), PMIX_ERR_BAD_PARAM);
    check_status("data_load_null_payload", PMIx_Data_load(&b, NULL), PMIX_ERR_BAD_PARAM);
    check_status("data_unload_null_buffer", PMIx_Data_unload(NULL, &bo), PMIX_ERR_BAD_PARAM);
    check_status("data_unload_null_payload", PMIx_Data_unload(&b, NULL), PMIX_ERR_BAD_PARAM);
    check_status("data_embed_null_buffer", PMIx_Data_embed(NULL, &bo), PMIX_ERR_BAD_PARAM);
    check_status("data_embed_null_payload", PMIx_Data_embed(&b, NULL), PMIX_ERR_BAD_PARAM);

    check(!PMIx_Data_compress(NULL, 8, &obytes, &onb), "data_compress_null_input", "got true want false");
    check(!PMIx_Data_compress(in, 8, NULL, &onb), "data_compress_null_output", "got true want false");
    check(!PMIx_Data_compress(in, 8, &obytes, NULL), "data_compress_null_size", "got true want false");
    check(!PMIx_Data_compress(in, 0, &obytes, &onb), "data_compress_zero_size", "got true want false");
    check(!PMIx_Data_decompress(NULL, 8, &obytes, &onb), "data_decompress_null_input", "got true want false");
    check(!PMIx_Data_decompress(in, 8, NULL, &onb), "data_decompress_null_output", "got true want false");
    check(!PMIx_Data_decompress(in, 8, &obytes, NULL), "data_decompress_null_size", "got true want false");
    check(!PMIx_Data_decompress(in, 0, &obytes, &onb), "data_decompress_zero_size", "got true want false");
    check(obytes == NULL, "data_compress_failures_leave_output", "got output changed want output untouched");

    check_status("parse_cpuset_null_string", PMIx_Parse_cpuset_string(NULL, &cs), PMIX_ERR_BAD_PARAM);
    check_status("parse_cpuset_null_cpuset", PMIx_Parse_cpuset_string("hwloc:0-3", NULL), PMIX_ERR_BAD_PARAM);
    PMIx_Cpuset_destruct(NULL);
    check_that(true, "cpuset_destruct_null");

    check(PMIx_Get_attribute_string(NULL) == NULL, "get_attribute_string_null", "got non-NULL want NULL");
    check(PMIx_Get_attribute_name(NULL) == NULL, "get_attribute_name_null", "got non-NULL want NULL");
    check(PMIx_Value_string(NULL) == NULL, "value_string_null", "got non-NULL want NULL");
    check(PMIx_Info_string(NULL) == NULL, "info_string_null", "got non-NULL want NULL");
}

/* ------------------------------------------------------------------ */
/* PMIx_Info_list_* with NULL and bogus handles                        */

static void test_info_list(void)
{
    /* a readable, zeroed block that is not a list */
    unsigned char *bogus = calloc(1, 64);
    void *list = PMIx_Info_list_start();
    pmix_info_t info;
    pmix_data_array_t da;
    int ival = 5;
    size_t i;
    bool untouched = true;

    memset(&info, 0, sizeof info);
    memset(&da, 0, sizeof da);
    (void) PMIx_Info_load(&info, "k.int", &ival, PMIX_INT);

    check_status("info_list_add_null_list", PMIx_Info_list_add(NULL, "k", &ival, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("info_list_add_bogus_list", PMIx_Info_list_add(bogus, "k", &ival, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("info_list_add_null_key", PMIx_Info_list_add(list, NULL, &ival, PMIX_INT), PMIX_ERR_BAD_PARAM);
    check_status("info_list_add_unknown_type", PMIx_Info_list_add(list, "k", &ival, 499), PMIX_ERR_UNKNOWN_DATA_TYPE);
    check_status("info_list_insert_null_list", PMIx_Info_list_insert(NULL, &info), PMIX_ERR_BAD_PARAM);
    check_status("info_list_insert_bogus_list", PMIx_Info_list_insert(bogus, &info), PMIX_ERR_BAD_PARAM);
    check_status("info_list_insert_null_info", PMIx_Info_list_insert(list, NULL), PMIX_ERR_BAD_PARAM);
    check_status("info_list_xfer_null_list", PMIx_Info_list_xfer(NULL, &info), PMIX_ERR_BAD_PARAM);
    check_status("info_list_xfer_bogus_list", PMIx_Info_list_xfer(bogus, &info), PMIX_ERR_BAD_PARAM);
    check_status("info_list_xfer_null_info", PMIx_Info_list_xfer(list, NULL), PMIX_ERR_BAD_PARAM);
    check_status("info_list_convert_null_list", PMIx_Info_list_convert(NULL, &da), PMIX_ERR_BAD_PARAM);
    check_status("info_list_convert_bogus_list", PMIx_Info_list_convert(bogus, &da), PMIX_ERR_BAD_PARAM);
    check_status("info_list_convert_null_array", PMIx_Info_list_convert(list, NULL), PMIX_ERR_BAD_PARAM);
    /* every add above failed: the list is still empty */
    check_status("info_list_convert_after_failed_adds_is_empty", PMIx_Info_list_convert(list, &da), PMIX_ERR_EMPTY);
    PMIx_Data_array_destruct(&da);
    PMIx_Info_list_release(NULL);
    check_that(true, "info_list_release_null");
    PMIx_Info_list_release(bogus);
    for (i = 0; i < 64; i++) {
        untouched = untouched && bogus[i] == 0;
    }
    check(untouched, "info_list_release_bogus_list", "got the block was written want no effect");

    /* the real list still works after all that */
    check_status("info_list_add_after_bad_calls", PMIx_Info_list_add(list, "k.ok", &ival, PMIX_INT), PMIX_SUCCESS);
    check_status("info_list_convert_after_bad_calls", PMIx_Info_list_convert(list, &da), PMIX_SUCCESS);
    check(da.type == PMIX_INFO && da.size == 1, "info_list_convert_result", "got another array want 1 PMIX_INFO");
    PMIx_Data_array_destruct(&da);
    PMIx_Info_list_release(list);
    PMIx_Value_destruct(&info.value);
    free(bogus);
}

/* ------------------------------------------------------------------ */
/* keys                                                                */

static void test_keys(void)
{
    /* heap blocks, so that valgrind sees any read past their end */
    char *key512 = malloc(PMIX_MAX_KEYLEN + 1);
    char *key511 = malloc(PMIX_MAX_KEYLEN + 1);
    pmix_info_t info;
    int ival = 1;
    void *list = PMIx_Info_list_start();
    pmix_data_array_t da;

    memset(key512, 'k', PMIX_MAX_KEYLEN + 1); /* 512 bytes, no NUL */
    memset(key511, 'k', PMIX_MAX_KEYLEN);
    key511[PMIX_MAX_KEYLEN] = '\0'; /* the longest valid key */
    memset(&da, 0, sizeof da);

    memset(&info, 0, sizeof info);
    check_status("info_load_unterminated_512_byte_key", PMIx_Info_load(&info, key512, &ival, PMIX_INT),
                 PMIX_ERR_BAD_PARAM);
    PMIx_Value_destruct(&info.value);
    check_status("info_list_add_unterminated_512_byte_key", PMIx_Info_list_add(list, key512, &ival, PMIX_INT),
                 PMIX_ERR_BAD_PARAM);

    memset(&info, 0, sizeof info);
    check_status("info_load_511_char_key", PMIx_Info_load(&info, key511, &ival, PMIX_INT), PMIX_SUCCESS);
    check(strlen(info.key) == PMIX_MAX_KEYLEN && info.value.type == PMIX_INT && info.value.data.integer == 1,
          "info_load_511_char_key_kept", "got another key or value want the full key and the int");
    PMIx_Value_destruct(&info.value);

    check_status("info_list_add_511_char_key", PMIx_Info_list_add(list, key511, &ival, PMIX_INT), PMIX_SUCCESS);
    check_status("info_list_convert_511_char_key", PMIx_Info_list_convert(list, &da), PMIX_SUCCESS);
    PMIx_Data_array_destruct(&da);
    PMIx_Info_list_release(list);
    free(key512);
    free(key511);
}

/* ------------------------------------------------------------------ */
/* unknown data types                                                  */

static void test_unknown_types(void)
{
    char name[128];
    size_t i;
    int ival = 9;
    pmix_data_buffer_t b;
    pmix_value_t v, v2;
    pmix_info_t info;
    void *out;
    char *text;
    int32_t n;
    size_t sz;
    void *data;

    /* type 0 (PMIX_UNDEF) is valid for a value and an info */
    memset(&v, 0, sizeof v);
    check_status("value_load_undef_is_valid", PMIx_Value_load(&v, &ival, PMIX_UNDEF), PMIX_SUCCESS);
    PMIx_Value_destruct(&v);

    /* ... but not as the type of packed, unpacked, copied or printed data */
    buf_init(&b);
    check_status("data_pack_type_0", PMIx_Data_pack(NULL, &b, &ival, 1, PMIX_UNDEF), PMIX_ERR_UNKNOWN_DATA_TYPE);
    check(b.bytes_used == 0, "data_pack_type_0_leaves_buffer_empty", "got bytes in the buffer want an empty buffer");
    (void) PMIx_Data_pack(NULL, &b, &ival, 1, PMIX_INT);
    n = 1;
    check_status("data_unpack_type_0", PMIx_Data_unpack(NULL, &b, &ival, &n, PMIX_UNDEF), PMIX_ERR_UNKNOWN_DATA_TYPE);
    out = NULL;
    check_status("data_copy_type_0", PMIx_Data_copy(&out, &ival, PMIX_UNDEF), PMIX_ERR_UNKNOWN_DATA_TYPE);
    free(out);
    text = NULL;
    check_status("data_print_type_0", PMIx_Data_print(&text, NULL, &ival, PMIX_UNDEF), PMIX_ERR_UNKNOWN_DATA_TYPE);
    free(text);
    buf_free(&b);

    for (i = 0; i < N_UNKNOWN; i++) {
        pmix_data_type_t t = unknown_types[i];
        pmix_data_array_t da;

        memset(&v, 0, sizeof v);
        snprintf(name, sizeof name, "value_load_type_%u", (unsigned) t);
        check_status(name, PMIx_Value_load(&v, &ival, t), PMIX_ERR_UNKNOWN_DATA_TYPE);
        PMIx_Value_destruct(&v);
        memset(&v, 0, sizeof v);
        snprintf(name, sizeof name, "value_load_type_%u_null_data", (unsigned) t);
        check_status(name, PMIx_Value_load(&v, NULL, t), PMIX_ERR_UNKNOWN_DATA_TYPE);
        PMIx_Value_destruct(&v);

        memset(&info, 0, sizeof info);
        snprintf(name, sizeof name, "info_load_type_%u", (unsigned) t);
        check_status(name, PMIx_Info_load(&info, "k", &ival, t), PMIX_ERR_UNKNOWN_DATA_TYPE);
        PMIx_Value_destruct(&info.value);

        buf_init(&b);
        snprintf(name, sizeof name, "data_pack_type_%u", (unsigned) t);
        check_status(name, PMIx_Data_pack(NULL, &b, &ival, 1, t), PMIX_ERR_UNKNOWN_DATA_TYPE);
        snprintf(name, sizeof name, "data_pack_type_%u_zero_count", (unsigned) t);
        check_status(name, PMIx_Data_pack(NULL, &b, NULL, 0, t), PMIX_ERR_UNKNOWN_DATA_TYPE);
        /* a value of that type inside a pmix_value_t */
        memset(&v, 0, sizeof v);
        v.type = t;
        snprintf(name, sizeof name, "data_pack_value_holding_type_%u", (unsigned) t);
        check_status(name, PMIx_Data_pack(NULL, &b, &v, 1, PMIX_VALUE), PMIX_ERR_UNKNOWN_DATA_TYPE);
        /* and a data array of that type */
        memset(&da, 0, sizeof da);
        da.type = t;
        da.size = 1;
        da.array = &ival;
        snprintf(name, sizeof name, "data_pack_data_array_of_type_%u", (unsigned) t);
        check_status(name, PMIx_Data_pack(NULL, &b, &da, 1, PMIX_DATA_ARRAY), PMIX_ERR_UNKNOWN_DATA_TYPE);
        snprintf(name, sizeof name, "data_pack_type_%u_leaves_buffer_empty", (unsigned) t);
        check(b.bytes_used == 0, name, "got bytes in the buffer want an empty buffer");

        (void) PMIx_Data_pack(NULL, &b, &ival, 1, PMIX_INT);
        n = 1;
        snprintf(name, sizeof name, "data_unpack_type_%u", (unsigned) t);
        check_status(name, PMIx_Data_unpack(NULL, &b, &ival, &n, t), PMIX_ERR_UNKNOWN_DATA_TYPE);
        buf_free(&b);

        out = NULL;
        snprintf(name, sizeof name, "data_copy_type_%u", (unsigned) t);
        check_status(name, PMIx_Data_copy(&out, &ival, t), PMIX_ERR_UNKNOWN_DATA_TYPE);
        free(out);

        text = NULL;
        snprintf(name, sizeof name, "data_print_type_%u", (unsigned) t);
        check_status(name, PMIx_Data_print(&text, NULL, &ival, t), PMIX_ERR_UNKNOWN_DATA_TYPE);
        free(text);

        /* values that claim the type */
        memset(&v, 0, sizeof v);
        v.type = t;
        data = &ival;
        sz = 0;
        snprintf(name, sizeof name, "value_unload_type_%u", (unsigned) t);
        check_status(name, PMIx_Value_unload(&v, &data, &sz), PMIX_ERR_UNKNOWN_DATA_TYPE);
        memset(&v2, 0, sizeof v2);
        snprintf(name, sizeof name, "value_xfer_type_%u", (unsigned) t);
        check_status(name, PMIx_Value_xfer(&v2, &v), PMIX_ERR_UNKNOWN_DATA_TYPE);
        PMIx_Value_destruct(&v2);
        memset(&info, 0, sizeof info);
        memcpy(info.key, "k", 2);
        info.value.type = t;
        memset(&v2, 0, sizeof v2);
        {
            pmix_info_t dst;
            memset(&dst, 0, sizeof dst);
            snprintf(name, sizeof name, "info_xfer_type_%u", (unsigned) t);
            check_status(name, PMIx_Info_xfer(&dst, &info), PMIX_ERR_UNKNOWN_DATA_TYPE);
            PMIx_Value_destruct(&dst.value);
        }
        v2.type = t;
        snprintf(name, sizeof name, "value_compare_type_%u", (unsigned) t);
        check(PMIx_Value_compare(&v, &v2) == PMIX_VALUE_COMPARISON_NOT_AVAIL, name,
              "got another result want PMIX_VALUE_COMPARISON_NOT_AVAIL");
        PMIx_Value_destruct(&v);
        snprintf(name, sizeof name, "value_destruct_type_%u", (unsigned) t);
        check_that(true, name);

        /* a data array of an unknown type: destruct must not walk it (it frees the block) */
        memset(&da, 0, sizeof da);
        da.type = t;
        da.size = 4;
        da.array = calloc(4, 16);
        PMIx_Data_array_destruct(&da);
        snprintf(name, sizeof name, "data_array_destruct_type_%u", (unsigned) t);
        check(da.array == NULL && da.size == 0, name, "got array left set want an emptied array");
        free(da.array);

        /* an info list refuses it too */
        {
            void *list = PMIx_Info_list_start();
            snprintf(name, sizeof name, "info_list_add_type_%u", (unsigned) t);
            check_status(name, PMIx_Info_list_add(list, "k", &ival, t), PMIX_ERR_UNKNOWN_DATA_TYPE);
            PMIx_Info_list_release(list);
        }
    }
}

/* ------------------------------------------------------------------ */
/* absurd sizes                                                        */

static void test_absurd_sizes(void)
{
    static const struct {
        const char *name;
        pmix_data_type_t type;
        size_t size;
    } arrays[] = {
        {"int_size_max", PMIX_INT, SIZE_MAX},
        {"uint8_size_max", PMIX_UINT8, SIZE_MAX},
        {"uint8_half_size_max", PMIX_UINT8, SIZE_MAX / 2 + 1},
        {"info_size_max", PMIX_INFO, SIZE_MAX},
        {"info_overflowing_bytes", PMIX_INFO, SIZE_MAX / sizeof(pmix_info_t) + 1},
        {"value_size_max", PMIX_VALUE, SIZE_MAX},
        {"string_size_max", PMIX_STRING, SIZE_MAX},
    };
    char name[160];
    size_t i;
    int small[4] = {1, 2, 3, 4};

    for (i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        pmix_data_array_t da;
        pmix_value_t v, v2;
        pmix_info_t info;
        void *out = NULL;

        da.type = arrays[i].type;
        da.size = arrays[i].size;
        da.array = small;

        memset(&v, 0, sizeof v);
        snprintf(name, sizeof name, "value_load_data_array_%s", arrays[i].name);
        check_status2(name, PMIx_Value_load(&v, &da, PMIX_DATA_ARRAY), PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM);
        PMIx_Value_destruct(&v);

        memset(&info, 0, sizeof info);
        snprintf(name, sizeof name, "info_load_data_array_%s", arrays[i].name);
        check_status2(name, PMIx_Info_load(&info, "k", &da, PMIX_DATA_ARRAY), PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM);
        PMIx_Value_destruct(&info.value);

        memset(&v, 0, sizeof v);
        v.type = PMIX_DATA_ARRAY;
        v.data.darray = &da;
        memset(&v2, 0, sizeof v2);
        snprintf(name, sizeof name, "value_xfer_data_array_%s", arrays[i].name);
        check_status2(name, PMIx_Value_xfer(&v2, &v), PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM);
        PMIx_Value_destruct(&v2);

        snprintf(name, sizeof name, "data_copy_data_array_%s", arrays[i].name);
        check_status2(name, PMIx_Data_copy(&out, &da, PMIX_DATA_ARRAY), PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM);
        snprintf(name, sizeof name, "data_copy_data_array_%s_leaves_dest", arrays[i].name);
        check(out == NULL, name, "got dest set want dest untouched");
    }

    /* A byte object claiming SIZE_MAX bytes can never be real (more than
     * PTRDIFF_MAX): it must be refused before any allocation or read. */
    {
        pmix_byte_object_t bo;
        pmix_value_t v, v2;
        pmix_data_buffer_t b;
        void *out = NULL, *data = NULL;
        size_t sz = 0;
        char *bytes = malloc(8);

        memcpy(bytes, "1234567", 8);
        bo.bytes = bytes;
        bo.size = SIZE_MAX;
        {
            memset(&v, 0, sizeof v);
            check_status2("value_load_byte_object_size_max", PMIx_Value_load(&v, &bo, PMIX_BYTE_OBJECT),
                          PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM);
            PMIx_Value_destruct(&v);
        }
        {
            check_status2("data_copy_byte_object_size_max", PMIx_Data_copy(&out, &bo, PMIX_BYTE_OBJECT),
                          PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM);
        }
        memset(&v, 0, sizeof v);
        v.type = PMIX_BYTE_OBJECT;
        v.data.bo = bo;
        {
            memset(&v2, 0, sizeof v2);
            check_status2("value_xfer_byte_object_size_max", PMIx_Value_xfer(&v2, &v), PMIX_ERR_BAD_PARAM,
                          PMIX_ERR_NOMEM);
            PMIx_Value_destruct(&v2);
        }
        {
            check_status2("value_unload_byte_object_size_max", PMIx_Value_unload(&v, &data, &sz), PMIX_ERR_BAD_PARAM,
                          PMIX_ERR_NOMEM);
        }
        {
            buf_init(&b);
            check_status2("data_pack_byte_object_size_max", PMIx_Data_pack(NULL, &b, &bo, 1, PMIX_BYTE_OBJECT),
                          PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM);
            buf_free(&b);
        }
        free(bytes);
    }
}

/* ------------------------------------------------------------------ */
/* cycles and deep nesting                                             */

static void test_nesting(void)
{
    pmix_value_t cyc, dst;
    pmix_info_t info;
    pmix_data_array_t dcyc;
    pmix_data_buffer_t b;
    void *out = NULL;
    pmix_value_cmp_t cmp;

    /* a value that contains itself */
    memset(&cyc, 0, sizeof cyc);
    cyc.type = PMIX_VALUE;
    cyc.data.ptr = &cyc;
    /* a data array that contains itself */
    dcyc.type = PMIX_DATA_ARRAY;
    dcyc.size = 1;
    dcyc.array = &dcyc;

    memset(&dst, 0, sizeof dst);
    check_status("value_xfer_cyclic_value", PMIx_Value_xfer(&dst, &cyc), PMIX_ERR_BAD_PARAM);
    PMIx_Value_destruct(&dst);
    memset(&dst, 0, sizeof dst);
    check_status("value_load_cyclic_value", PMIx_Value_load(&dst, &cyc, PMIX_VALUE), PMIX_ERR_BAD_PARAM);
    PMIx_Value_destruct(&dst);
    memset(&dst, 0, sizeof dst);
    check_status("value_load_cyclic_data_array", PMIx_Value_load(&dst, &dcyc, PMIX_DATA_ARRAY), PMIX_ERR_BAD_PARAM);
    PMIx_Value_destruct(&dst);
    memset(&info, 0, sizeof info);
    check_status("info_load_cyclic_value", PMIx_Info_load(&info, "k", &cyc, PMIX_VALUE), PMIX_ERR_BAD_PARAM);
    PMIx_Value_destruct(&info.value);
    check_status("data_copy_cyclic_value", PMIx_Data_copy(&out, &cyc, PMIX_VALUE), PMIX_ERR_BAD_PARAM);
    check_status("data_copy_cyclic_data_array", PMIx_Data_copy(&out, &dcyc, PMIX_DATA_ARRAY), PMIX_ERR_BAD_PARAM);
    buf_init(&b);
    check_status("data_pack_cyclic_value", PMIx_Data_pack(NULL, &b, &cyc, 1, PMIX_VALUE), PMIX_ERR_BAD_PARAM);
    check_status("data_pack_cyclic_data_array", PMIx_Data_pack(NULL, &b, &dcyc, 1, PMIX_DATA_ARRAY),
                 PMIX_ERR_BAD_PARAM);
    check(b.bytes_used == 0, "data_pack_cyclic_leaves_buffer_empty", "got bytes in the buffer want an empty buffer");
    buf_free(&b);
    cmp = PMIx_Value_compare(&cyc, &cyc);
    check(cmp == PMIX_VALUE_INCOMPATIBLE_OBJECTS || cmp == PMIX_VALUE_COMPARISON_NOT_AVAIL,
          "value_compare_cyclic_value",
          "got another result want PMIX_VALUE_INCOMPATIBLE_OBJECTS or PMIX_VALUE_COMPARISON_NOT_AVAIL");

    /* crafted buffers: a PMIX_VALUE nesting `levels` values around an int */
    {
        static const int levels[] = {10, 31, 32, 40, 1000};
        size_t k;
        for (k = 0; k < sizeof levels / sizeof levels[0]; k++) {
            int L = levels[k];
            size_t len = 1 + (size_t) L + 2, p = 0;
            unsigned char *raw = malloc(len);
            pmix_value_t v;
            int32_t n = 1;
            pmix_status_t rc;
            char name[96];
            int j;

            /* OpenPMIx's v41 form: count 1 (zigzag 2), then each value's
             * type (PMIX_VALUE), then an int 5 (type PMIX_INT, zigzag 10) */
            raw[p++] = 2;
            for (j = 0; j < L; j++) raw[p++] = PMIX_VALUE;
            raw[p++] = PMIX_INT;
            raw[p++] = 10;
            (void) buf_embed(&b, raw, len);
            memset(&v, 0, sizeof v);
            rc = PMIx_Data_unpack(NULL, &b, &v, &n, PMIX_VALUE);
            snprintf(name, sizeof name, "data_unpack_values_nested_%d_deep", L);
            /* rpmix refuses nesting deeper than 32 (src/data/elem.rs MAX_DEPTH) */
            if (L < 32) {
                check_status(name, rc, PMIX_SUCCESS);
            } else {
                check_status(name, rc, PMIX_ERR_UNPACK_FAILURE);
            }
            if (rc == PMIX_SUCCESS) {
                PMIx_Value_destruct(&v);
            }
            buf_free(&b);
            free(raw);
        }
    }
}

/* Cases with unbounded recursion if the library does not guard: run in a child. */
static int child_print_cyclic_value(void)
{
    pmix_value_t v;
    char *text = NULL;
    pmix_status_t rc;
    memset(&v, 0, sizeof v);
    v.type = PMIX_VALUE;
    v.data.ptr = &v;
    rc = PMIx_Data_print(&text, NULL, &v, PMIX_VALUE);
    free(text);
    return (rc == PMIX_ERR_BAD_PARAM || rc == PMIX_SUCCESS) ? 0 : 1;
}

static int child_print_cyclic_data_array(void)
{
    pmix_data_array_t d;
    char *text = NULL;
    pmix_status_t rc;
    d.type = PMIX_DATA_ARRAY;
    d.size = 1;
    d.array = &d;
    rc = PMIx_Data_print(&text, NULL, &d, PMIX_DATA_ARRAY);
    free(text);
    return (rc == PMIX_ERR_BAD_PARAM || rc == PMIX_SUCCESS) ? 0 : 1;
}

static int child_value_string_cyclic(void)
{
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_VALUE;
    v.data.ptr = &v;
    free(PMIx_Value_string(&v));
    return 0;
}

static int child_info_string_cyclic(void)
{
    pmix_info_t info;
    memset(&info, 0, sizeof info);
    memcpy(info.key, "k", 2);
    info.value.type = PMIX_VALUE;
    info.value.data.ptr = &info.value;
    free(PMIx_Info_string(&info));
    return 0;
}

/* A data array claiming SIZE_MAX elements over a 4-int block. */
static void huge_array(pmix_data_array_t *d, void *block)
{
    d->type = PMIX_INT;
    d->size = SIZE_MAX;
    d->array = block;
}

static int child_pack_data_array_size_max(void)
{
    int small[4] = {1, 2, 3, 4};
    pmix_data_array_t d;
    pmix_data_buffer_t b;
    pmix_status_t rc;
    huge_array(&d, small);
    buf_init(&b);
    rc = PMIx_Data_pack(NULL, &b, &d, 1, PMIX_DATA_ARRAY);
    buf_free(&b);
    return (rc == PMIX_ERR_BAD_PARAM || rc == PMIX_ERR_NOMEM) ? 0 : 1;
}

static int child_print_data_array_size_max(void)
{
    int small[4] = {1, 2, 3, 4};
    pmix_data_array_t d;
    char *text = NULL;
    pmix_status_t rc;
    huge_array(&d, small);
    rc = PMIx_Data_print(&text, NULL, &d, PMIX_DATA_ARRAY);
    free(text);
    return (rc == PMIX_ERR_BAD_PARAM || rc == PMIX_SUCCESS) ? 0 : 1;
}

static int child_compare_data_array_size_max(void)
{
    int a[4] = {1, 2, 3, 4}, c[4] = {1, 2, 3, 4};
    pmix_data_array_t d1, d2;
    pmix_value_t v1, v2;
    huge_array(&d1, a);
    huge_array(&d2, c);
    memset(&v1, 0, sizeof v1);
    memset(&v2, 0, sizeof v2);
    v1.type = v2.type = PMIX_DATA_ARRAY;
    v1.data.darray = &d1;
    v2.data.darray = &d2;
    (void) PMIx_Value_compare(&v1, &v2);
    return 0;
}

static int child_destruct_data_array_size_max(void)
{
    pmix_data_array_t d;
    huge_array(&d, calloc(4, sizeof(int)));
    PMIx_Data_array_destruct(&d);
    return 0;
}

static int child_compare_byte_objects_size_max(void)
{
    char *a = malloc(8), *c = malloc(8);
    pmix_value_t v1, v2;
    memcpy(a, "1234567", 8);
    memcpy(c, "1234567", 8);
    memset(&v1, 0, sizeof v1);
    memset(&v2, 0, sizeof v2);
    v1.type = v2.type = PMIX_BYTE_OBJECT;
    v1.data.bo.bytes = a;
    v1.data.bo.size = SIZE_MAX;
    v2.data.bo.bytes = c;
    v2.data.bo.size = SIZE_MAX;
    (void) PMIx_Value_compare(&v1, &v2);
    free(a);
    free(c);
    return 0;
}

#define WANT_PRINT "no crash and PMIX_ERR_BAD_PARAM or PMIX_SUCCESS"
#define WANT_NO_CRASH "no crash"
static const struct {
    const char *name;
    int (*fn)(void);
    const char *want;
} child_cases[] = {
    {"data_print_cyclic_value", child_print_cyclic_value, WANT_PRINT},
    {"data_print_cyclic_data_array", child_print_cyclic_data_array, WANT_PRINT},
    {"value_string_cyclic_value", child_value_string_cyclic, WANT_NO_CRASH},
    {"info_string_cyclic_value", child_info_string_cyclic, WANT_NO_CRASH},
    {"data_pack_data_array_size_max", child_pack_data_array_size_max,
     "no crash and PMIX_ERR_BAD_PARAM or PMIX_ERR_NOMEM"},
    {"data_print_data_array_size_max", child_print_data_array_size_max, WANT_PRINT},
    {"value_compare_data_array_size_max", child_compare_data_array_size_max, WANT_NO_CRASH},
    {"data_array_destruct_size_max", child_destruct_data_array_size_max, WANT_NO_CRASH},
    {"value_compare_byte_objects_size_max", child_compare_byte_objects_size_max, WANT_NO_CRASH},
};
#define N_CHILD (sizeof child_cases / sizeof child_cases[0])

static void test_isolated(void)
{
    size_t i;
    for (i = 0; i < N_CHILD; i++) {
        char cmd[4096];
        int rc;
        if (strchr(self_path, '\'') != NULL) {
            check(false, child_cases[i].name, "got a program path with a quote want a path usable in a shell command");
            continue;
        }
        snprintf(cmd, sizeof cmd, "'%s' --child %s", self_path, child_cases[i].name);
        fflush(stdout);
        rc = system(cmd);
        if (rc == 0) {
            check_that(true, child_cases[i].name);
        } else {
            char got[96];
            /* system() gives a wait status; the shell reports a signal as 128 + n */
            if ((rc & 0xff) == 0 && (rc >> 8) > 128) {
                snprintf(got, sizeof got, "a crash (signal %d)", (rc >> 8) - 128);
            } else {
                snprintf(got, sizeof got, "child status %d", rc);
            }
            check(false, child_cases[i].name, "got %s want %s", got, child_cases[i].want);
        }
    }
}

/* ------------------------------------------------------------------ */
/* the sample: string x2, info x3, data array of values x1, proc x2    */

struct sample {
    char *strs[2];
    pmix_proc_t procs[2];
    pmix_info_t infos[3];
    pmix_value_t vals[3];
    pmix_data_array_t da;
};

static void sample_build(struct sample *s)
{
    int i42 = 42, i7 = 7;
    bool t = true;
    memset(s, 0, sizeof *s);
    s->strs[0] = "hello";
    s->strs[1] = "world of pmix";
    set_nspace(&s->procs[0], "rpmix-test", 3);
    set_nspace(&s->procs[1], "rpmix-other", 7);
    (void) PMIx_Info_load(&s->infos[0], "k.int", &i42, PMIX_INT);
    (void) PMIx_Info_load(&s->infos[1], "k.str", "value", PMIX_STRING);
    (void) PMIx_Info_load(&s->infos[2], "k.proc", &s->procs[0], PMIX_PROC);
    (void) PMIx_Value_load(&s->vals[0], &i7, PMIX_INT);
    (void) PMIx_Value_load(&s->vals[1], "abc", PMIX_STRING);
    (void) PMIx_Value_load(&s->vals[2], &t, PMIX_BOOL);
    s->da.type = PMIX_VALUE;
    s->da.size = 3;
    s->da.array = s->vals;
}

static void sample_free(struct sample *s)
{
    int i;
    for (i = 0; i < 3; i++) {
        PMIx_Value_destruct(&s->infos[i].value);
        PMIx_Value_destruct(&s->vals[i]);
    }
}

/* Pack item `step` (0..3) of the sample, or all of them for step < 0. */
static pmix_status_t sample_pack(pmix_data_buffer_t *b, struct sample *s, int step)
{
    pmix_status_t rc = PMIX_SUCCESS;
    if ((step < 0 || step == 0) && rc == PMIX_SUCCESS) {
        rc = PMIx_Data_pack(NULL, b, s->strs, 2, PMIX_STRING);
    }
    if ((step < 0 || step == 1) && rc == PMIX_SUCCESS) {
        rc = PMIx_Data_pack(NULL, b, s->infos, 3, PMIX_INFO);
    }
    if ((step < 0 || step == 2) && rc == PMIX_SUCCESS) {
        rc = PMIx_Data_pack(NULL, b, &s->da, 1, PMIX_DATA_ARRAY);
    }
    if ((step < 0 || step == 3) && rc == PMIX_SUCCESS) {
        rc = PMIx_Data_pack(NULL, b, s->procs, 2, PMIX_PROC);
    }
    return rc;
}

#define VERIFY_FAILED (-9999) /* unpacked fine, but not the packed data */
#define CURSOR_MOVED (-9998)  /* failed, but consumed bytes */

static bool proc_is(const pmix_proc_t *p, const char *ns, pmix_rank_t r)
{
    return 0 == strcmp(p->nspace, ns) && p->rank == r;
}

/* Unpack item `step` of the sample; verify it when asked; free what was unpacked. */
static pmix_status_t sample_unpack(pmix_data_buffer_t *b, int step, bool verify)
{
    size_t before = buf_off(b);
    pmix_status_t rc = PMIX_ERROR;
    bool good = true;
    int32_t n, i;

    switch (step) {
    case 0: {
        char *o[2] = {NULL, NULL};
        n = 2;
        rc = PMIx_Data_unpack(NULL, b, o, &n, PMIX_STRING);
        if (rc == PMIX_SUCCESS) {
            good = n == 2 && o[0] && o[1] && 0 == strcmp(o[0], "hello") && 0 == strcmp(o[1], "world of pmix");
            for (i = 0; i < n && i < 2; i++) {
                free(o[i]);
            }
        }
        break;
    }
    case 1: {
        pmix_info_t o[3];
        memset(o, 0, sizeof o);
        n = 3;
        rc = PMIx_Data_unpack(NULL, b, o, &n, PMIX_INFO);
        if (rc == PMIX_SUCCESS) {
            good = n == 3 && 0 == strcmp(o[0].key, "k.int") && o[0].value.type == PMIX_INT
                   && o[0].value.data.integer == 42 && 0 == strcmp(o[1].key, "k.str")
                   && o[1].value.type == PMIX_STRING && o[1].value.data.string
                   && 0 == strcmp(o[1].value.data.string, "value") && 0 == strcmp(o[2].key, "k.proc")
                   && o[2].value.type == PMIX_PROC && o[2].value.data.proc
                   && proc_is(o[2].value.data.proc, "rpmix-test", 3);
            for (i = 0; i < n && i < 3; i++) {
                PMIx_Value_destruct(&o[i].value);
            }
        }
        break;
    }
    case 2: {
        pmix_data_array_t o[1];
        memset(o, 0, sizeof o);
        n = 1;
        rc = PMIx_Data_unpack(NULL, b, o, &n, PMIX_DATA_ARRAY);
        if (rc == PMIX_SUCCESS) {
            pmix_value_t *v = (pmix_value_t *) o[0].array;
            good = n == 1 && o[0].type == PMIX_VALUE && o[0].size == 3 && v != NULL
                   && v[0].type == PMIX_INT && v[0].data.integer == 7 && v[1].type == PMIX_STRING
                   && v[1].data.string && 0 == strcmp(v[1].data.string, "abc")
                   && v[2].type == PMIX_BOOL && v[2].data.flag;
            if (n == 1) {
                PMIx_Data_array_destruct(&o[0]);
            }
        }
        break;
    }
    case 3: {
        pmix_proc_t o[2];
        memset(o, 0, sizeof o);
        n = 2;
        rc = PMIx_Data_unpack(NULL, b, o, &n, PMIX_PROC);
        if (rc == PMIX_SUCCESS) {
            good = n == 2 && proc_is(&o[0], "rpmix-test", 3) && proc_is(&o[1], "rpmix-other", 7);
        }
        break;
    }
    default:
        break;
    }
    if (rc == PMIX_SUCCESS && verify && !good) {
        return VERIFY_FAILED;
    }
    if (rc != PMIX_SUCCESS && buf_off(b) != before) {
        return CURSOR_MOVED;
    }
    return rc;
}

static void test_truncation(void)
{
    struct sample s;
    pmix_data_buffer_t b;
    pmix_byte_object_t full;
    int step;
    char name[128], got[160];

    sample_build(&s);

    /* all four items in one buffer: every truncation must fail somewhere */
    for (step = -1; step < 4; step++) {
        size_t L;
        bool ok = true;
        buf_init(&b);
        memset(&full, 0, sizeof full);
        (void) sample_pack(&b, &s, step);
        (void) PMIx_Data_unload(&b, &full);
        buf_free(&b);

        if (step < 0) {
            /* sanity: the whole buffer unpacks to what was packed */
            pmix_status_t rc = PMIX_SUCCESS;
            int k;
            (void) buf_embed(&b, (unsigned char *) full.bytes, full.size);
            for (k = 0; k < 4 && rc == PMIX_SUCCESS; k++) {
                rc = sample_unpack(&b, k, true);
            }
            check_status("sample_full_buffer_round_trip", rc, PMIX_SUCCESS);
            buf_free(&b);
        }

        got[0] = '\0';
        for (L = 0; L < full.size && ok; L++) {
            pmix_status_t rc = PMIX_SUCCESS;
            int k, first = step < 0 ? 0 : step, last = step < 0 ? 3 : step;
            (void) buf_embed(&b, (unsigned char *) full.bytes, L);
            for (k = first; k <= last && rc == PMIX_SUCCESS; k++) {
                rc = sample_unpack(&b, k, true);
            }
            if (rc == PMIX_SUCCESS) {
                ok = false;
                snprintf(got, sizeof got, "success at L=%zu", L);
            } else if (rc == CURSOR_MOVED) {
                ok = false;
                snprintf(got, sizeof got, "a failed unpack moved the cursor at L=%zu", L);
            } else if (rc != PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER && rc != PMIX_ERR_UNPACK_FAILURE) {
                ok = false;
                snprintf(got, sizeof got, "%d at L=%zu", rc, L);
            }
            buf_free(&b);
        }
        if (step < 0) {
            snprintf(name, sizeof name, "truncated_sample_buffer_L_0_to_%zu", full.size - 1);
        } else {
            static const char *const what[] = {"strings", "infos", "data_array_of_values", "procs"};
            snprintf(name, sizeof name, "truncated_%s_buffer_L_0_to_%zu", what[step], full.size - 1);
        }
        check(ok, name, "got %s want %s", got,
              "PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER or PMIX_ERR_UNPACK_FAILURE for every L");
        free(full.bytes);
    }
    sample_free(&s);
}

/* ------------------------------------------------------------------ */
/* wrong type, too small destination, empty buffer                     */

static void test_unpack_mismatch(void)
{
    pmix_data_buffer_t b;
    int vals[3] = {1, 2, 3}, out[3] = {0, 0, 0};
    int32_t n, i32s[3] = {0, 0, 0};
    char *strs[3] = {NULL, NULL, NULL};
    uint64_t u[3] = {0, 0, 0};

    buf_init(&b);
    n = 1;
    check_status("data_unpack_empty_buffer", PMIx_Data_unpack(NULL, &b, out, &n, PMIX_INT),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    (void) PMIx_Data_pack(NULL, &b, vals, 3, PMIX_INT);
    /* The default (non-described) form carries no types, as OpenPMIx's: a
     * wrong type is caught only where the bytes cannot be that type. */
    n = 3;
    check_status("data_unpack_int_as_string", PMIx_Data_unpack(NULL, &b, strs, &n, PMIX_STRING),
                 PMIX_ERR_UNPACK_FAILURE);
    n = 2;
    check_status("data_unpack_3_into_room_for_2", PMIx_Data_unpack(NULL, &b, out, &n, PMIX_INT),
                 PMIX_ERR_UNPACK_INADEQUATE_SPACE);
    n = 0;
    check_status("data_unpack_3_into_room_for_0", PMIx_Data_unpack(NULL, &b, out, &n, PMIX_INT),
                 PMIX_ERR_UNPACK_INADEQUATE_SPACE);
    check(buf_off(&b) == 0 && strs[0] == NULL && out[0] == 0, "data_unpack_failures_keep_cursor",
          "got the cursor moved or the destination changed want nothing consumed");
    n = 3;
    check_status("data_unpack_after_failures", PMIx_Data_unpack(NULL, &b, out, &n, PMIX_INT), PMIX_SUCCESS);
    check(n == 3 && out[0] == 1 && out[1] == 2 && out[2] == 3, "data_unpack_after_failures_values",
          "got other values want 1 2 3");
    /* int and int32 share their encoding; a uint64 reads the zigzag varints as they are */
    (void) PMIx_Data_pack(NULL, &b, vals, 3, PMIX_INT);
    (void) PMIx_Data_pack(NULL, &b, vals, 3, PMIX_INT);
    n = 3;
    check_status("data_unpack_int_as_int32", PMIx_Data_unpack(NULL, &b, i32s, &n, PMIX_INT32), PMIX_SUCCESS);
    check(n == 3 && i32s[0] == 1 && i32s[2] == 3, "data_unpack_int_as_int32_values", "got other values want 1 2 3");
    n = 3;
    check_status("data_unpack_int_as_uint64", PMIx_Data_unpack(NULL, &b, u, &n, PMIX_UINT64), PMIX_SUCCESS);
    check(n == 3 && u[0] == 2 && u[1] == 4 && u[2] == 6, "data_unpack_int_as_uint64_values",
          "got other values want 2 4 6 (zigzag)");
    n = 1;
    check_status("data_unpack_past_end", PMIx_Data_unpack(NULL, &b, out, &n, PMIX_INT),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    buf_free(&b);
}

/* ------------------------------------------------------------------ */
/* inconsistent buffer structs                                         */

static void test_inconsistent_buffers(void)
{
    static const char *const what[] = {"used_gt_allocated", "unpack_ptr_before_base",
                                       "unpack_ptr_after_used", "null_base_with_bytes"};
    char store[256];
    int k;
    char name[128];

    for (k = 0; k < 4; k++) {
        pmix_data_buffer_t b, good;
        pmix_byte_object_t bo;
        int ival = 1, out = 0;
        int32_t n = 1;
        char *payload;

        memset(store, 0, sizeof store);
        memset(&b, 0, sizeof b);
        b.base_ptr = store + 64;
        b.pack_ptr = store + 64;
        b.unpack_ptr = store + 64;
        b.bytes_allocated = 64;
        b.bytes_used = 16;
        switch (k) {
        case 0:
            b.bytes_used = 100;
            b.bytes_allocated = 50;
            break;
        case 1:
            b.unpack_ptr = store + 8;
            break;
        case 2:
            b.unpack_ptr = store + 64 + 17;
            break;
        default:
            b.base_ptr = NULL;
            b.pack_ptr = NULL;
            b.unpack_ptr = NULL;
            b.bytes_allocated = 0;
            break;
        }

        snprintf(name, sizeof name, "inconsistent_buffer_%s_unpack", what[k]);
        check_status(name, PMIx_Data_unpack(NULL, &b, &out, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
        snprintf(name, sizeof name, "inconsistent_buffer_%s_pack", what[k]);
        check_status(name, PMIx_Data_pack(NULL, &b, &ival, 1, PMIX_INT), PMIX_ERR_BAD_PARAM);

        buf_init(&good);
        (void) PMIx_Data_pack(NULL, &good, &ival, 1, PMIX_INT);
        snprintf(name, sizeof name, "inconsistent_buffer_%s_copy_payload_from", what[k]);
        check_status(name, PMIx_Data_copy_payload(&good, &b), PMIX_ERR_BAD_PARAM);
        snprintf(name, sizeof name, "inconsistent_buffer_%s_copy_payload_into", what[k]);
        check_status(name, PMIx_Data_copy_payload(&b, &good), PMIX_ERR_BAD_PARAM);
        buf_free(&good);

        memset(&bo, 0, sizeof bo);
        snprintf(name, sizeof name, "inconsistent_buffer_%s_unload", what[k]);
        check_status(name, PMIx_Data_unload(&b, &bo), PMIX_ERR_BAD_PARAM);

        payload = malloc(8);
        memset(payload, 1, 8);
        bo.bytes = payload;
        bo.size = 8;
        snprintf(name, sizeof name, "inconsistent_buffer_%s_load", what[k]);
        check_status(name, PMIx_Data_load(&b, &bo), PMIX_ERR_BAD_PARAM);
        snprintf(name, sizeof name, "inconsistent_buffer_%s_load_keeps_payload", what[k]);
        check(bo.bytes == payload && bo.size == 8, name, "got the payload was taken want the payload untouched");
        snprintf(name, sizeof name, "inconsistent_buffer_%s_embed", what[k]);
        check_status(name, PMIx_Data_embed(&b, &bo), PMIX_ERR_BAD_PARAM);
        free(payload);

        {
            void *copy = NULL;
            snprintf(name, sizeof name, "inconsistent_buffer_%s_data_copy", what[k]);
            check_status(name, PMIx_Data_copy(&copy, &b, PMIX_DATA_BUFFER), PMIX_ERR_BAD_PARAM);
        }
    }
}

/* PMIx_Data_embed of a payload that points into the buffer itself. */
static void test_embed_own_bytes(void)
{
    pmix_data_buffer_t b;
    pmix_byte_object_t bo;
    int vals[4] = {11, 22, 33, 44}, out[4] = {0, 0, 0, 0};
    int32_t n = 4;
    pmix_status_t rc;

    buf_init(&b);
    (void) PMIx_Data_pack(NULL, &b, vals, 4, PMIX_INT);
    bo.bytes = b.base_ptr;
    bo.size = b.bytes_used;
    rc = PMIx_Data_embed(&b, &bo);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Data_unpack(NULL, &b, out, &n, PMIX_INT);
    }
    if (rc == PMIX_SUCCESS && !(n == 4 && out[0] == 11 && out[1] == 22 && out[2] == 33 && out[3] == 44)) {
        check(false, "data_embed_own_bytes", "got other data after the embed want the packed ints 11 22 33 44");
    } else {
        check_status("data_embed_own_bytes", rc, PMIX_SUCCESS);
    }
    buf_free(&b);
}

/* ------------------------------------------------------------------ */
/* compress / decompress of garbage, cpuset strings                    */

static void test_compress_and_cpuset(void)
{
    uint8_t *zeros = calloc(1, 4096), *c = NULL, *d = NULL, *garbage = malloc(256);
    size_t nc = 0, nd = 0, i;
    uint8_t huge[16] = {0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    static const char *const bad_cpusets[] = {"", ":", "hwloc", "hwloc:", ":0-3", "hw loc:0-3",
                                              "hwloc:zz", "hwloc:0-3;7", "hwloc:0-3 ", "hwloc\n:1"};
    char name[128];

    srand(7);
    for (i = 0; i < 256; i++) {
        garbage[i] = (uint8_t) (rand() & 0xff);
    }
    check(!PMIx_Data_decompress(garbage, 256, &d, &nd), "data_decompress_garbage", "got true want false");
    check(!PMIx_Data_decompress(huge, sizeof huge, &d, &nd), "data_decompress_huge_claimed_size",
          "got true want false");
    check(PMIx_Data_compress(zeros, 4096, &c, &nc) && c != NULL && nc > 0, "data_compress_4096_zeros",
          "got false want true");
    if (c != NULL) {
        check(!PMIx_Data_decompress(c, nc / 2, &d, &nd), "data_decompress_truncated", "got true want false");
        check(!PMIx_Data_decompress(c, 1, &d, &nd), "data_decompress_1_byte", "got true want false");
        check(PMIx_Data_decompress(c, nc, &d, &nd) && nd == 4096, "data_decompress_round_trip", "got false want true");
        free(d);
        free(c);
    }
    free(zeros);
    free(garbage);

    for (i = 0; i < sizeof bad_cpusets / sizeof bad_cpusets[0]; i++) {
        pmix_cpuset_t cs;
        memset(&cs, 0, sizeof cs);
        snprintf(name, sizeof name, "parse_cpuset_bad_string_%zu", i);
        check_status(name, PMIx_Parse_cpuset_string(bad_cpusets[i], &cs), PMIX_ERR_BAD_PARAM);
        PMIx_Cpuset_destruct(&cs);
    }
    {
        pmix_cpuset_t cs;
        memset(&cs, 0, sizeof cs);
        check_status("parse_cpuset_good_string", PMIx_Parse_cpuset_string("hwloc:0-3,8", &cs), PMIX_SUCCESS);
        PMIx_Cpuset_destruct(&cs);
    }
    {
        /* binding and locality: NULLs and foreign or malformed input */
        pmix_cpuset_t cs, foreign;
        pmix_locality_t l = 12345;
        char *out = (char *) 1;
        int dummy;
        memset(&cs, 0, sizeof cs);
        check_status("get_cpuset_null", PMIx_Get_cpuset(NULL, PMIX_CPUBIND_PROCESS), PMIX_ERR_BAD_PARAM);
        check_status("get_cpuset_bad_envelope", PMIx_Get_cpuset(&cs, 7), PMIX_ERR_BAD_PARAM);
        check_status("get_cpuset_process", PMIx_Get_cpuset(&cs, PMIX_CPUBIND_PROCESS), PMIX_SUCCESS);
        PMIx_Cpuset_destruct(&cs);
        memset(&foreign, 0, sizeof foreign);
        foreign.source = "hwloc";
        foreign.bitmap = &dummy; /* an object this library did not make: never read */
        check_status("generate_cpuset_string_null", PMIx_server_generate_cpuset_string(NULL, &out), PMIX_ERR_BAD_PARAM);
        check_status("generate_cpuset_string_foreign", PMIx_server_generate_cpuset_string(&foreign, &out),
                     PMIX_ERR_BAD_PARAM);
        check(out == NULL, "generate_cpuset_string_foreign_output", "got non-NULL want NULL");
        out = (char *) 1;
        check_status("generate_locality_null_out", PMIx_server_generate_locality_string(&foreign, NULL),
                     PMIX_ERR_BAD_PARAM);
        check_status("generate_locality_foreign", PMIx_server_generate_locality_string(&foreign, &out),
                     PMIX_ERR_BAD_PARAM);
        check(out == NULL, "generate_locality_foreign_output", "got non-NULL want NULL");
        check_status("relative_locality_null", PMIx_Get_relative_locality(NULL, "SK0", &l), PMIX_ERR_BAD_PARAM);
        check_status("relative_locality_null_out", PMIx_Get_relative_locality("SK0", "SK0", NULL), PMIX_ERR_BAD_PARAM);
        check_status("relative_locality_garbage", PMIx_Get_relative_locality("SK0:L3x", "SK0:L30", &l),
                     PMIX_ERR_BAD_PARAM);
        check(l == PMIX_LOCALITY_UNKNOWN, "relative_locality_garbage_unknown", "got set want PMIX_LOCALITY_UNKNOWN");
        check_status("relative_locality_good", PMIx_Get_relative_locality("SK0:CR1", "hwloc:SK0:CR2", &l),
                     PMIX_SUCCESS);
        check(l == (PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_PACKAGE), "relative_locality_good_value",
              "got other bits want node + package");
    }
}

/* ------------------------------------------------------------------ */
/* random bytes                                                        */

static unsigned char rnd_byte(void)
{
    return (unsigned char) (rand() & 0xff);
}

/* Mostly small bytes (0 half of the time), so that lengths and counts are
 * often plausible and the decoder gets past them. */
static unsigned char rnd_small_byte(void)
{
    int r = rand() % 8;
    if (r < 4) {
        return 0;
    }
    if (r < 6) {
        return 1;
    }
    if (r < 7) {
        return (unsigned char) (2 + rand() % 6);
    }
    return rnd_byte();
}

/* Unpack raw bytes as up to 4 elements of type t; check the contract. */
static bool fuzz_one(const unsigned char *raw, size_t len, pmix_data_type_t t, char *why, size_t whylen,
                     int *nsuccess)
{
    pmix_data_buffer_t b;
    unsigned char *dst = calloc(4, ELEM_MAX);
    int32_t n = 4;
    pmix_status_t rc;

    (void) buf_embed(&b, raw, len);
    rc = PMIx_Data_unpack(NULL, &b, dst, &n, t);
    if (rc == PMIX_SUCCESS) {
        pmix_data_array_t da;
        (*nsuccess)++;
        if (n < 0 || n > 4) {
            snprintf(why, whylen, "success with count %d for room of 4", (int) n);
            buf_free(&b);
            return false; /* dst cannot be trusted: leak it rather than crash */
        }
        da.type = t;
        da.size = (size_t) n;
        da.array = dst; /* PMIx_Data_array_destruct frees the elements and dst */
        PMIx_Data_array_destruct(&da);
        buf_free(&b);
        return true;
    }
    free(dst); /* on failure the destination holds nothing to free */
    if (!is_unpack_error(rc)) {
        snprintf(why, whylen, "status %d for type %u", rc, (unsigned) t);
        buf_free(&b);
        return false;
    }
    if (buf_off(&b) != 0) {
        snprintf(why, whylen, "a failed unpack of type %u moved the cursor", (unsigned) t);
        buf_free(&b);
        return false;
    }
    buf_free(&b);
    return true;
}

/* Counts and names callers pass: a proc count no memory could hold is a
 * bad parameter, not an abort; an over-long namespace is a bad parameter,
 * not "the caller's own namespace". */
static void test_caller_counts(void)
{
    pmix_proc_t p;
    pmix_proc_t *procs = NULL;
    size_t n = 0;
    char *nodes = NULL;
    char longns[600];

    set_nspace(&p, "ns", 0);
    check_status("fence_nprocs_2^40", PMIx_Fence(&p, (size_t) 1 << 40, NULL, 0), PMIX_ERR_BAD_PARAM);
    memset(longns, 'n', sizeof longns - 1);
    longns[sizeof longns - 1] = '\0';
    check_status("resolve_peers_overlong_nspace", PMIx_Resolve_peers(NULL, longns, &procs, &n), PMIX_ERR_BAD_PARAM);
    check_status("resolve_nodes_overlong_nspace", PMIx_Resolve_nodes(longns, &nodes), PMIX_ERR_BAD_PARAM);
}

static void test_random_bytes(void)
{
    unsigned char raw[256];
    pmix_data_type_t t;
    char name[96], why[160];
    int trial;

    srand(1);
    for (t = 1; t <= 69; t++) {
        bool ok = true;
        int nsuccess = 0;
        why[0] = '\0';
        /* fully random bytes (the header almost never names t) */
        for (trial = 0; trial < 30 && ok; trial++) {
            size_t len = 1 + (size_t) (rand() % 64), i;
            for (i = 0; i < len; i++) {
                raw[i] = rnd_byte();
            }
            ok = fuzz_one(raw, len, t, why, sizeof why, &nsuccess);
        }
        /* a valid header (type t, 1..4 elements, mostly 1) and a random body */
        for (trial = 0; trial < 400 && ok; trial++) {
            size_t len = 6 + (size_t) (rand() % 160), i;
            raw[0] = (unsigned char) (t & 0xff);
            raw[1] = (unsigned char) (t >> 8);
            raw[2] = (unsigned char) ((rand() % 4 == 0) ? 2 + rand() % 3 : 1);
            raw[3] = raw[4] = raw[5] = 0;
            for (i = 6; i < len; i++) {
                raw[i] = rnd_small_byte();
            }
            ok = fuzz_one(raw, len, t, why, sizeof why, &nsuccess);
        }
        snprintf(name, sizeof name, "random_bytes_unpack_as_type_%u", (unsigned) t);
        check(ok, name, "got %s want %s", why, "an unpack error or success, nothing consumed on error");
    }

    /* the valid sample with 1..3 random bytes changed */
    {
        struct sample s;
        pmix_data_buffer_t b;
        pmix_byte_object_t full;
        bool ok = true;
        why[0] = '\0';
        sample_build(&s);
        buf_init(&b);
        (void) sample_pack(&b, &s, -1);
        (void) PMIx_Data_unload(&b, &full);
        for (trial = 0; trial < 2000 && ok; trial++) {
            unsigned char *m = malloc(full.size);
            int flips = 1 + rand() % 3, f, k;
            pmix_status_t rc = PMIX_SUCCESS;
            memcpy(m, full.bytes, full.size);
            for (f = 0; f < flips; f++) {
                m[(size_t) rand() % full.size] = (rand() % 2) ? rnd_byte() : rnd_small_byte();
            }
            (void) buf_embed(&b, m, full.size);
            for (k = 0; k < 4 && rc == PMIX_SUCCESS; k++) {
                rc = sample_unpack(&b, k, false);
            }
            if (rc != PMIX_SUCCESS && !is_unpack_error(rc)) {
                ok = false;
                if (rc == CURSOR_MOVED) {
                    snprintf(why, sizeof why, "a failed unpack moved the cursor (trial %d)", trial);
                } else {
                    snprintf(why, sizeof why, "status %d (trial %d)", rc, trial);
                }
            }
            buf_free(&b);
            free(m);
        }
        check(ok, "mutated_sample_buffer_unpack", "got %s want %s", why, "an unpack error or success");
        free(full.bytes);
        sample_free(&s);
    }
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_info_t info;

    self_path = argv[0];
    tu_every = true;      /* one line per case */
    tu_ok_detail = false; /* "<case>: ok", "<case>: FAIL got <...> want <...>" */
    if (argc == 3 && 0 == strcmp(argv[1], "--child")) {
        size_t k;
        for (k = 0; k < N_CHILD; k++) {
            if (0 == strcmp(argv[2], child_cases[k].name)) {
                return child_cases[k].fn();
            }
        }
        return 2;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: %s\n", argv[0]);
        return 2;
    }

    /* OpenPMIx needs an init before its data utilities work; rpmix needs none
     * (and answers PMIX_ERR_NOT_SUPPORTED today). The status is ignored. */
    memset(&me, 0, sizeof me);
    memset(&info, 0, sizeof info);
    strncpy(info.key, PMIX_TOOL_DO_NOT_CONNECT, PMIX_MAX_KEYLEN);
    info.value.type = PMIX_BOOL;
    info.value.data.flag = true;
    (void) PMIx_tool_init(&me, &info, 1);

    test_null_pointers();
    test_info_list();
    test_keys();
    test_unknown_types();
    test_absurd_sizes();
    test_nesting();
    test_isolated();
    test_truncation();
    test_unpack_mismatch();
    test_inconsistent_buffers();
    test_embed_own_bytes();
    test_compress_and_cpuset();
    test_caller_counts();
    test_random_bytes();

    (void) PMIx_tool_finalize();
    return tu_summary(NULL);
}
