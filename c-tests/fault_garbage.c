/*
 * fault_garbage: a PMIx server must survive whatever arrives on its socket.
 *
 *   pmixrun -n N ./fault_garbage      (N >= 2)
 *   rm_simple -n N ./fault_garbage
 *
 * Rank 0, BEFORE PMIx_Init, opens raw connections to the server socket (the
 * path in PMIX_RPMIX_URI, else PMIX_SERVER_URI41) and injects faults:
 *   a  64 KiB of random bytes (fixed seed), then close
 *   b  a frame header claiming length 0xFFFFFFFF (must be dropped)
 *   c  a frame header claiming 100 MiB plus a few bytes, held open
 *   c2 a frame header claiming 1 MiB (a legal size) plus a few bytes, held open
 *   d  a truncated hello (header says 200 bytes, 20 sent), then close
 *   e  a well-formed hello for rank 9999 (not registered): refused
 *   f  a well-formed hello for a namespace that does not exist: refused
 *   h  a hello with the wrong protocol version: refused
 *   i  a hello whose namespace string claims 4 GiB: refused
 *   j  a frame shorter than its own header: dropped
 *   k  a hello sent one byte at a time: answered (refused: rank 9999)
 *   g  one connection per tag 0..120, random body, no hello: each dropped;
 *      then all 121 frames back to back on one connection: dropped
 *   o  a hello for this rank with a wrong credential: refused
 *   p  (under pmixrun) a hello for this rank without its credential: refused
 *   l  100 hellos refused (rank 9999) whose peers close at once; the probe
 *      after them is answered within 2.5 s (the server never waits for them)
 *   m  2 MiB of a frame announced as 32 MiB, without a hello: dropped
 *   idle 64 connections that never send anything, held open
 * After every step a probe connection (hello for rank 9999) must be answered
 * within 5 s: the server is still serving.
 *
 * Then every rank: PMIx_Init, Put/Commit, Fence with PMIX_COLLECT_DATA, Get
 * of every other rank's key. Rank 0 then opens one more raw connection with a
 * hello for ITS OWN rank (a duplicate): it must be refused while the real
 * connection keeps working: every rank puts its failure count, fences again
 * and rank 0 reads them all. Finally PMIx_Finalize.
 *
 * Rank 0 prints "fault_garbage: <step>: ok" or "fault_garbage: <step>: FAIL
 * <detail>" per step and "N passed, M failed". Other ranks print only their
 * failures. Exit status 0 when everything passed. Every wait is bounded: raw
 * reads time out after a few seconds and alarm() ends a stuck rank.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define TESTUTIL_CHECKS_ONLY /* ranks without testutil.h's job helpers (own now_ms) */
#include "testutil.h"

#define TAG_HELLO 1
#define TAG_REPLY 100
#define PROTOCOL 1
#define REPLY_MS 5000 /* longest wait for any answer of the server */
#define NIDLE 64
#define ALARM_S 25

static int is_rank0;
static unsigned rank_env;
static int server_stuck; /* a probe failed: the raw steps stop there */
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static char my_ns[PMIX_MAX_NSLEN + 1];

/* ------------------------------------------------------------------ */
/* time, random                                                        */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void msleep(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL; /* fixed seed: every run sends the same bytes */

static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545f4914f6cdd1dULL) >> 32);
}

static void rnd_fill(unsigned char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) b[i] = (unsigned char)rnd();
}

/* ------------------------------------------------------------------ */
/* raw protocol                                                        */

typedef struct {
    unsigned char *b;
    size_t len, cap;
} buf_t;

static void put_bytes(buf_t *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        b->b = realloc(b->b, cap);
        if (b->b == NULL) abort();
        b->cap = cap;
    }
    memcpy(b->b + b->len, p, n);
    b->len += n;
}

static void put_u32(buf_t *b, uint32_t v)
{
    unsigned char x[4];
    x[0] = (unsigned char)v; x[1] = (unsigned char)(v >> 8);
    x[2] = (unsigned char)(v >> 16); x[3] = (unsigned char)(v >> 24);
    put_bytes(b, x, 4);
}

static void put_u16(buf_t *b, uint16_t v)
{
    unsigned char x[2];
    x[0] = (unsigned char)v; x[1] = (unsigned char)(v >> 8);
    put_bytes(b, x, 2);
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A frame: u32 length (of what follows) + u32 request id + u16 tag + body. */
static void put_frame(buf_t *b, uint32_t req, uint16_t tag, const void *body, size_t n)
{
    put_u32(b, (uint32_t)(6 + n));
    put_u32(b, req);
    put_u16(b, tag);
    if (n) put_bytes(b, body, n);
}

/* Hello body: u32 protocol + string (u32 len+1, bytes) + u32 rank. */
static void hello_body(buf_t *b, uint32_t proto, const char *ns, uint32_t rank)
{
    put_u32(b, proto);
    put_u32(b, (uint32_t)strlen(ns) + 1);
    put_bytes(b, ns, strlen(ns));
    put_u32(b, rank);
}

static void hello_frame(buf_t *out, uint32_t req, uint32_t proto, const char *ns, uint32_t rank)
{
    buf_t body = {0};
    hello_body(&body, proto, ns, rank);
    put_frame(out, req, TAG_HELLO, body.b, body.len);
    free(body.b);
}

static int raw_connect(void)
{
    struct sockaddr_un sa;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Send everything (bounded by REPLY_MS); 0, or -errno (EPIPE etc. when the server dropped us). */
static int send_all(int fd, const void *p, size_t n)
{
    const unsigned char *c = p;
    double end = now_ms() + REPLY_MS;
    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            c += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pf;
            int left = (int)(end - now_ms());
            if (left <= 0) return -ETIMEDOUT;
            pf.fd = fd;
            pf.events = POLLOUT;
            pf.revents = 0;
            (void)poll(&pf, 1, left);
            continue;
        }
        return w < 0 ? -errno : -EIO;
    }
    return 0;
}

/* What the server did on a connection. */
typedef struct {
    int frames;      /* complete frames received */
    int32_t status;  /* status of the first frame (when it is a reply) */
    uint16_t tag;    /* tag of the first frame */
    uint32_t req;    /* request id of the first frame */
    int closed;      /* EOF or reset seen */
    int timedout;    /* neither close nor (enough) frames within the time */
    int junk;        /* a frame that is not ours (bad length) */
} outcome_t;

/* Read until the server closes, or for at most `ms`; once a frame arrived,
 * wait at most `after_ms` more for the close. */
static void await_peer(int fd, int ms, int after_ms, outcome_t *o)
{
    static unsigned char in[1 << 20];
    size_t have = 0;
    double end = now_ms() + ms;
    memset(o, 0, sizeof(*o));
    for (;;) {
        struct pollfd pf;
        int left = (int)(end - now_ms()), pr;
        ssize_t r;
        if (left <= 0) {
            o->timedout = 1;
            return;
        }
        pf.fd = fd;
        pf.events = POLLIN;
        pf.revents = 0;
        pr = poll(&pf, 1, left);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue; /* deadline re-checked above */
        if (have == sizeof(in)) have = 0; /* we only look at the first frame */
        r = recv(fd, in + have, sizeof(in) - have, MSG_DONTWAIT);
        if (r == 0 || (r < 0 && (errno == ECONNRESET || errno == EPIPE))) {
            o->closed = 1;
            return;
        }
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            o->closed = 1;
            return;
        }
        have += (size_t)r;
        while (have >= 4) {
            uint32_t len = get_u32(in);
            if (len < 6 || len > sizeof(in) - 4) {
                o->junk = 1;
                have = 0;
                break;
            }
            if (have < 4 + (size_t)len) break;
            if (o->frames == 0) {
                o->req = get_u32(in + 4);
                o->tag = (uint16_t)(in[8] | in[9] << 8);
                o->status = len >= 10 ? (int32_t)get_u32(in + 10) : PMIX_ERROR;
                end = now_ms() + after_ms < end ? now_ms() + after_ms : end;
            }
            o->frames++;
            memmove(in, in + 4 + len, have - 4 - len);
            have -= 4 + len;
        }
    }
}

static void describe(const outcome_t *o, char *s, size_t n)
{
    if (o->frames > 0)
        snprintf(s, n, "%d frame(s), first tag %u req %u status %s%s%s", o->frames, (unsigned)o->tag,
                 (unsigned)o->req, PMIx_Error_string(o->status), o->closed ? ", then closed" : "",
                 o->timedout && !o->closed ? ", left open" : "");
    else if (o->closed)
        snprintf(s, n, "closed without a reply");
    else
        snprintf(s, n, "no reply and not closed within %d ms", REPLY_MS);
}

/* Refused: a non-success reply to our request, or closed without any reply. */
static int refused(const outcome_t *o, uint32_t req)
{
    if (o->junk) return 0;
    if (o->frames > 0) return o->tag == TAG_REPLY && o->req == req && o->status != PMIX_SUCCESS;
    return o->closed;
}

/* Dropped: closed (a non-success reply before the close is fine). */
static int dropped(const outcome_t *o)
{
    if (o->junk || !o->closed) return 0;
    return o->frames == 0 || (o->tag == TAG_REPLY && o->status != PMIX_SUCCESS);
}

/* The server still serves: a hello for an unregistered rank is answered. */
static int probe(char *why, size_t n)
{
    buf_t f = {0};
    outcome_t o;
    int fd = raw_connect(), rc;
    if (fd < 0) {
        snprintf(why, n, "probe: connect failed: %s", strerror(errno));
        return 0;
    }
    hello_frame(&f, 77, PROTOCOL, my_ns, 9999);
    rc = send_all(fd, f.b, f.len);
    free(f.b);
    if (rc != 0) {
        snprintf(why, n, "probe: send failed: %s", strerror(-rc));
        close(fd);
        return 0;
    }
    await_peer(fd, REPLY_MS, 0, &o);
    close(fd);
    if (refused(&o, 77)) return 1;
    {
        char d[256];
        describe(&o, d, sizeof(d));
        snprintf(why, n, "probe (hello for rank 9999): %s", d);
    }
    return 0;
}

/* Report a step: its own verdict, then the probe (also after a failed step,
 * so that a stuck server ends the raw steps instead of timing out each one). */
static void step_done(const char *step, int ok, const char *detail)
{
    char why[512];
    int alive = probe(why, sizeof(why));
    if (!alive) server_stuck = 1;
    if (!ok)
        fail(step, "%s%s%s", detail, alive ? "" : "; then ", alive ? "" : why);
    else if (!alive)
        fail(step, "server not healthy afterwards: %s", why);
    else
        check_that(true, step);
}

/* Send a whole buffer on a fresh connection; the fd, or -1 (reported). */
static int conn_send(const char *step, const void *p, size_t n, int tolerate_drop)
{
    int fd = raw_connect(), rc;
    if (fd < 0) {
        fail(step, "connect: %s", strerror(errno));
        return -1;
    }
    rc = send_all(fd, p, n);
    if (rc != 0 && !(tolerate_drop && (rc == -EPIPE || rc == -ECONNRESET))) {
        fail(step, "send: %s", strerror(-rc));
        close(fd);
        return -1;
    }
    return fd;
}

/* Send a hello variant and require a refusal (non-success reply, or close). */
static void hello_refused(const char *step, const buf_t *frame, uint32_t req)
{
    outcome_t o;
    char d[256];
    int fd = conn_send(step, frame->b, frame->len, 1);
    if (fd < 0) return;
    await_peer(fd, REPLY_MS, 1000, &o);
    close(fd);
    describe(&o, d, sizeof(d));
    step_done(step, refused(&o, req), d);
}

/* ------------------------------------------------------------------ */
/* the raw steps (rank 0, before PMIx_Init)                            */

static int held_c = -1, held_c2 = -1, idle_fd[NIDLE];

#define STOP_IF_STUCK() do { if (server_stuck) { free(f.b); return; } } while (0)

static void raw_steps(void)
{
    buf_t f = {0};
    unsigned char *junk;
    outcome_t o;
    char d[256];
    int fd, t, i;

    /* a: 64 KiB of random bytes, then close */
    junk = malloc(65536);
    if (junk == NULL) abort();
    rnd_fill(junk, 65536);
    fd = conn_send("a-random-64KiB", junk, 65536, 1);
    free(junk);
    if (fd >= 0) {
        close(fd);
        step_done("a-random-64KiB", 1, NULL);
    }

    STOP_IF_STUCK();
    /* b: a header claiming 0xFFFFFFFF bytes */
    put_u32(&f, 0xFFFFFFFFu);
    put_u32(&f, 1);
    put_u16(&f, TAG_HELLO);
    fd = conn_send("b-length-0xFFFFFFFF", f.b, f.len, 1);
    f.len = 0;
    if (fd >= 0) {
        await_peer(fd, REPLY_MS, 0, &o);
        close(fd);
        describe(&o, d, sizeof(d));
        step_done("b-length-0xFFFFFFFF", dropped(&o), d);
    }

    STOP_IF_STUCK();
    /* c: a header claiming 100 MiB, a few bytes, held open while we go on */
    put_u32(&f, 100u << 20);
    put_u32(&f, 2);
    put_u16(&f, TAG_HELLO);
    put_bytes(&f, "0123456789abcdef", 16);
    held_c = conn_send("c-length-100MiB-held", f.b, f.len, 1);
    f.len = 0;
    if (held_c >= 0) step_done("c-length-100MiB-held", 1, NULL);

    STOP_IF_STUCK();
    /* c2: a legal size (1 MiB) announced, 1000 bytes sent, held open */
    put_u32(&f, 1u << 20);
    put_u32(&f, 3);
    put_u16(&f, 7);
    junk = calloc(1000, 1);
    if (junk == NULL) abort();
    rnd_fill(junk, 1000);
    put_bytes(&f, junk, 1000);
    free(junk);
    held_c2 = conn_send("c2-partial-1MiB-held", f.b, f.len, 1);
    f.len = 0;
    if (held_c2 >= 0) step_done("c2-partial-1MiB-held", 1, NULL);

    STOP_IF_STUCK();
    /* d: a truncated hello: header says 200 bytes, 20 sent, close */
    {
        buf_t body = {0};
        hello_body(&body, PROTOCOL, my_ns, 0);
        put_u32(&f, 200);
        put_u32(&f, 4);
        put_u16(&f, TAG_HELLO);
        put_bytes(&f, body.b, 10);
        free(body.b);
    }
    fd = conn_send("d-truncated-hello", f.b, f.len, 1);
    f.len = 0;
    if (fd >= 0) {
        close(fd);
        step_done("d-truncated-hello", 1, NULL);
    }

    STOP_IF_STUCK();
    /* e: hello for an unregistered rank of our namespace */
    hello_frame(&f, 5, PROTOCOL, my_ns, 9999);
    hello_refused("e-hello-unregistered-rank", &f, 5);
    f.len = 0;

    STOP_IF_STUCK();
    /* f: hello for a namespace that does not exist */
    hello_frame(&f, 6, PROTOCOL, "no.such.namespace.fault_garbage", 0);
    hello_refused("f-hello-unknown-nspace", &f, 6);
    f.len = 0;

    STOP_IF_STUCK();
    /* h: wrong protocol version, for a real (not yet connected) rank */
    hello_frame(&f, 8, PROTOCOL + 41, my_ns, 0);
    hello_refused("h-hello-bad-protocol", &f, 8);
    f.len = 0;

    STOP_IF_STUCK();
    /* i: the namespace string claims 4 GiB */
    {
        buf_t body = {0};
        put_u32(&body, PROTOCOL);
        put_u32(&body, 0xFFFFFFFFu);
        put_bytes(&body, my_ns, strlen(my_ns));
        put_u32(&body, 0);
        put_frame(&f, 9, TAG_HELLO, body.b, body.len);
        free(body.b);
    }
    hello_refused("i-hello-huge-string", &f, 9);
    f.len = 0;

    STOP_IF_STUCK();
    /* j: frames shorter than their own header (length 0 and 5) */
    for (t = 0; t < 2; t++) {
        const char *name = t ? "j-length-5" : "j-length-0";
        put_u32(&f, t ? 5u : 0u);
        put_bytes(&f, "\x01\x00\x00\x00\x01\x00", 6);
        fd = conn_send(name, f.b, f.len, 1);
        f.len = 0;
        if (fd < 0) continue;
        await_peer(fd, REPLY_MS, 0, &o);
        close(fd);
        describe(&o, d, sizeof(d));
        step_done(name, dropped(&o), d);
    }

    STOP_IF_STUCK();
    /* k: a hello one byte at a time (the server must reassemble it) */
    hello_frame(&f, 11, PROTOCOL, my_ns, 9999);
    fd = raw_connect();
    if (fd < 0) {
        fail("k-hello-bytewise", "connect: %s", strerror(errno));
    } else {
        size_t k;
        int rc = 0;
        for (k = 0; k < f.len && rc == 0; k++) {
            rc = send_all(fd, f.b + k, 1);
            msleep(2);
        }
        if (rc != 0) {
            fail("k-hello-bytewise", "send: %s", strerror(-rc));
        } else {
            await_peer(fd, REPLY_MS, 1000, &o);
            describe(&o, d, sizeof(d));
            /* a reply proves the frame was reassembled; a bare close would not */
            step_done("k-hello-bytewise", o.frames > 0 && refused(&o, 11), d);
        }
        close(fd);
    }
    f.len = 0;

    STOP_IF_STUCK();
    /* g: every tag 0..120 with a random body, never a hello */
    {
        char bad[1024] = "";
        size_t used = 0;
        int nbad = 0;
        for (t = 0; t <= 120; t++) {
            unsigned char body[256];
            size_t n = rnd() % sizeof(body);
            rnd_fill(body, n);
            put_frame(&f, (uint32_t)(1000 + t), (uint16_t)t, body, n);
            fd = raw_connect();
            if (fd >= 0) (void)send_all(fd, f.b, f.len); /* an error: dropped early, fine */
            f.len = 0;
            if (fd < 0) {
                nbad++;
                used += (size_t)snprintf(bad + used, used < sizeof(bad) ? sizeof(bad) - used : 0,
                                         " tag %d: connect failed;", t);
                continue;
            }
            await_peer(fd, REPLY_MS, 500, &o);
            close(fd);
            if (o.timedout && !o.closed && !probe(d, sizeof(d))) {
                server_stuck = 1;
                fail("g-tags-0..120-without-hello", "tag %d: no answer, and %s", t, d);
                free(f.b);
                return;
            }
            if (!dropped(&o)) {
                nbad++;
                describe(&o, d, sizeof(d));
                if (used < sizeof(bad))
                    used += (size_t)snprintf(bad + used, sizeof(bad) - used, " tag %d: %s;", t, d);
            }
        }
        step_done("g-tags-0..120-without-hello", nbad == 0, bad);

        /* all 121 on one connection, back to back */
        for (t = 0; t <= 120; t++) {
            unsigned char body[64];
            size_t n = rnd() % sizeof(body);
            rnd_fill(body, n);
            put_frame(&f, (uint32_t)(2000 + t), (uint16_t)((t + 2) % 121), body, n); /* tag 1 not first */
        }
        fd = conn_send("g-burst-one-connection", f.b, f.len, 1);
        f.len = 0;
        if (fd >= 0) {
            await_peer(fd, REPLY_MS, 500, &o);
            close(fd);
            describe(&o, d, sizeof(d));
            step_done("g-burst-one-connection", dropped(&o), d);
        }
    }

    STOP_IF_STUCK();
    /* o: a hello for this very rank (registered, not yet connected) with a
     * credential that is not its own: refused under every launcher */
    {
        buf_t body = {0};
        const char *bad = "00000000000000000000000000000000";
        hello_body(&body, PROTOCOL, my_ns, rank_env);
        put_u32(&body, (uint32_t) strlen(bad) + 1);
        put_bytes(&body, bad, strlen(bad));
        put_frame(&f, 12, TAG_HELLO, body.b, body.len);
        free(body.b);
        hello_refused("o-own-rank-wrong-credential", &f, 12);
        f.len = 0;
    }

    STOP_IF_STUCK();
    /* p: the same without any credential: pmixrun requires one for its jobs
     * (a C host that does not ask for it accepts such a hello: not tried) */
    if (strncmp(my_ns, "rpmixrun.", 9) == 0) {
        hello_frame(&f, 13, PROTOCOL, my_ns, rank_env);
        hello_refused("p-own-rank-no-credential", &f, 13);
        f.len = 0;
    }

    /* l: 100 peers whose hello is refused and that close at once: the server
     * must not stop serving while it tries to answer them (it used to wait
     * 50 ms for each, 5 s in all, before the probe was answered) */
    {
        double t0;
        char why[200];
        int alive;
        for (i = 0; i < 100; i++) {
            int fd;
            hello_frame(&f, 20 + i, PROTOCOL, my_ns, 9999);
            fd = raw_connect();
            if (fd >= 0) {
                (void) send_all(fd, f.b, f.len);
                close(fd);
            }
            f.len = 0;
        }
        t0 = now_ms();
        alive = probe(why, sizeof(why));
        snprintf(d, sizeof(d), "the probe after them took %.0f ms (limit 2500)%s%s", now_ms() - t0,
                 alive ? "" : ": ", alive ? "" : why);
        step_done("l-100-refused-and-gone", alive && now_ms() - t0 < 2500, d);
    }

    STOP_IF_STUCK();
    /* m: a peer that never said hello sends 2 MiB of a frame announced as
     * 32 MiB (a legal size): dropped, not buffered (at most 1 MiB) */
    {
        junk = calloc(2u << 20, 1);
        if (junk == NULL) abort();
        put_u32(&f, 32u << 20);
        put_u32(&f, 4);
        put_u16(&f, 7);
        put_bytes(&f, junk, 2u << 20);
        free(junk);
        fd = conn_send("m-2MiB-partial-without-hello", f.b, f.len, 1);
        f.len = 0;
        if (fd >= 0) {
            await_peer(fd, REPLY_MS, 0, &o);
            close(fd);
            describe(&o, d, sizeof(d));
            step_done("m-2MiB-partial-without-hello", dropped(&o), d);
        }
    }

    STOP_IF_STUCK();
    /* idle: connections that never say anything, held open */
    {
        int nok = 0;
        for (i = 0; i < NIDLE; i++) {
            idle_fd[i] = raw_connect();
            if (idle_fd[i] >= 0) nok++;
        }
        step_done("idle-connections-held", nok == NIDLE, "some connects failed");
    }
    free(f.b);
}

/* ------------------------------------------------------------------ */
/* the PMIx part (every rank)                                          */

static pmix_proc_t me;
static uint32_t nranks;

static int fence_collect(const char *step)
{
    pmix_info_t info;
    bool t = true;
    pmix_status_t rc;
    PMIX_INFO_CONSTRUCT(&info);
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        fail(step, "PMIx_Fence: %s", PMIx_Error_string(rc));
        return 0;
    }
    return 1;
}

static int put_u32_key(const char *step, const char *key, uint32_t v)
{
    pmix_value_t val;
    pmix_status_t rc;
    PMIX_VALUE_CONSTRUCT(&val);
    PMIx_Value_load(&val, &v, PMIX_UINT32);
    rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    PMIx_Value_destruct(&val);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        fail(step, "Put/Commit(%s): %s", key, PMIx_Error_string(rc));
        return 0;
    }
    return 1;
}

/* Get `key` of every rank; returns the number of mismatches (values summed into *sum). */
static int get_all(const char *step, const char *key, int expect_formula, uint32_t *sum)
{
    uint32_t r;
    int bad = 0;
    *sum = 0;
    for (r = 0; r < nranks; r++) {
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        pmix_status_t rc;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        rc = PMIx_Get(&p, key, NULL, 0, &v);
        if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_UINT32) {
            fail(step, "Get(%s, rank %u): %s", key, (unsigned)r, PMIx_Error_string(rc));
            bad++;
        } else if (expect_formula && v->data.uint32 != r * 7u + 1u) {
            fail(step, "Get(%s, rank %u) = %u, expected %u", key, (unsigned)r,
                 (unsigned)v->data.uint32, (unsigned)(r * 7u + 1u));
            bad++;
        } else {
            *sum += v->data.uint32;
        }
        if (v != NULL) PMIX_VALUE_RELEASE(v);
    }
    return bad;
}

/* A second connection claiming our own (connected) identity must be refused. */
static void dup_hello(void)
{
    buf_t f = {0};
    hello_frame(&f, 12, PROTOCOL, me.nspace, me.rank);
    hello_refused("dup-hello-own-rank", &f, 12);
    free(f.b);
}

int main(void)
{
    const char *uri = getenv("PMIX_RPMIX_URI") ? getenv("PMIX_RPMIX_URI") : getenv("PMIX_SERVER_URI41"), *ns = getenv("PMIX_NAMESPACE");
    const char *rk = getenv("PMIX_RANK"), *p;
    pmix_status_t rc;
    uint32_t sum;
    int i, failed_before;

    alarm(ALARM_S); /* nothing below may hang: a stuck rank dies (SIGALRM) */
    signal(SIGPIPE, SIG_IGN);
    rank_env = rk ? (unsigned)strtoul(rk, NULL, 10) : 0;
    is_rank0 = rk != NULL && rank_env == 0;
    /* rank 0: "fault_garbage: <step>: ok" or "...: FAIL <detail>" for every step;
     * the others: their failures only, as "fault_garbage: rank R: <step>: FAIL <detail>" */
    if (is_rank0) {
        tu_set_prefix("fault_garbage: ");
        tu_every = true;
        tu_ok_detail = false;
    } else {
        tu_set_prefix("fault_garbage: rank %u: ", rank_env);
    }

    if (is_rank0) {
        if (uri == NULL || ns == NULL || (p = strstr(uri, ";unix:")) == NULL) {
            fail("setup", "no PMIX_SERVER_URI41 / PMIX_NAMESPACE with a unix: address");
            tu_summary(NULL);
            return 1;
        }
        p += strlen(";unix:");
        if (strlen(p) >= sizeof(sock_path) || strlen(ns) > PMIX_MAX_NSLEN) {
            fail("setup", "socket path or namespace too long");
            tu_summary(NULL);
            return 1;
        }
        memcpy(sock_path, p, strlen(p) + 1);
        memcpy(my_ns, ns, strlen(ns) + 1);
        raw_steps();
        if (server_stuck) {
            fail("init", "not tried: the server failed a probe (the other ranks end by alarm)");
            tu_summary(NULL);
            return 1;
        }
    }

    /* every rank: a normal PMIx life */
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fail("init", "PMIx_Init: %s", PMIx_Error_string(rc));
        if (is_rank0) tu_summary(NULL);
        return 1;
    }
    {
        pmix_proc_t wild;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
        rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
        nranks = (rc == PMIX_SUCCESS && v != NULL && v->type == PMIX_UINT32) ? v->data.uint32 : 0;
        if (v != NULL) PMIX_VALUE_RELEASE(v);
    }
    if (nranks < 2) {
        fail("init", "needs a job of at least 2 ranks (job size %u)", (unsigned)nranks);
        PMIx_Finalize(NULL, 0);
        if (is_rank0) tu_summary(NULL);
        return 1;
    }
    check_that(true, "init");

    failed_before = nfail;
    if (put_u32_key("put-fence-get", "fg.key", me.rank * 7u + 1u) && fence_collect("put-fence-get") &&
        get_all("put-fence-get", "fg.key", 1, &sum) == 0)
        check_that(true, "put-fence-get");
    else if (nfail == failed_before)
        fail("put-fence-get", "(see above)");

    if (is_rank0) dup_hello();

    /* the real connection still works: everybody's failure count, fenced again */
    failed_before = nfail;
    if (put_u32_key("fence-after-dup", "fg.nfail", (uint32_t)nfail) && fence_collect("fence-after-dup") &&
        get_all("fence-after-dup", "fg.nfail", 0, &sum) == 0) {
        if (is_rank0) {
            /* our own count is in sum too: the others' is sum - what we put */
            uint32_t others = sum - (uint32_t)failed_before;
            check_that(true, "fence-after-dup");
            check(others == 0, "other-ranks", "%u failure(s) on other ranks (their stdout has details)",
                  (unsigned)others);
        }
    } else if (nfail == failed_before) {
        fail("fence-after-dup", "(see above)");
    }

    if (is_rank0) {
        /* the held connections: the oversized one must have been dropped by now */
        outcome_t o;
        char d[256];
        if (held_c >= 0) {
            await_peer(held_c, 100, 0, &o);
            describe(&o, d, sizeof(d));
            check(dropped(&o), "c-oversize-dropped", "%s", d);
            close(held_c);
        }
        if (held_c2 >= 0) close(held_c2);
        for (i = 0; i < NIDLE; i++)
            if (idle_fd[i] >= 0) close(idle_fd[i]);
    }

    rc = PMIx_Finalize(NULL, 0);
    check(rc == PMIX_SUCCESS, "finalize", "PMIx_Finalize: %s", PMIx_Error_string(rc));
    if (is_rank0) tu_summary(NULL);
    return nfail == 0 ? 0 : 1;
}
